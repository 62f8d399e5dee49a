import { errorMessage } from '../core/errors.js';
import type { Report } from '../core/report.js';
import type { Logger } from '../core/trace.js';
import { inertReport } from '../report/markdown-escape.js';
import { ROUND_ADVANCING } from '../routing/decide.js';
import { gateHead } from './gate-head.js';
import type { JobRun, JobToGate, PrJobDeps } from './pr-job-deps.js';
import { repoName } from './prepare-pr.js';
import { addedLines, publishReport } from './publish-report.js';
import type { PrJob } from './queued-job.js';
import type { ReviewHost } from './review-host.js';
import { sincePushFor, withSincePush } from './since-push.js';

/**
 * The PR path of the job (pr-job.ts): a PR head is gated, compared with the PR's previous gated head,
 * and its report published everywhere the host lets it (check run, description, review comments,
 * labels). Then the run is stored, the round advanced, and a new head routed to REFINE refined when
 * `refiner.auto` asks for it. Once the report is out, what fails is the caller's to log, not to report.
 */
export async function gatePullRequest<J extends PrJob>(head: JobToGate<J>): Promise<Pick<JobRun, 'report'>> {
  const { host, job, deps, pr, revisions, checkRunId, log } = head;
  const config = head.settings.config;
  const gated = await gateHead(head);
  // What changed since the PR's previous gated head (new, fixed, still open); stored with the run.
  const report = withSincePush(
    gated,
    await sincePushFor({ store: deps.store, repo: repoName(host), pr: job.number, repoDir: revisions.mirrorDir, report: gated, log }),
  );
  head.checkpoint();
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
  head.check.published();
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
  return { report };
}

/** Stores the run, and advances the PR's round for a new push with fixable findings (a re-run of the same head does not). */
async function remember<J extends PrJob>(deps: PrJobDeps<J>, host: ReviewHost, job: PrJob, report: Report, log: Logger): Promise<void> {
  if (!deps.store) return;
  const repo = repoName(host);
  try {
    await deps.store.saveRun(report, { repo, pr: job.number, trigger: job.trigger });
    if (job.trigger === 'pull_request' && ROUND_ADVANCING.has(report.decision.outcome)) {
      await deps.store.advanceRound(repo, job.number, report.decision.round);
    }
  } catch (err) {
    log.warn({ err: errorMessage(err) }, 'run not stored');
  }
}
