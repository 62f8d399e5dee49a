import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../config/load.js';
import { errorMessage } from '../core/errors.js';
import type { Guard } from '../core/guard.js';
import { runGate, type GateOptions } from '../gate/run-gate.js';
import type { Report } from '../core/report.js';
import type { Logger } from '../core/trace.js';
import { ROUND_ADVANCING } from '../routing/decide.js';
import { StoreBaselineCache } from '../store/baseline-store.js';
import type { Store } from '../store/store.js';
import { preparePrRevisions, type PrRevisions } from '../workspace/pr-workspace.js';
import type { RepoMirrors } from '../workspace/repo-mirror.js';
import { finishCheckRun, type CheckRunOutcome, type GitHubClient } from './check-run.js';
import { SupersededError } from '../queue/types.js';
import { configErrorOutcome, DEFAULT_INFRA_ERROR_MODE, infrastructureOutcome, skippedOutcome, supersededOutcome, type GateJob, type InfraErrorMode } from './gate-job.js';
import { addedLines, publishReport } from './publish-report.js';
import { loadRepoConfig } from './repo-config.js';
import { neutralizeReport } from '../report/comment-escape.js';
import { commentSanctions, labelSanctions } from './sanctions.js';

export interface JobDeps {
  /** An Octokit authenticated as the installation (re-minted tokens, never persisted). */
  octokitFor(installationId: number): Promise<GitHubClient>;
  mirrors: RepoMirrors;
  /** Where per-job snapshots go (default: the OS temp dir). */
  scratchRoot?: string;
  /** Build caches of the test sandbox, per repository. */
  cacheDir?: string;
  guards: Guard[];
  store?: Store;
  appId: number;
  /** Key of the `/slopgate allow` marker MAC (see sanctions.ts). */
  sanctionKey: Buffer;
  /** The LLM refiner is configured (shows the Refine button). */
  refinerAvailable: boolean;
  /** Resolve stale review threads (needs contents: write) instead of minimising them. */
  resolveThreads: boolean;
  log: Logger;
  /** The head sha of a queued job (to say what superseded a run); unknown ids are looked up on GitHub. */
  headOfJob?(jobId: string): string | undefined;
  /** Called when the PR's head is not the job's head (the runtime may gate the real head). */
  onStaleHead?(job: GateJob, actualHead: string): Promise<void>;
  /** The pipeline (injectable for tests). */
  gate?: (opts: GateOptions) => Promise<Report>;
}

export type JobResult = 'reported' | 'skipped' | 'superseded' | 'config-error' | 'infrastructure-error';

/** The head that replaced a superseded job: from the runtime's memory, else the PR's current head. */
export async function supersedingHead(deps: JobDeps, gh: GitHubClient, job: GateJob, newerJobId: string): Promise<string | undefined> {
  const known = deps.headOfJob?.(newerJobId);
  if (known) return known;
  try {
    return (await gh.rest.pulls.get({ owner: job.owner, repo: job.repo, pull_number: job.number })).data.head.sha;
  } catch {
    return undefined;
  }
}

/**
 * Runs one gate job end to end: fresh PR state, config from the default branch, workspace, the real
 * pipeline, then the report on GitHub. Whatever happens, the check run is completed — superseded
 * (cancelled), skipped or config error, the verdict, or `onInfraError` (`action_required` unless the
 * default branch's config says `neutral`) when slopgate itself failed — and the job's snapshots are removed.
 */
export async function runGateJob(job: GateJob, deps: JobDeps, signal: AbortSignal = new AbortController().signal): Promise<JobResult> {
  const target = { owner: job.owner, repo: job.repo };
  const log = deps.log.child({ job: job.key, head: job.headSha.slice(0, 12), delivery: job.deliveryId });
  let gh: GitHubClient | null = null;
  let completed = false;
  let revisions: PrRevisions | null = null;
  /** Aborted for shutdown or a lost lease: the queue retries the job elsewhere, which completes the run. */
  let handedOff = false;
  /** From the default branch's config once it is read; the safe default until then. */
  let infraMode: InfraErrorMode = DEFAULT_INFRA_ERROR_MODE;
  const finish = async (outcome: CheckRunOutcome) => {
    await finishCheckRun(gh!, target, job.checkRunId, outcome);
    completed = true;
  };
  const checkpoint = () => signal.throwIfAborted();
  try {
    gh = await deps.octokitFor(job.installationId);
    checkpoint();
    const pr = (await gh.rest.pulls.get({ ...target, pull_number: job.number })).data;
    if (pr.state !== 'open') {
      await finish(skippedOutcome('the pull request is closed'));
      return 'skipped';
    }
    if (pr.head.sha !== job.headSha) {
      await finish(supersededOutcome(pr.head.sha));
      await deps.onStaleHead?.(job, pr.head.sha).catch((err) => log.warn({ err: errorMessage(err) }, 'could not gate the newer head'));
      return 'superseded';
    }
    const defaultBranch = pr.base.repo.default_branch;
    let config;
    try {
      config = (await loadRepoConfig(gh, target, defaultBranch)).config;
      infraMode = config.onInfraError;
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      await finish(configErrorOutcome(err, defaultBranch));
      return 'config-error';
    }
    if (pr.draft && config.drafts === 'skip') {
      await finish(skippedOutcome('draft'));
      return 'skipped';
    }
    if (pr.user && config.ignore.authors.includes(pr.user.login)) {
      await finish(skippedOutcome(`author ${pr.user.login} is in ignore.authors`));
      return 'skipped';
    }
    checkpoint();
    const auth = (await gh.auth({ type: 'installation' })) as { token?: string };
    revisions = await preparePrRevisions(deps.mirrors, {
      repo: target,
      number: job.number,
      baseRef: pr.base.ref,
      baseSha: pr.base.sha,
      headSha: job.headSha,
      withMerge: pr.mergeable === true,
      // G8 checks revisions out of the mirror itself (its own sandbox); every blob it needs is local now.
      snapshots: false,
      ...(auth.token ? { creds: { token: auth.token } } : {}),
      scratchRoot: deps.scratchRoot ?? join(tmpdir(), 'slopgate-jobs'),
    });
    checkpoint();
    const labels = (pr.labels ?? []).map((l) => l.name);
    const sanctions = [...labelSanctions(labels), ...(await commentSanctions(gh, target, job.number, deps.appId, deps.sanctionKey))];
    const fullName = `${job.owner}/${job.repo}`;
    const round = deps.store ? (await deps.store.getRound(fullName, job.number)).round : 1;
    const report = await (deps.gate ?? runGate)({
      repoDir: revisions.mirrorDir,
      base: revisions.baseSha,
      head: revisions.headSha,
      repoName: fullName,
      config,
      guards: deps.guards,
      sanctions,
      round,
      decide: { refinerEnabled: deps.refinerAvailable },
      services: {
        tests: { repo: fullName, ...(revisions.mergeSha ? { mergeRef: revisions.mergeSha } : {}), ...(deps.cacheDir ? { cacheDir: deps.cacheDir } : {}) },
        run: { repo: fullName, pr: job.number },
        ...(deps.store ? { history: deps.store, baselineCache: new StoreBaselineCache(deps.store.db) } : {}),
      },
      log,
    });
    checkpoint();
    const added = await addedLines(revisions.mirrorDir, revisions.mergeBase, revisions.headSha);
    await publishReport(gh, {
      target,
      pullNumber: job.number,
      checkRunId: job.checkRunId,
      checkRunUrl: checkRunUrl(pr.base.repo.html_url, job.checkRunId),
      // Everything PR-controlled in what is echoed has its HTML comment delimiters neutralised.
      report: neutralizeReport(report),
      config,
      added,
      labels,
      refinerAvailable: deps.refinerAvailable,
      resolveThreads: deps.resolveThreads,
      log,
    });
    completed = true;
    await remember(deps, job, report, log);
    log.info({ outcome: report.decision.outcome, findings: report.findings.length }, 'gate job reported');
    return 'reported';
  } catch (err) {
    // Not even an installation token: nothing can be reported now. The queue retries the job or
    // closes it out as abandoned, which completes the check run once GitHub answers again.
    if (!gh) throw err;
    if (completed) {
      log.warn({ err: errorMessage(err) }, 'after-report step failed');
      return 'reported';
    }
    if (signal.aborted && signal.reason instanceof SupersededError && gh) {
      const by = await supersedingHead(deps, gh, job, signal.reason.by);
      await finish(supersededOutcome(by)).catch(() => undefined);
      return 'superseded';
    }
    if (signal.aborted) {
      handedOff = true;
      log.warn({ reason: errorMessage(signal.reason) }, 'gate job stopped; the queue takes it from here');
      throw err;
    }
    log.error({ err: errorMessage(err) }, 'gate job failed');
    await finish(infrastructureOutcome(errorMessage(err), infraMode)).catch((e) => log.error({ err: errorMessage(e) }, 'could not complete the check run'));
    return 'infrastructure-error';
  } finally {
    if (!completed && !handedOff && gh) {
      await finishCheckRun(gh, target, job.checkRunId, infrastructureOutcome('the job stopped before it could report', infraMode)).catch(() => undefined);
    }
    await revisions?.cleanup().catch(() => undefined);
  }
}

function checkRunUrl(repoHtmlUrl: string, id: number): string {
  return `${repoHtmlUrl}/runs/${id}`;
}

async function remember(deps: JobDeps, job: GateJob, report: Report, log: Logger): Promise<void> {
  if (!deps.store) return;
  const repo = `${job.owner}/${job.repo}`;
  try {
    await deps.store.saveRun(report, { repo, pr: job.number, trigger: job.trigger });
    // A new push with fixable findings is the next round; re-runs of the same head are not.
    if (job.trigger === 'pull_request' && ROUND_ADVANCING.has(report.decision.outcome)) await deps.store.advanceRound(repo, job.number, report.decision.round);
  } catch (err) {
    log.warn({ err: errorMessage(err) }, 'run not stored');
  }
}
