export type GateTrigger = 'pull_request' | 'recheck' | 'rerun' | 'allow' | 'merge_group';

/**
 * A merge queue's commit: the queue built `headSha` on `baseSha` (the base branch, or the entry ahead
 * of it) on the temporary branch `headRef`. The job gates `baseSha` → `headSha`.
 */
export interface MergeGroupRef {
  headRef: string;
  baseRef: string;
  baseSha: string;
}

/**
 * What the shared PR job (pr-job.ts) gates, on any host: one head of one pull request, or a merge
 * queue's commit for it. Plain data.
 */
export interface PrJob {
  /** The pull request; for a merge queue's commit, the PR it queues (0 when the queue does not say). */
  number: number;
  headSha: string;
  trigger: GateTrigger;
  /** The `slopgate` check run this job completes; absent: the job starts it on `headSha`. */
  checkRunId?: number;
  /** For the log: the job's key and the delivery (webhook, workflow run) that asked for it. */
  key?: string;
  deliveryId?: string;
  /** Set when the head is a merge queue's commit rather than the PR's head. */
  mergeGroup?: MergeGroupRef;
}

/** One unit of work of the App: gate one head commit of one PR. Plain data, so a durable queue can carry it. */
export interface QueuedPrJob extends PrJob {
  /** Coalescing key: one live job per PR (`owner/repo#123`), per queue entry for a merge group. */
  key: string;
  installationId: number;
  owner: string;
  repo: string;
  /** The `slopgate` check run this job completes (the App starts it when the webhook arrives). */
  checkRunId: number;
  deliveryId: string;
  /** Who asked (comment command or button), for the log. */
  requestedBy?: string;
  /** When the webhook that asked for it arrived (ISO time): the webhook lag /metrics reports. */
  receivedAt?: string;
}

export function jobKey(owner: string, repo: string, number: number): string {
  return `${owner}/${repo}#${number}`;
}

/** Identifies the PR on the check run, so a re-run request (even on a fork PR) maps back to it. */
export function externalIdFor(number: number): string {
  return `slopgate:pr:${number}`;
}

/** Identifies a merge queue's check run: not a PR's, so a re-run request never re-gates the PR's head with it. */
export function mergeGroupExternalIdFor(number: number): string {
  return `slopgate:merge-group:${number}`;
}

export function prNumberFromExternalId(externalId: string | null | undefined): number | null {
  const m = /^slopgate:pr:(\d{1,9})$/.exec(externalId ?? '');
  return m ? Number(m[1]) : null;
}
