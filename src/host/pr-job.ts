import { ConfigError } from '../config/load.js';
import type { SlopgateConfig } from '../core/config-schema.js';
import type { Guard } from '../core/guard.js';
import type { TestRunOptions } from '../core/ports.js';
import { errorMessage } from '../core/errors.js';
import { runGate, type GateOptions } from '../gate/run-gate.js';
import type { Report } from '../core/report.js';
import type { Logger } from '../core/trace.js';
import { SupersededError } from '../queue/types.js';
import { inertReport } from '../report/markdown-escape.js';
import { decide, ROUND_ADVANCING } from '../routing/decide.js';
import type { PrRevisions } from '../workspace/pr-workspace.js';
import type { CheckRunOutcome } from './check-outcome.js';
import {
  configErrorOutcome,
  DEFAULT_INFRA_ERROR_MODE,
  externalIdFor,
  infrastructureOutcome,
  mergeGroupExternalIdFor,
  skippedOutcome,
  supersededOutcome,
  type QueuedPrJob,
  type InfraErrorMode,
  type MergeGroupRef,
  type PrJob,
} from './queued-job.js';
import { gatedTwin, mergeGroupFacts, queueOutcome } from './merge-queue.js';
import { addedLines, publishReport, reportOutcome } from './publish-report.js';
import { failedJobOutcome } from './failed-job-outcome.js';
import { spliceBodySection } from './pr-body.js';
import { loadRepoConfig } from './repo-config.js';
import { forHost, type PullRequestFacts, type ReviewHost } from './review-host.js';
import { llmGateOptions, type LlmDeps } from '../gate/llm-stage-options.js';
import { preparePr, prGateOptions, repoName, type PrGateDeps } from './prepare-pr.js';
import { sincePushFor, withSincePush } from './since-push.js';

/** The config a job runs under, and any guard the host adds for this run (the Action's workflow-trust guard). */
export interface JobSettings {
  config: SlopgateConfig;
  /** Replaces `deps.guards` for this run when given. */
  guards?: Guard[];
  /** G8's run options for this run (the Action's `tests: false`), over `deps.testRun`. */
  testRun?: TestRunOptions;
  /** Where the config came from, as the report says it ("`.github/slopgate.yml` on `main`"). */
  source?: string;
}

/**
 * Where a job's config comes from. The default reads it through the host from the default branch (the
 * App); the Action reads it from the base commit in its checkout. Never from the PR's head.
 */
export interface ConfigSource {
  /** The branch named when the config is broken ("the config on the default branch (`main`)"). */
  where(pr: PullRequestFacts): string;
  /** Throws {@link ConfigError} for a broken config: there is no quiet fallback to the defaults. */
  load(pr: PullRequestFacts): Promise<JobSettings>;
}

/** What the job policy needs besides the host: the workspace, the guards, the store and settings. */
export interface PrJobDeps<J extends PrJob = PrJob> extends PrGateDeps {
  /** Resolve the threads of fixed findings where the host has the `threads` capability, instead of minimising the comments. */
  resolveThreads: boolean;
  log: Logger;
  /** Where the config comes from (default: the host, from the default branch). */
  config?: ConfigSource;
  /**
   * A job whose head is no longer the PR's: `supersede` (the App, default) cancels it and leaves the
   * newer head to its own job; `gate` gates the job's head anyway (the Action: each push runs its own workflow).
   */
  staleHead?: 'supersede' | 'gate';
  /** The head sha of a queued job (to say what superseded a run); unknown ids are looked up on the host. */
  headOfJob?(jobId: string): string | undefined;
  /** Called when the PR's head is not the job's head (the runtime may gate the real head). */
  onStaleHead?(job: J, actualHead: string): Promise<void>;
  /** The pipeline (injectable for tests). */
  gate?: (opts: GateOptions) => Promise<Report>;
  /** Where the Q&A and navigator models come from (default: the process environment); false: no model stages (the Action). */
  llm?: LlmDeps | false;
  /** `refiner.auto`: refines a REFINE decision of a new head once its report is out (see refine-pr.ts). */
  autoRefine?(
    host: ReviewHost,
    head: { pr: PullRequestFacts; config: SlopgateConfig; report: Report; revisions: PrRevisions; trigger: 'auto' },
  ): Promise<unknown>;
}

export type JobResult = 'reported' | 'skipped' | 'superseded' | 'config-error' | 'infrastructure-error';

/** What one job did, for a caller that has more to say than the check run (the Action's outputs and exit code). */
export interface JobRun {
  result: JobResult;
  /** The check run the job completed (or started); absent when it could not even be started. */
  checkRunId?: number;
  /** The gate's report (raw), when the job reported one. */
  report?: Report;
  /** The config the job ran under, once read. */
  config?: SlopgateConfig;
  /** Why the job did not report: the config error, or what failed. */
  error?: unknown;
  /** For a merge queue's commit: the verdict was a PR head's, reused. */
  reusedFrom?: { number: number; headSha: string };
}

/** The head that replaced a superseded job: from the runtime's memory, else the PR's current head. */
export async function supersedingHead(
  host: ReviewHost,
  deps: { headOfJob?(jobId: string): string | undefined },
  job: Pick<PrJob, 'number'>,
  newerJobId: string,
): Promise<string | undefined> {
  const known = deps.headOfJob?.(newerJobId);
  if (known) return known;
  try {
    return (await host.pullRequest(job.number)).headSha;
  } catch {
    return undefined;
  }
}

/**
 * Why this PR is not gated at all, or undefined: the tier-1 skips. `config` is absent before the
 * default branch's config is read (only a closed PR is skipped then).
 */
export function skipReasonFor(pr: PullRequestFacts, config?: SlopgateConfig): string | undefined {
  if (pr.state !== 'open') return 'the pull request is closed';
  if (!config) return undefined;
  if (pr.draft && config.drafts === 'skip') return 'draft';
  if (pr.author && config.ignore.authors.includes(pr.author)) return `author ${pr.author} is in ignore.authors`;
  return undefined;
}

/** A skip is routing's SKIPPED decision (tier 1), told on the check run with a Re-run button. */
export function skipOutcome(reason: string): CheckRunOutcome {
  const decision = decide([], { skipReason: reason });
  return { ...skippedOutcome(decision.reason), conclusion: decision.conclusion };
}

/** {@link runPrJob} for one of the App's queued jobs, reduced to its result (the queue needs nothing else). */
export async function prJobResult(
  host: ReviewHost,
  job: QueuedPrJob,
  deps: PrJobDeps<QueuedPrJob>,
  signal?: AbortSignal,
): Promise<JobResult> {
  return (await runPrJob(host, job, deps, signal)).result;
}

/** The host's default: the config file on the default branch, read through the host's API. */
function hostConfig(host: ReviewHost): ConfigSource {
  return {
    where: (pr) => pr.defaultBranch,
    load: async (pr) => {
      const { config, file } = await loadRepoConfig(host, pr.defaultBranch);
      return { config, source: configSourceText(file, `${pr.defaultBranch} (the default branch)`) };
    },
  };
}

/** What a report says about its config: the committed file and where it was read, or the defaults. */
export function configSourceText(file: string | null, where: string): string {
  return file ? `${file} on ${where}` : `the embedded defaults: no slopgate config file on ${where}`;
}

/** The PR facts a job gates: the PR now, or for a merge queue's commit, the queued PR with the queue's sides. */
async function factsOf(host: ReviewHost, job: PrJob, group: MergeGroupRef | undefined): Promise<PullRequestFacts> {
  if (!group) return host.pullRequest(job.number);
  const pr = job.number > 0 ? await host.pullRequest(job.number) : null;
  // Without a PR, the config still comes from the default branch: the queue's base branch is the best guess the host gives.
  return mergeGroupFacts(
    pr,
    { ...group, headSha: job.headSha, number: job.number },
    pr?.defaultBranch ?? group.baseRef,
    pr?.repoHtmlUrl ?? '',
  );
}

/**
 * The one PR job every host runs (the App and its workers through the queue, the Action in its step):
 * start the check run unless the caller already did, fresh PR facts, the tier-1 skips, the config
 * (from the default branch, never the PR), the workspace, sanctions, round and stored dismissals, the
 * real pipeline, then the report published through the host's capabilities. Whatever happens, the
 * check run is completed — superseded (cancelled), skipped or config error, the verdict, or
 * `onInfraError` (`action_required` unless the config says `neutral`) when slopgate itself failed —
 * and the job's snapshots are removed. Aborted for shutdown or a lost lease, it throws and leaves the
 * check run to the queue's retry.
 *
 * A merge queue's commit (`job.mergeGroup`) reports on the queue's head: a verdict already given to
 * the same change on the PR is reused, else the commit is gated against the queue's base; anything that
 * does not pass fails (the entry leaves the queue), and an outage is always `action_required`.
 */
export async function runPrJob<J extends PrJob>(
  host: ReviewHost,
  job: J,
  deps: PrJobDeps<J>,
  signal: AbortSignal = new AbortController().signal,
): Promise<JobRun> {
  const group = job.mergeGroup;
  const log = deps.log.child({
    job: job.key ?? `${repoName(host)}#${job.number}`,
    head: job.headSha.slice(0, 12),
    ...(job.deliveryId ? { delivery: job.deliveryId } : {}),
    ...(group ? { mergeGroup: group.headRef } : {}),
  });
  let checkRunId = job.checkRunId;
  let completed = false;
  let revisions: PrRevisions | null = null;
  let config: SlopgateConfig | undefined;
  /** Aborted for shutdown or a lost lease: the queue retries the job elsewhere, which completes the run. */
  let handedOff = false;
  /** From the config once it is read; the safe default until then. A merge queue never lets an outage through. */
  let infraMode: InfraErrorMode = DEFAULT_INFRA_ERROR_MODE;
  /**
   * In a merge queue a verdict that does not pass (ASK_AUTHOR included) is a `failure` that names its
   * reason; only an outage stays `action_required` (`verdict` false), never turned into a verdict.
   */
  const finish = async (outcome: CheckRunOutcome, verdict = false) => {
    if (checkRunId === undefined) return;
    const queued = group && (verdict || outcome.conclusion !== 'action_required');
    await host.completeCheckRun(checkRunId, forHost(host, queued ? queueOutcome(outcome, group) : outcome));
    completed = true;
  };
  const done = (result: JobResult, extra: Partial<JobRun> = {}): JobRun => ({
    result,
    ...(checkRunId !== undefined ? { checkRunId } : {}),
    ...(config ? { config } : {}),
    ...extra,
  });
  const checkpoint = () => signal.throwIfAborted();
  try {
    checkpoint();
    if (checkRunId === undefined) {
      const externalId = group ? mergeGroupExternalIdFor(job.number) : externalIdFor(job.number);
      checkRunId = await host.startCheckRun(job.headSha, externalId);
    }
    const pr = await factsOf(host, job, group);
    const closed = skipReasonFor(pr);
    if (closed) {
      await finish(skipOutcome(closed));
      return done('skipped');
    }
    if (!group && pr.headSha !== job.headSha && deps.staleHead !== 'gate') {
      await finish(supersededOutcome(pr.headSha));
      await deps
        .onStaleHead?.(job, pr.headSha)
        .catch((err: unknown) => log.warn({ err: errorMessage(err) }, 'could not gate the newer head'));
      return done('superseded');
    }
    const source = deps.config ?? hostConfig(host);
    let settings: JobSettings;
    try {
      settings = await source.load(pr);
      config = settings.config;
      infraMode = group ? 'action_required' : config.onInfraError;
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      await finish(configErrorOutcome(err, source.where(pr)));
      return done('config-error', { error: err });
    }
    const skip = skipReasonFor(pr, config);
    if (skip) {
      await finish(skipOutcome(skip));
      return done('skipped');
    }
    checkpoint();
    revisions = await preparePr(host, pr, job.headSha, deps, group);
    checkpoint();
    if (group) {
      const twin = deps.store ? await gatedTwin(deps.store, repoName(host), job.number, revisions).catch(() => undefined) : undefined;
      if (twin) {
        const from = { number: job.number, headSha: twin.run.headSha };
        const url = host.checkRunUrl(pr, checkRunId);
        await host.completeCheckRun(checkRunId, queueOutcome(reportOutcome(inertReport(twin.report), false, url, host.kind), group, from));
        completed = true;
        log.info({ outcome: twin.report.decision.outcome, reusedFrom: twin.run.headSha }, 'merge queue entry: verdict reused');
        return done('reported', { report: twin.report, reusedFrom: from });
      }
    }
    const jobDeps: PrJobDeps<J> = {
      ...deps,
      ...(settings.guards ? { guards: settings.guards } : {}),
      ...(settings.testRun ? { testRun: { ...deps.testRun, ...settings.testRun } } : {}),
    };
    const gated = await (deps.gate ?? runGate)({
      ...(await prGateOptions(host, pr, config, revisions, jobDeps, log)),
      ...(settings.source ? { configSource: settings.source } : {}),
      // The PR's title and body reach the Q&A roles and the navigator only inside their data block.
      // slopgate's own section of the body (the last verdict) is left out: the models see the author's text only.
      ...(deps.llm === false
        ? {}
        : llmGateOptions(config, { title: pr.title, body: spliceBodySection(pr.body, '').trim() }, false, deps.llm)),
    });
    // What changed since the PR's previous gated head (new, fixed, still open); stored with the run. A
    // merge queue's commit is no push of the PR: it is not compared.
    const report = group
      ? gated
      : withSincePush(
          gated,
          await sincePushFor({ store: deps.store, repo: repoName(host), pr: job.number, repoDir: revisions.mirrorDir, report: gated, log }),
        );
    checkpoint();
    if (group) {
      // A flip on the queue's commit (what the default branch becomes) makes the test known flaky on its own.
      await deps.store
        ?.recordFlips({ repo: repoName(host), onBase: true, headSha: job.headSha, testIds: report.sections.tests?.flaky ?? [] })
        .catch((err: unknown) => log.warn({ err: errorMessage(err) }, 'flaky tests not stored'));
      // The queue's commit is no PR head: the verdict goes on its check run only (no comments, body or labels).
      await finish(reportOutcome(inertReport(report), false, host.checkRunUrl(pr, checkRunId), host.kind), true);
      log.info({ outcome: report.decision.outcome, findings: report.findings.length }, 'merge queue entry gated');
      return done('reported', { report });
    }
    const added = await addedLines(revisions.mirrorDir, revisions.mergeBase, revisions.headSha);
    await publishReport(host, {
      pullNumber: job.number,
      checkRunId,
      checkRunUrl: host.checkRunUrl(pr, checkRunId),
      // Everything PR-controlled in what is echoed is made inert: no mention, link, image, HTML or marker.
      report: inertReport(report),
      config,
      added,
      labels: pr.labels,
      refinerAvailable: deps.refinerAvailable,
      resolveThreads: deps.resolveThreads,
      log,
    });
    completed = true;
    await remember(deps, host, job, report, log);
    // refiner.auto: a new head routed to REFINE is refined once, after its report is out (round + 1 follows).
    if (
      deps.autoRefine &&
      deps.refinerAvailable &&
      config.refiner.auto &&
      job.trigger === 'pull_request' &&
      report.decision.outcome === 'REFINE'
    ) {
      await deps.autoRefine(host, { pr, config, report, revisions, trigger: 'auto' });
    }
    log.info({ outcome: report.decision.outcome, findings: report.findings.length }, 'gate job reported');
    return done('reported', { report });
  } catch (err) {
    if (completed) {
      log.warn({ err: errorMessage(err) }, 'after-report step failed');
      return done('reported');
    }
    if (signal.aborted && signal.reason instanceof SupersededError) {
      const by = await supersedingHead(host, deps, job, signal.reason.by);
      await finish(supersededOutcome(by)).catch(() => undefined);
      return done('superseded');
    }
    if (signal.aborted) {
      handedOff = true;
      log.warn({ reason: errorMessage(signal.reason) }, 'gate job stopped; the queue takes it from here');
      throw err;
    }
    log.error({ err: errorMessage(err) }, 'gate job failed');
    await finish(failedJobOutcome(err, infraMode)).catch((e: unknown) =>
      log.error({ err: errorMessage(e) }, 'could not complete the check run'),
    );
    return done('infrastructure-error', { error: err });
  } finally {
    if (!completed && !handedOff && checkRunId !== undefined) {
      const outcome = infrastructureOutcome('the job stopped before it could report', infraMode);
      await host.completeCheckRun(checkRunId, outcome).catch(() => undefined);
    }
    await revisions?.cleanup().catch(() => undefined);
  }
}

async function remember<J extends PrJob>(deps: PrJobDeps<J>, host: ReviewHost, job: PrJob, report: Report, log: Logger): Promise<void> {
  if (!deps.store) return;
  const repo = repoName(host);
  try {
    await deps.store.saveRun(report, { repo, pr: job.number, trigger: job.trigger });
    // A new push with fixable findings is the next round; re-runs of the same head are not.
    if (job.trigger === 'pull_request' && ROUND_ADVANCING.has(report.decision.outcome)) {
      await deps.store.advanceRound(repo, job.number, report.decision.round);
    }
  } catch (err) {
    log.warn({ err: errorMessage(err) }, 'run not stored');
  }
}
