import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runGit, type GitCredentials } from './git-auth.js';
import type { RepoMirrors, RepoRef } from './repo-mirror.js';

export interface PrRevisionsRequest {
  repo: RepoRef;
  number: number;
  /** Base branch name (e.g. `main`). */
  baseRef: string;
  /** The base sha GitHub reported, when known. */
  baseSha?: string;
  /** The head sha this job gates. */
  headSha: string;
  /**
   * A branch of the base repository that holds the head, when the head is not a pull request's (a merge
   * queue's temporary branch, `gh-readonly-queue/main/pr-12-…`): fetched instead of the PR's head ref.
   */
  headRef?: string;
  /** Fetch refs/pull/N/merge (GitHub's test-merge commit) — only when GitHub says the PR is mergeable. */
  withMerge: boolean;
  /** Write plain directory snapshots (no `.git` inside) for the test gate. */
  snapshots: boolean;
  creds?: GitCredentials;
  /** Where snapshot directories go (a fresh temp dir per job is made inside). */
  scratchRoot: string;
}

export interface PrRevisions {
  /** The git directory the pipeline reads base and head from: the App's bare mirror, the Action's checkout. */
  mirrorDir: string;
  baseSha: string;
  mergeBase: string;
  headSha: string;
  /** GitHub's test-merge commit, when fetched. */
  mergeSha?: string;
  /**
   * A work tree a CI workflow prepared (the Action's checkout, dependencies installed): the test gate
   * may use what was installed there, when the dependency files match, instead of installing.
   */
  checkout?: string;
  /** Plain checkouts for tools that need files on disk (the test gate); absent when not asked for. */
  dirs?: { base: string; head: string; merge?: string };
  /** Removes the snapshots (the mirror stays for the next job). */
  cleanup(): Promise<void>;
}

/** Private ref namespace in the mirror, per PR. */
export function prRefs(n: number) {
  return { base: `refs/slopgate/pr/${n}/base`, head: `refs/slopgate/pr/${n}/head`, merge: `refs/slopgate/pr/${n}/merge` };
}

/** Private refs of a merge queue's commit for PR `n` (0: a queue entry whose PR is not known). */
export function queueRefs(n: number) {
  return { base: `refs/slopgate/queue/${n}/base`, head: `refs/slopgate/queue/${n}/head`, merge: `refs/slopgate/queue/${n}/merge` };
}

/** Where the head comes from: the PR's own ref on the host, or the branch that holds it (a merge queue's). */
function headSource(req: Pick<PrRevisionsRequest, 'number' | 'headRef'>): string {
  return req.headRef ? `refs/heads/${req.headRef}` : `refs/pull/${req.number}/head`;
}

async function revParse(dir: string, rev: string): Promise<string | null> {
  try {
    return (await runGit(dir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`])).trim() || null;
  } catch {
    return null;
  }
}

/**
 * Checks out one commit into a plain directory without a `.git` link: untrusted code running there
 * (tests) cannot reach the mirror's config or hooks. Uses a throwaway index, so the checkout fetches
 * missing blobs in one batch like any partial-clone checkout.
 */
async function snapshot(mirrorDir: string, sha: string, target: string, creds?: GitCredentials): Promise<void> {
  await mkdir(target, { recursive: true });
  const index = `${target}.index`;
  try {
    await runGit(mirrorDir, ['--work-tree', target, 'read-tree', '-u', '--reset', sha], {
      ...(creds ? { creds } : {}),
      env: { GIT_INDEX_FILE: index },
    });
  } finally {
    await rm(index, { force: true });
  }
}

/**
 * Brings a PR's base, head (and test-merge commit) into the repository's mirror and, when asked,
 * into plain directories. Fork PRs work the same way: the head comes from refs/pull/N/head of the
 * base repository, never from the fork.
 */
export async function preparePrRevisions(mirrors: RepoMirrors, req: PrRevisionsRequest): Promise<PrRevisions> {
  // A merge queue's commit gets refs of its own: the PR's refs keep the head that was gated on the PR.
  const refs = req.headRef ? queueRefs(req.number) : prRefs(req.number);
  const { mirrorDir, mergeSha } = await mirrors.withLock(req.repo, async () => {
    const dir = await mirrors.fetch(req.repo, [`+refs/heads/${req.baseRef}:${refs.base}`, `+${headSource(req)}:${refs.head}`], req.creds);
    const merged =
      req.withMerge && !req.headRef && (await mirrors.tryFetch(req.repo, [`+refs/pull/${req.number}/merge:${refs.merge}`], req.creds));
    return { mirrorDir: dir, mergeSha: merged ? ((await revParse(dir, refs.merge)) ?? undefined) : undefined };
  });
  const fetchedHead = await revParse(mirrorDir, refs.head);
  const headSha = (await revParse(mirrorDir, req.headSha)) ?? null;
  if (!headSha) {
    throw new Error(
      `head commit ${req.headSha.slice(0, 12)} is not on ${headSource(req)} (now ${fetchedHead?.slice(0, 12) ?? 'missing'}); the PR moved on`,
    );
  }
  const baseSha = (req.baseSha && (await revParse(mirrorDir, req.baseSha))) || (await revParse(mirrorDir, refs.base));
  if (!baseSha) throw new Error(`base branch '${req.baseRef}' could not be fetched`);
  const mergeBase = (await runGit(mirrorDir, ['merge-base', baseSha, headSha])).trim();
  if (!mergeBase) throw new Error(`base ${baseSha.slice(0, 12)} and head ${headSha.slice(0, 12)} share no history`);
  const tips = [mergeBase, headSha, ...(mergeSha ? [mergeSha] : [])];
  await mirrors.withLock(req.repo, () => mirrors.prefetchBlobs(mirrorDir, tips, { from: mergeBase, to: headSha }, req.creds));

  let scratch: string | null = null;
  let dirs: PrRevisions['dirs'];
  if (req.snapshots) {
    await mkdir(req.scratchRoot, { recursive: true });
    scratch = await mkdtemp(join(req.scratchRoot, `pr-${req.number}-`));
    dirs = { base: join(scratch, 'base'), head: join(scratch, 'head') };
    try {
      await snapshot(mirrorDir, mergeBase, dirs.base, req.creds);
      await snapshot(mirrorDir, headSha, dirs.head, req.creds);
      if (mergeSha) {
        dirs.merge = join(scratch, 'merge');
        await snapshot(mirrorDir, mergeSha, dirs.merge, req.creds);
      }
    } catch (err) {
      await rm(scratch, { recursive: true, force: true });
      throw err;
    }
  }
  const result: PrRevisions = {
    mirrorDir,
    baseSha,
    mergeBase,
    headSha,
    cleanup: async () => {
      if (scratch) await rm(scratch, { recursive: true, force: true });
    },
  };
  if (mergeSha) result.mergeSha = mergeSha;
  if (dirs) result.dirs = dirs;
  return result;
}
