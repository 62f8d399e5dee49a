import { errorMessage } from '../core/errors.js';
import { inertReport } from '../report/markdown-escape.js';
import { queueOutcome, reportOutcome } from './check-run-outcomes.js';
import { gateHead } from './gate-head.js';
import { gatedTwin } from './merge-queue.js';
import type { JobRun, JobToGate } from './pr-job-deps.js';
import { repoName } from './prepare-pr.js';
import type { MergeGroupRef, PrJob } from './queued-job.js';

/**
 * The merge-queue path of the job (pr-job.ts): a merge queue's commit reports on the queue's head only.
 * A verdict already given to the same change on the PR (its gated twin, see merge-queue.ts) is reused;
 * else the commit is gated against the queue's base. Either way the check run says it the queue's way
 * ({@link queueOutcome}): whatever does not pass is a `failure` that takes the entry out of the queue.
 * The commit is no push of the PR: no comments, description or labels, no since-push comparison, no round.
 */
export async function gateMergeGroup<J extends PrJob>(
  head: JobToGate<J>,
  group: MergeGroupRef,
): Promise<Pick<JobRun, 'report' | 'reusedFrom'>> {
  const { host, job, deps, pr, revisions, check, log } = head;
  const url = host.checkRunUrl(pr, head.checkRunId);
  const twin = deps.store ? await gatedTwin(deps.store, repoName(host), job.number, revisions).catch(() => undefined) : undefined;
  if (twin) {
    const from = { number: job.number, headSha: twin.run.headSha };
    await check.complete(queueOutcome(reportOutcome(inertReport(twin.report), false, url, host.kind), group, from));
    log.info({ outcome: twin.report.decision.outcome, reusedFrom: twin.run.headSha }, 'merge queue entry: verdict reused');
    return { report: twin.report, reusedFrom: from };
  }
  const report = await gateHead(head);
  head.checkpoint();
  // A flip on the queue's commit (what the default branch becomes) makes the test known flaky on its own.
  await deps.store
    ?.recordFlips({ repo: repoName(host), onBase: true, headSha: job.headSha, testIds: report.sections.tests?.flaky ?? [] })
    .catch((err: unknown) => log.warn({ err: errorMessage(err) }, 'flaky tests not stored'));
  await check.complete(queueOutcome(reportOutcome(inertReport(report), false, url, host.kind), group));
  log.info({ outcome: report.decision.outcome, findings: report.findings.length }, 'merge queue entry gated');
  return { report };
}
