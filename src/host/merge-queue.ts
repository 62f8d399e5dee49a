import type { Report } from '../core/report.js';
import type { StoredRun } from '../store/runs.js';
import type { Store } from '../store/store.js';
import type { PrRevisions } from '../workspace/pr-workspace.js';
import { sameChange } from '../workspace/same-change.js';
import type { MergeGroupRef } from './queued-job.js';
import type { PullRequestFacts } from './review-host.js';

/**
 * The pull request a merge queue's branch is for. GitHub names the branch
 * `gh-readonly-queue/<base branch>/pr-<number>-<sha>`; 0 when the name says no number.
 */
export function queuedPrNumber(headRef: string): number {
  const m = /(?:^|\/)pr-(\d{1,9})-[0-9a-f]{7,64}$/.exec(headRef.replace(/^refs\/heads\//, ''));
  return m ? Number(m[1]) : 0;
}

/**
 * The facts the job gates a merge queue's commit with: the queued PR's (author, labels, draft) when it
 * is known, with the queue's base and head in place of the PR's. Without a PR, what the queue says.
 */
export function mergeGroupFacts(
  pr: PullRequestFacts | null,
  group: MergeGroupRef & { headSha: string; number: number },
  defaultBranch: string,
  repoHtmlUrl: string,
): PullRequestFacts {
  const base: PullRequestFacts = pr ?? {
    number: group.number,
    state: 'open',
    draft: false,
    author: null,
    title: '',
    body: null,
    headSha: group.headSha,
    headRef: group.headRef,
    headRepoFullName: null,
    baseRef: group.baseRef,
    baseSha: group.baseSha,
    defaultBranch,
    labels: [],
    mergeable: null,
    isFork: false,
    maintainerCanModify: false,
    htmlUrl: repoHtmlUrl,
    repoHtmlUrl,
  };
  // Queued means open: a PR merged meanwhile is still gated here, its queue entry is what is asked about.
  return {
    ...base,
    state: 'open',
    headSha: group.headSha,
    headRef: group.headRef,
    baseRef: group.baseRef,
    baseSha: group.baseSha,
    mergeable: null,
  };
}

/** A stored verdict on a PR head that is the same change as the queued commit. */
export interface GatedTwin {
  run: StoredRun;
  report: Report;
}

/** How many of a PR's latest runs are compared with a queue entry. */
const RUNS_COMPARED = 10;

/**
 * The newest stored verdict of PR `number` whose change is the queued commit's: the same patch against
 * the same base content (same merge-base tree and same head tree, see workspace/same-change.ts).
 * Skipped runs and runs that did not complete are never reused.
 */
export async function gatedTwin(store: Store, repo: string, number: number, revisions: PrRevisions): Promise<GatedTwin | undefined> {
  if (number <= 0) return undefined;
  const runs = await store.listRuns(repo, number, RUNS_COMPARED);
  for (const run of runs) {
    const report = run.report;
    if (run.status !== 'completed' || !report || run.trigger === 'merge_group' || report.decision.outcome === 'SKIPPED') continue;
    const queued = { baseSha: revisions.mergeBase, headSha: revisions.headSha };
    if (await sameChange(revisions.mirrorDir, { baseSha: run.baseSha, headSha: run.headSha }, queued)) return { run, report };
  }
  return undefined;
}
