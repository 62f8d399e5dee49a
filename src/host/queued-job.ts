import type { ConfigError } from '../config/load.js';
import { codeSpan, escapeInline } from '../report/markdown-escape.js';
import { RERUN_ACTION, type CheckRunOutcome } from './check-outcome.js';

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

export function supersededOutcome(bySha: string | undefined): CheckRunOutcome {
  const by = bySha ? bySha.slice(0, 7) : 'a newer run';
  return {
    conclusion: 'cancelled',
    title: `Superseded by ${by}`,
    summary: `This run was stopped because the pull request moved on (superseded by ${bySha ? `\`${by}\`` : 'a newer run'}). The newer run reports on its own commit.`,
  };
}

export function skippedOutcome(reason: string): CheckRunOutcome {
  return {
    conclusion: 'neutral',
    title: `Skipped: ${reason}`,
    summary: `slopgate did not gate this commit: ${escapeInline(reason)}.`,
    actions: [RERUN_ACTION],
  };
}

/** The repo's config is broken: the check fails, pointing at the file, line and what was expected. */
export function configErrorOutcome(err: ConfigError, defaultBranch: string): CheckRunOutcome {
  const where = `${err.file}${err.line ? ` line ${err.line}` : ''}`;
  return {
    conclusion: 'failure',
    title: `Config error: ${where}`.slice(0, 250),
    summary: [
      `The slopgate config on the default branch (\`${defaultBranch}\`) is invalid, so this pull request was not gated.`,
      '',
      `- **File:** ${codeSpan(err.file)}`,
      `- **Line:** ${err.line ?? 'unknown'}${err.column ? `, column ${err.column}` : ''}`,
      `- **Problem:** ${escapeInline(err.detail)}`,
      ...(err.problems.length > 1
        ? [
            '',
            `All ${err.problems.length} problems:`,
            '',
            ...err.problems.map((p) => `- line ${p.line ?? '?'}${p.column ? `:${p.column}` : ''}: ${escapeInline(p.detail)}`),
          ]
        : []),
      '',
      'slopgate does not fall back to the defaults when the config is broken: a typo must not quietly switch a check off. ',
      `Fix the file on \`${defaultBranch}\` (every key is documented in docs/configuration-reference.md and in schemas/slopgate.schema.json), then re-run this check.`,
    ].join('\n'),
    actions: [RERUN_ACTION],
  };
}

/**
 * What a check run concludes when slopgate itself cannot finish (config `onInfraError`). GitHub counts
 * `neutral` as passing for a required check, so an outage would open the gate: the default is
 * `action_required`, which blocks the merge until a Re-run succeeds.
 */
export type InfraErrorMode = 'action_required' | 'neutral';

export const DEFAULT_INFRA_ERROR_MODE: InfraErrorMode = 'action_required';

function infraNote(mode: InfraErrorMode): string {
  return mode === 'action_required'
    ? 'Until a run finishes, this check blocks the merge (`onInfraError: action_required`, the default); an operator can set `onInfraError: neutral` on the default branch to let such runs through instead.'
    : 'This check concludes neutral (`onInfraError: neutral`), which GitHub counts as passing for a required check: the commit is not gated until a Re-run finishes.';
}

/** slopgate itself failed (clone, rate limit, crash): never a red mark on the code, and by default not a pass either. */
export function infrastructureOutcome(reason: string, mode: InfraErrorMode = DEFAULT_INFRA_ERROR_MODE): CheckRunOutcome {
  const first =
    reason
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? 'unknown error';
  return {
    conclusion: mode,
    title: `Not about your code: slopgate could not finish (${first.slice(0, 150)}); Re-run to try again`.slice(0, 250),
    summary: [
      'slopgate failed before it could gate this commit. This says nothing about the code in the pull request.',
      '',
      `**Reason:** ${escapeInline(first.slice(0, 1000))}`,
      '',
      infraNote(mode),
      '',
      'Press **Re-run** (or comment `/slopgate recheck`) to try again. If it keeps failing, the App operator will find the details in the logs.',
    ].join('\n'),
    actions: [RERUN_ACTION],
  };
}

/** Why the queue gave up on a job whose worker went away, in the words of the check run's title. */
const LOST_TITLES: Partial<Record<string, string>> = {
  'worker-lost': 'slopgate lost the worker running this job; Re-run to try again',
  shutdown: 'slopgate shut down before it finished this job; Re-run to try again',
  expired: 'slopgate gave up on this job: it ran past its time limit; Re-run to try again',
};

/**
 * A job the queue gave up on (retries used up, or the process stopped before it ran). When its worker
 * went away the check run says so; a job that kept failing reports its last error. `action_required`
 * by default (the job's config is not read here), with a Re-run button: none of this is about the code.
 */
export function abandonedOutcome(
  previous: { reason: string; message?: string } | undefined,
  mode: InfraErrorMode = DEFAULT_INFRA_ERROR_MODE,
): CheckRunOutcome {
  const title = previous ? LOST_TITLES[previous.reason] : undefined;
  if (!title) return infrastructureOutcome(previous?.message ?? `the job was abandoned (${previous?.reason ?? 'unknown reason'})`, mode);
  const detail = previous?.message?.split('\n')[0]?.trim();
  return {
    conclusion: mode,
    title: `Not about your code: ${title}`,
    summary: [
      'slopgate could not finish gating this commit: the process running the job stopped (crashed, was shut down or lost its connection) and no retry was left. This says nothing about the code in the pull request.',
      ...(detail ? ['', `**Last known state:** ${escapeInline(detail.slice(0, 1000))}`] : []),
      '',
      infraNote(mode),
      '',
      'Press **Re-run** (or comment `/slopgate recheck`) to gate it again.',
    ].join('\n'),
    actions: [RERUN_ACTION],
  };
}

/** The check run's output while a retried job runs again (the same check run, back to in progress). */
export function retryingOutput(previous: { reason: string }, attempt: number, maxAttempts: number): { title: string; summary: string } {
  const why =
    previous.reason === 'worker-lost'
      ? 'slopgate lost the worker that was running it'
      : previous.reason === 'shutdown'
        ? 'the worker running it shut down'
        : previous.reason === 'expired'
          ? 'the previous attempt ran past its time limit'
          : 'the previous attempt failed';
  return {
    title: `Gating again (attempt ${attempt} of ${maxAttempts}): ${why}`.slice(0, 250),
    summary: `The previous attempt at this commit did not finish because ${why}. Another worker picked the job up and is gating the commit again; this run updates when it is done.`,
  };
}
