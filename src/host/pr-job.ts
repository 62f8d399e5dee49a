import { ConfigError } from '../config/load.js';
import type { SlopgateConfig } from '../core/config-schema.js';
import { errorMessage } from '../core/errors.js';
import { SupersededError } from '../queue/types.js';
import type { PrRevisions } from '../workspace/pr-workspace.js';
import {
  configErrorOutcome,
  DEFAULT_INFRA_ERROR_MODE,
  failedJobOutcome,
  skipOutcome,
  supersededOutcome,
  type InfraErrorMode,
} from './check-run-outcomes.js';
import { JobCheckRun } from './job-check-run.js';
import { mergeGroupFacts } from './merge-queue.js';
import { gateMergeGroup } from './merge-queue-job.js';
import type { ConfigSource, JobResult, JobRun, JobSettings, JobToGate, PrJobDeps } from './pr-job-deps.js';
import { preparePr, repoName } from './prepare-pr.js';
import { gatePullRequest } from './pull-request-job.js';
import type { MergeGroupRef, PrJob, QueuedPrJob } from './queued-job.js';
import { loadRepoConfig } from './repo-config.js';
import type { PullRequestFacts, ReviewHost } from './review-host.js';

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
 * The one PR job every host runs (the App and its workers through the queue, the Action in its step).
 * What every job does comes here: start the check run unless the caller already did, fresh PR facts,
 * the tier-1 skips, the config (from the default branch, never the PR), the workspace. Then one of two
 * paths gates and reports: a PR head through pull-request-job.ts, a merge queue's commit
 * (`job.mergeGroup`) through merge-queue-job.ts. Whatever happens, the check run is completed —
 * superseded (cancelled), skipped or config error, the verdict, or `onInfraError` (`action_required`
 * unless the config says `neutral`) when slopgate itself failed — and the job's snapshots are removed.
 * Aborted for shutdown or a lost lease, it throws and leaves the check run to the queue's retry.
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
  const check = new JobCheckRun(host, job.checkRunId, group);
  let revisions: PrRevisions | null = null;
  let config: SlopgateConfig | undefined;
  const done = (result: JobResult, extra: Partial<JobRun> = {}): JobRun => ({
    result,
    ...(check.id !== undefined ? { checkRunId: check.id } : {}),
    ...(config ? { config } : {}),
    ...extra,
  });
  const checkpoint = () => signal.throwIfAborted();
  try {
    checkpoint();
    const checkRunId = await check.start(job);
    const pr = await factsOf(host, job, group);
    const closed = skipReasonFor(pr);
    if (closed) {
      await check.finish(skipOutcome(closed));
      return done('skipped');
    }
    if (!group && pr.headSha !== job.headSha && deps.staleHead !== 'gate') {
      await check.finish(supersededOutcome(pr.headSha));
      await deps
        .onStaleHead?.(job, pr.headSha)
        .catch((err: unknown) => log.warn({ err: errorMessage(err) }, 'could not gate the newer head'));
      return done('superseded');
    }
    const source = deps.config ?? hostConfig(host);
    let settings: JobSettings;
    try {
      settings = await source.load(pr);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      await check.finish(configErrorOutcome(err, source.where(pr)));
      return done('config-error', { error: err });
    }
    config = settings.config;
    const skip = skipReasonFor(pr, config);
    if (skip) {
      await check.finish(skipOutcome(skip));
      return done('skipped');
    }
    checkpoint();
    revisions = await preparePr(host, pr, job.headSha, deps, group);
    checkpoint();
    const head: JobToGate<J> = { host, job, deps, pr, settings, revisions, check, checkRunId, log, checkpoint };
    return done('reported', group ? await gateMergeGroup(head, group) : await gatePullRequest(head));
  } catch (err) {
    if (check.completed) {
      log.warn({ err: errorMessage(err) }, 'after-report step failed');
      return done('reported');
    }
    if (signal.aborted && signal.reason instanceof SupersededError) {
      const by = await supersedingHead(host, deps, job, signal.reason.by);
      await check.finish(supersededOutcome(by)).catch(() => undefined);
      return done('superseded');
    }
    if (signal.aborted) {
      check.handedOff = true;
      log.warn({ reason: errorMessage(signal.reason) }, 'gate job stopped; the queue takes it from here');
      throw err;
    }
    log.error({ err: errorMessage(err) }, 'gate job failed');
    await check
      .finish(failedJobOutcome(err, infraModeOf(group, config)))
      .catch((e: unknown) => log.error({ err: errorMessage(e) }, 'could not complete the check run'));
    return done('infrastructure-error', { error: err });
  } finally {
    await check.lastResort(infraModeOf(group, config));
    await revisions?.cleanup().catch(() => undefined);
  }
}

/**
 * What an outage concludes: the safe default until the config is read, then its `onInfraError`. A merge
 * queue never lets an outage through.
 */
function infraModeOf(group: MergeGroupRef | undefined, config: SlopgateConfig | undefined): InfraErrorMode {
  if (!config) return DEFAULT_INFRA_ERROR_MODE;
  return group ? 'action_required' : config.onInfraError;
}
