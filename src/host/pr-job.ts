import { ConfigError } from '../config/load.js';
import type { SlopgateConfig } from '../core/config-schema.js';
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
  infrastructureOutcome,
  skippedOutcome,
  supersededOutcome,
  type GateJob,
  type InfraErrorMode,
} from './queued-job.js';
import { addedLines, publishReport } from './publish-report.js';
import { failedJobOutcome } from './failed-job-outcome.js';
import { spliceBodySection } from './pr-body.js';
import { loadRepoConfig } from './repo-config.js';
import type { PullRequestFacts, ReviewHost } from './review-host.js';
import { llmGateOptions, type LlmDeps } from '../gate/llm-stage-options.js';
import { preparePr, prGateOptions, repoName, type PrGateDeps } from './prepare-pr.js';
import { sincePushFor, withSincePush } from './since-push.js';

/** What the job policy needs besides the host: the workspace, the guards, the store and settings. */
export interface GatePrDeps extends PrGateDeps {
  /** Resolve stale review threads instead of minimising them. */
  resolveThreads: boolean;
  log: Logger;
  /** The head sha of a queued job (to say what superseded a run); unknown ids are looked up on the host. */
  headOfJob?(jobId: string): string | undefined;
  /** Called when the PR's head is not the job's head (the runtime may gate the real head). */
  onStaleHead?(job: GateJob, actualHead: string): Promise<void>;
  /** The pipeline (injectable for tests). */
  gate?: (opts: GateOptions) => Promise<Report>;
  /** Where the Q&A and navigator models come from (default: the process environment). */
  llm?: LlmDeps;
  /** `refiner.auto`: refines a REFINE decision of a new head once its report is out (see refine-pr.ts). */
  autoRefine?(
    host: ReviewHost,
    head: { pr: PullRequestFacts; config: SlopgateConfig; report: Report; revisions: PrRevisions; trigger: 'auto' },
  ): Promise<unknown>;
}

export type JobResult = 'reported' | 'skipped' | 'superseded' | 'config-error' | 'infrastructure-error';

/** The head that replaced a superseded job: from the runtime's memory, else the PR's current head. */
export async function supersedingHead(
  host: ReviewHost,
  deps: Pick<GatePrDeps, 'headOfJob'>,
  job: GateJob,
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

/**
 * Runs one gate job end to end on any code host: fresh PR facts, config from the default branch, the
 * tier-1 skips, workspace, sanctions and round, the real pipeline, then the report. Whatever happens,
 * the check run is completed — superseded (cancelled), skipped or config error, the verdict, or
 * `onInfraError` (`action_required` unless the default branch's config says `neutral`) when slopgate
 * itself failed — and the job's snapshots are removed. Aborted for shutdown or a lost lease, it throws
 * and leaves the check run to the queue's retry.
 */
export async function gatePr(
  host: ReviewHost,
  job: GateJob,
  deps: GatePrDeps,
  signal: AbortSignal = new AbortController().signal,
): Promise<JobResult> {
  const log = deps.log.child({ job: job.key, head: job.headSha.slice(0, 12), delivery: job.deliveryId });
  let completed = false;
  let revisions: PrRevisions | null = null;
  /** Aborted for shutdown or a lost lease: the queue retries the job elsewhere, which completes the run. */
  let handedOff = false;
  /** From the default branch's config once it is read; the safe default until then. */
  let infraMode: InfraErrorMode = DEFAULT_INFRA_ERROR_MODE;
  const finish = async (outcome: CheckRunOutcome) => {
    await host.completeCheckRun(job.checkRunId, outcome);
    completed = true;
  };
  const checkpoint = () => signal.throwIfAborted();
  try {
    checkpoint();
    const pr = await host.pullRequest(job.number);
    const closed = skipReasonFor(pr);
    if (closed) {
      await finish(skipOutcome(closed));
      return 'skipped';
    }
    if (pr.headSha !== job.headSha) {
      await finish(supersededOutcome(pr.headSha));
      await deps
        .onStaleHead?.(job, pr.headSha)
        .catch((err: unknown) => log.warn({ err: errorMessage(err) }, 'could not gate the newer head'));
      return 'superseded';
    }
    let config: SlopgateConfig;
    try {
      config = (await loadRepoConfig(host, pr.defaultBranch)).config;
      infraMode = config.onInfraError;
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      await finish(configErrorOutcome(err, pr.defaultBranch));
      return 'config-error';
    }
    const skip = skipReasonFor(pr, config);
    if (skip) {
      await finish(skipOutcome(skip));
      return 'skipped';
    }
    checkpoint();
    revisions = await preparePr(host, pr, job.headSha, deps);
    checkpoint();
    const gated = await (deps.gate ?? runGate)({
      ...(await prGateOptions(host, pr, config, revisions, deps, log)),
      // The PR's title and body reach the Q&A roles and the navigator only inside their data block.
      // slopgate's own section of the body (the last verdict) is left out: the models see the author's text only.
      ...llmGateOptions(config, { title: pr.title, body: spliceBodySection(pr.body, '').trim() }, false, deps.llm),
    });
    // What changed since the PR's previous gated head (new, fixed, still open); stored with the run.
    const report = withSincePush(
      gated,
      await sincePushFor({ store: deps.store, repo: repoName(host), pr: job.number, repoDir: revisions.mirrorDir, report: gated, log }),
    );
    checkpoint();
    const added = await addedLines(revisions.mirrorDir, revisions.mergeBase, revisions.headSha);
    await publishReport(host, {
      pullNumber: job.number,
      checkRunId: job.checkRunId,
      checkRunUrl: host.checkRunUrl(pr, job.checkRunId),
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
    await remember(deps, job, report, log);
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
    return 'reported';
  } catch (err) {
    if (completed) {
      log.warn({ err: errorMessage(err) }, 'after-report step failed');
      return 'reported';
    }
    if (signal.aborted && signal.reason instanceof SupersededError) {
      const by = await supersedingHead(host, deps, job, signal.reason.by);
      await finish(supersededOutcome(by)).catch(() => undefined);
      return 'superseded';
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
    return 'infrastructure-error';
  } finally {
    if (!completed && !handedOff) {
      const outcome = infrastructureOutcome('the job stopped before it could report', infraMode);
      await host.completeCheckRun(job.checkRunId, outcome).catch(() => undefined);
    }
    await revisions?.cleanup().catch(() => undefined);
  }
}

async function remember(deps: GatePrDeps, job: GateJob, report: Report, log: Logger): Promise<void> {
  if (!deps.store) return;
  const repo = `${job.owner}/${job.repo}`;
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
