import type { ConfigError } from '../config/load.js';
import { errorMessage, GateInfraError } from '../core/errors.js';
import type { Report } from '../core/report.js';
import { toAnnotations } from '../report/annotations.js';
import { codeSpan, escapeInline } from '../report/markdown-escape.js';
import { renderCheckRun } from '../report/markdown.js';
import { decide } from '../routing/decide.js';
import { MAX_OUTPUT_CHARS, REFINE_ACTION, RERUN_ACTION, type CheckAction, type CheckRunOutcome } from './check-outcome.js';
import type { MergeGroupRef } from './queued-job.js';
import type { ReviewHost } from './review-host.js';

/*
 * Every conclusion slopgate's check run ends with, built here and nowhere else: the verdict of a report,
 * a skip, a superseded run, a broken config, an outage or a missing sandbox, a job the queue gave up on,
 * and how a merge queue's check run says any of them. check-outcome.ts holds the shape they share.
 */

/** The verdict of a report, as the check run shows it: the rendered text, the annotations and the buttons. */
export function reportOutcome(
  report: Report,
  refinerAvailable: boolean,
  checkRunUrl?: string,
  host: ReviewHost['kind'] = 'app',
): CheckRunOutcome {
  const out = renderCheckRun(report, { host, maxChars: MAX_OUTPUT_CHARS, ...(checkRunUrl ? { detailsUrl: checkRunUrl } : {}) });
  const actions: CheckAction[] = [];
  if (refinerAvailable && report.decision.blocking > 0) actions.push(REFINE_ACTION);
  actions.push(RERUN_ACTION);
  return {
    conclusion: report.decision.conclusion,
    title: out.title,
    summary: out.summary,
    ...(out.text ? { text: out.text } : {}),
    annotations: toAnnotations(report),
    actions,
  };
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

/** A skip is routing's SKIPPED decision (tier 1), told on the check run with a Re-run button. */
export function skipOutcome(reason: string): CheckRunOutcome {
  const decision = decide([], { skipReason: reason });
  return { ...skippedOutcome(decision.reason), conclusion: decision.conclusion };
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

/** What the operator and the maintainers can do when the machine cannot run a check it must run. */
const REMEDY: Record<GateInfraError['kind'], string[]> = {
  sandbox: [
    "The test gate runs the pull request's tests only inside the bubblewrap sandbox, and it could not start on the machine running slopgate. Until it can, no pull request gets a verdict from this check: a change that breaks a test must not pass because the tests could not run.",
    '',
    '- **Operator:** install bubblewrap and allow unprivileged user namespaces (in Docker: the seccomp and AppArmor settings in docs/security.md; on Ubuntu 24.04: `kernel.apparmor_restrict_unprivileged_userns=0`), then press **Re-run**. Or allow unsandboxed runs with `SLOPGATE_TESTS_ISOLATION=best-effort` together with `tests.isolation: best-effort` in the config.',
    '- **Maintainers:** to gate without running tests, set `tests.enabled: false` in the config on the default branch.',
  ],
  resources: [
    'The test gate could not finish for a reason outside the pull request: a package registry or the network failed while the dependencies were installed, or the suite needs more than the limits the machine gives it. Nothing here is a finding against the code, and nothing passed.',
    '',
    '- **Operator:** press **Re-run** once the registry answers again; a suite that needs more disk or time than the defaults gets it from `tests.diskMb` / `tests.timeoutSec` in the config on the default branch.',
  ],
  tree: [
    'slopgate checks that the tree it runs the tests on is the commit, file by file, before anything runs; here it was not, so nothing ran. This is a fault on the machine running slopgate.',
    '',
    'Press **Re-run**. If it keeps failing, the App operator will find the details in the logs.',
  ],
};

/**
 * The check run of a job that failed before it could report: a {@link GateInfraError} (no sandbox, a
 * tree that is not the commit) concludes `action_required` whatever `onInfraError` says — the check was
 * not skipped on purpose, so it must not count as passing — with the reason and what to do; any other
 * error is an outage ({@link infrastructureOutcome}).
 */
export function failedJobOutcome(err: unknown, mode: InfraErrorMode): CheckRunOutcome {
  if (!(err instanceof GateInfraError)) return infrastructureOutcome(errorMessage(err), mode);
  return {
    conclusion: 'action_required',
    title: `Not about your code: ${err.message}`.slice(0, 250),
    summary: [
      // The message can name files of the pull request (a tree that is not the commit): escaped like any PR text.
      `slopgate did not gate this commit: **${escapeInline(err.message.slice(0, 1000))}**. This says nothing about the code in the pull request.`,
      '',
      ...REMEDY[err.kind],
    ].join('\n'),
    actions: [RERUN_ACTION],
  };
}

const PASSING = new Set<CheckRunOutcome['conclusion']>(['success', 'neutral', 'skipped']);

/**
 * A verdict as the merge queue's check run says it. Anything that does not pass is `failure`, so the
 * entry leaves the queue with the reason in the title; no buttons (they would re-gate the PR's head, not
 * the queue's commit: the queue is re-entered instead). `reused`: the verdict is a PR head's, carried over.
 */
export function queueOutcome(
  outcome: CheckRunOutcome,
  group: MergeGroupRef,
  reused?: { number: number; headSha: string },
): CheckRunOutcome {
  const conclusion = PASSING.has(outcome.conclusion) ? outcome.conclusion : 'failure';
  const lead = reused
    ? `This merge queue entry is the same change as pull request ${reused.number} at ${codeSpan(reused.headSha.slice(0, 7))} ` +
      '(the same patch on the same base content), so that verdict stands for it.'
    : `slopgate gated the merge queue's commit against its base ${codeSpan(group.baseSha.slice(0, 7))} (${codeSpan(group.baseRef)}).`;
  return {
    ...outcome,
    conclusion,
    title: `Merge queue: ${outcome.title}`.slice(0, 250),
    summary: `${lead}\n\n${outcome.summary}`,
    actions: [],
  };
}

/**
 * What a merge queue's check run says of an outcome that is no verdict (a skip, a superseded run, a broken
 * config): as a verdict, so anything that does not pass takes the entry out of the queue; only an outage
 * (`action_required`) is left as it is, never turned into a verdict.
 */
export function queueStatusOutcome(outcome: CheckRunOutcome, group: MergeGroupRef): CheckRunOutcome {
  return outcome.conclusion === 'action_required' ? outcome : queueOutcome(outcome, group);
}
