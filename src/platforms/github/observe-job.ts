import { hostname } from 'node:os';
import { GateInfraError, errorMessage } from '../../core/errors.js';
import type { Logger } from '../../core/trace.js';
import type { SlopgateMetrics } from '../../dashboard/metrics.js';
import type { JobRun } from '../../host/pr-job-deps.js';
import type { QueuedPrJob } from '../../host/queued-job.js';
import type { Store } from '../../store/store.js';

/** The error kind /metrics counts for a job that could not finish. */
function errorKind(err: unknown): string {
  return err instanceof GateInfraError ? err.kind : 'job';
}

/**
 * After each App job: how it ended goes to the store (the dashboard's outages and check-run links)
 * and to the metrics. Neither may fail the job: a store that is down is logged and counted.
 */
export async function observeJob(
  deps: { store?: Store | undefined; metrics?: SlopgateMetrics | undefined; log: Logger },
  job: QueuedPrJob,
  run: JobRun,
  startedAt: Date,
): Promise<void> {
  const outage = run.result === 'infrastructure-error';
  if (outage && run.error instanceof GateInfraError && run.error.kind === 'sandbox') deps.metrics?.sandboxRefused();
  deps.metrics?.jobEnded(run.result, run.report, outage ? { kind: errorKind(run.error) } : undefined);
  if (!deps.store) return;
  try {
    await deps.store.recordJob({
      installationId: job.installationId,
      account: job.owner,
      repo: `${job.owner}/${job.repo}`,
      pr: job.number,
      headSha: job.headSha,
      trigger: job.trigger,
      result: run.result,
      ...(run.report ? { outcome: run.report.decision.outcome, conclusion: run.report.decision.conclusion } : {}),
      ...(outage ? { conclusion: run.config?.onInfraError ?? 'action_required', reason: errorMessage(run.error) } : {}),
      ...(run.result === 'config-error' ? { conclusion: 'failure', reason: errorMessage(run.error) } : {}),
      checkRunId: run.checkRunId ?? job.checkRunId,
      worker: deps.metrics?.host ?? hostname(),
      startedAt,
    });
  } catch (err) {
    deps.metrics?.error('store');
    deps.log.warn({ err: errorMessage(err) }, 'job not recorded in the store');
  }
}
