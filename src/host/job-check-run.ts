import { infrastructureOutcome, queueStatusOutcome, type InfraErrorMode } from './check-run-outcomes.js';
import type { CheckRunOutcome } from './check-outcome.js';
import { externalIdFor, mergeGroupExternalIdFor, type MergeGroupRef, type PrJob } from './queued-job.js';
import { forHost, type ReviewHost } from './review-host.js';

/**
 * The `slopgate` check run of one PR job: started once (unless the caller already did), completed once.
 * It keeps the two facts the job's error handling turns on: whether a conclusion is out, and whether the
 * job was handed back to the queue (which then completes the run itself). On a merge queue's commit an
 * outcome that is no verdict is said the queue's way ({@link queueStatusOutcome}).
 */
export class JobCheckRun {
  /** A conclusion is out: a step that fails after it is logged, never reported over it. */
  completed = false;
  /** Aborted for shutdown or a lost lease: the queue retries the job elsewhere, and that run completes it. */
  handedOff = false;

  constructor(
    private readonly host: ReviewHost,
    /** The run's id once it is started (or the one the caller started). */
    public id: number | undefined,
    private readonly group: MergeGroupRef | undefined,
  ) {}

  /** Starts the run on the job's head unless it already is; its id. */
  async start(job: PrJob): Promise<number> {
    this.id ??= await this.host.startCheckRun(job.headSha, this.group ? mergeGroupExternalIdFor(job.number) : externalIdFor(job.number));
    return this.id;
  }

  /** Completes the run with an outcome as it is (a merge queue's verdict comes here already in the queue's words). */
  async complete(outcome: CheckRunOutcome): Promise<void> {
    if (this.id === undefined) return;
    await this.host.completeCheckRun(this.id, forHost(this.host, outcome));
    this.completed = true;
  }

  /** Completes the run with an outcome that is no verdict: a skip, a superseded run, a broken config, an outage. */
  async finish(outcome: CheckRunOutcome): Promise<void> {
    await this.complete(this.group ? queueStatusOutcome(outcome, this.group) : outcome);
  }

  /** The report was published, and the publisher completed the run (publish-report.ts). */
  published(): void {
    this.completed = true;
  }

  /** The safety net: a run that nothing completed, and that the queue does not take over, ends as an outage. */
  async lastResort(mode: InfraErrorMode): Promise<void> {
    if (this.completed || this.handedOff || this.id === undefined) return;
    const outcome = infrastructureOutcome('the job stopped before it could report', mode);
    await this.host.completeCheckRun(this.id, outcome).catch(() => undefined);
  }
}
