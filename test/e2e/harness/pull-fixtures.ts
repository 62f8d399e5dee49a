import { execFileSync } from 'node:child_process';
import type { GitHubStandIn } from './github-standin.js';
import type { PullState, RepoState } from './github-state.js';

function head(sourceDir: string, ref: string): string {
  return execFileSync('git', ['rev-parse', `${ref}^{commit}`], { cwd: sourceDir, encoding: 'utf8' }).trim();
}

/** Publishes a working repository on the stand-in as `<owner>/<name>` (its branches become remote branches). */
export function publishRepo(
  gh: GitHubStandIn,
  owner: string,
  name: string,
  sourceDir: string,
  opts: { fork?: boolean; defaultBranch?: string } = {},
): RepoState {
  const repo = gh.state.addRepo(owner, name, opts);
  gh.remote.create(owner, name, sourceDir);
  return repo;
}

export interface OpenPullOptions {
  /** The base repository. */
  repo: RepoState;
  /** Working repository holding the head branch. */
  sourceDir: string;
  headRef: string;
  baseRef?: string;
  /** The fork the head branch lives in (its branch is pushed there, not to the base repo). */
  headRepo?: RepoState;
  author?: string;
  title?: string;
  body?: string | null;
  draft?: boolean;
  labels?: string[];
  maintainerCanModify?: boolean;
}

/** Updates refs/pull/N/head (and /merge) of the base repo, as GitHub does on every push to a PR. */
function syncPullRefs(gh: GitHubStandIn, pull: PullState, sourceDir: string): void {
  const { login } = pull.repo.owner;
  const headRepo = pull.headRepo;
  gh.remote.pushFrom(headRepo.owner.login, headRepo.name, sourceDir, [`refs/heads/${pull.headRef}:refs/heads/${pull.headRef}`]);
  if (headRepo !== pull.repo) {
    // A fork's commits reach the base repo only through refs/pull/N/head.
    gh.remote.pushFrom(login, pull.repo.name, gh.remote.dirOf(headRepo.owner.login, headRepo.name), [
      `refs/heads/${pull.headRef}:refs/pull/${pull.number}/head`,
    ]);
  }
  pull.headSha = head(sourceDir, pull.headRef);
  pull.baseSha = gh.remote.revParse(login, pull.repo.name, `refs/heads/${pull.baseRef}`)!;
  const merge = gh.remote.setPullRefs(login, pull.repo.name, pull.number, pull.headSha, pull.baseRef);
  pull.mergeable = merge !== null;
}

/** Opens a pull request on the stand-in: pushes the head branch and creates the pull refs. */
export function openPull(gh: GitHubStandIn, o: OpenPullOptions): PullState {
  const { state } = gh;
  const pull: PullState = {
    id: state.id(),
    number: state.nextIssueNumber(o.repo),
    repo: o.repo,
    headRepo: o.headRepo ?? o.repo,
    headRef: o.headRef,
    headSha: '',
    baseRef: o.baseRef ?? o.repo.defaultBranch,
    baseSha: '',
    title: o.title ?? `Change ${o.headRef}`,
    body: o.body === undefined ? 'The author wrote this description.' : o.body,
    user: state.user(o.author ?? 'pr-author', 'User'),
    state: 'open',
    draft: o.draft ?? false,
    labels: o.labels ?? [],
    mergeable: null,
    maintainerCanModify: o.maintainerCanModify ?? false,
  };
  syncPullRefs(gh, pull, o.sourceDir);
  state.pulls.push(pull);
  return pull;
}

/** A merge queue entry: the commit GitHub builds and the refs its `merge_group` event names (branch names, no `refs/heads/`). */
export interface MergeGroupState {
  headSha: string;
  headRef: string;
  baseSha: string;
  baseRef: string;
  /** The queue commit's tree (the payload's `head_commit.tree_id`). */
  treeId: string;
}

/**
 * What GitHub's merge queue does when `pull` enters it: merges the PR's head onto `baseSha` (default:
 * the base branch's tip) as a new commit on `gh-readonly-queue/<base>/pr-<number>-<head>`.
 */
export function queuePull(gh: GitHubStandIn, pull: PullState, baseSha?: string): MergeGroupState {
  const { login } = pull.repo.owner;
  const base = baseSha ?? gh.remote.revParse(login, pull.repo.name, `refs/heads/${pull.baseRef}`)!;
  const headRef = `gh-readonly-queue/${pull.baseRef}/pr-${pull.number}-${pull.headSha}`;
  const message = `Merge pull request #${pull.number} from ${pull.headRef}\n\n${pull.title}`;
  const headSha = gh.remote.mergeGroup(login, pull.repo.name, base, pull.headSha, headRef, message);
  if (!headSha) throw new Error(`pull request #${pull.number} conflicts with ${base.slice(0, 7)}`);
  const treeId = execFileSync('git', ['rev-parse', `${headSha}^{tree}`], {
    cwd: gh.remote.dirOf(login, pull.repo.name),
    encoding: 'utf8',
  }).trim();
  return { headSha, headRef, baseSha: base, baseRef: pull.baseRef, treeId };
}

/** A new push to the PR's head branch (the `synchronize` case); returns the previous head sha. */
export function pushToPull(gh: GitHubStandIn, pull: PullState, sourceDir: string): string {
  const before = pull.headSha;
  syncPullRefs(gh, pull, sourceDir);
  return before;
}
