import { errorMessage } from '../../core/errors.js';
import { evictOldest } from '../../core/evict-oldest.js';
import type { Logger } from '../../core/trace.js';
import { MemoryQueue } from '../../queue/memory-queue.js';
import type { JobQueue, QueueJob } from '../../queue/types.js';
import { supersedingHead } from '../../host/pr-job.js';
import type { GitHubClient } from './check-run.js';
import { GitHubReviewHost } from './github-review-host.js';
import { DeliveryDedupe } from './delivery-dedupe.js';
import { MemoryCommandLedger, StoreCommandLedger, type CommandLedger } from '../../host/command-budget.js';
import { abandonedOutcome, retryingOutput, supersededOutcome } from '../../host/check-run-outcomes.js';
import {
  externalIdFor,
  jobKey,
  mergeGroupExternalIdFor,
  type QueuedPrJob,
  type GateTrigger,
  type MergeGroupRef,
} from '../../host/queued-job.js';
import { hostFor, runQueuedJob, type JobDeps } from './run-queued-job.js';
import { observeJob } from './observe-job.js';
import type { SlopgateMetrics } from '../../dashboard/metrics.js';

export interface GateRequest {
  installationId: number;
  owner: string;
  repo: string;
  number: number;
  headSha: string;
  trigger: GateTrigger;
  deliveryId: string;
  requestedBy?: string;
  /** A merge queue's commit (`headSha`) for PR `number` (0 when the queue's branch names none). */
  mergeGroup?: MergeGroupRef;
}

/** One live job per PR; one per merge queue entry (its branch), which never supersedes the PR's own. */
function keyOf(req: Pick<GateRequest, 'owner' | 'repo' | 'number' | 'mergeGroup'>): string {
  return req.mergeGroup ? `${req.owner}/${req.repo}@${req.mergeGroup.headRef}` : jobKey(req.owner, req.repo, req.number);
}

const REMEMBERED_JOBS = 5_000;

/**
 * The App's moving parts in one place: the job queue, delivery dedupe and background intake.
 * Webhook handlers only record what to do and return; the check run is created right after, in the
 * background, in arrival order per PR (so the newest push is queued last and wins).
 */
export class SlopgateRuntime {
  readonly deps: JobDeps;
  readonly queue: JobQueue<QueuedPrJob>;
  readonly dedupe: DeliveryDedupe;
  /** How many commands each user has given on each PR (the per-user bound on answered commands). */
  readonly commands: CommandLedger;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly intakeTails = new Map<string, Promise<unknown>>();
  /** Last head requested per PR, and head per queued job id (what superseded what). */
  private readonly lastHead = new Map<string, string>();
  private readonly jobHeads = new Map<string, string>();
  /** The process's Prometheus metrics (the App's /metrics, a worker's metrics port). */
  readonly metrics: SlopgateMetrics | undefined;

  constructor(deps: JobDeps, opts: { queue?: JobQueue<QueuedPrJob>; concurrency?: number; metrics?: SlopgateMetrics } = {}) {
    this.deps = {
      ...deps,
      headOfJob: (id) => this.jobHeads.get(id),
      onStaleHead: (job, actual) => this.onStaleHead(job, actual),
      requestGate: (gh, req) => this.requestGate(gh, req),
    };
    this.dedupe = new DeliveryDedupe(deps.store);
    this.commands = deps.store ? new StoreCommandLedger(deps.store, deps.log) : new MemoryCommandLedger();
    this.queue = opts.queue ?? new MemoryQueue<QueuedPrJob>({ concurrency: opts.concurrency ?? 2, log: deps.log });
    this.metrics = opts.metrics;
    this.metrics?.watchQueue(async () => (await this.queue.stats?.()) ?? null);
  }

  get log(): Logger {
    return this.deps.log;
  }

  /** Starts taking jobs from the queue (the App process, or a `slopgate worker`). */
  async start(): Promise<void> {
    await this.queue.process((job, signal) => this.handle(job, signal));
  }

  /**
   * One queue job: run it, or close out a job that will not run — superseded (check run cancelled)
   * or abandoned (check run neutral with a re-run button). The payload carries everything needed to
   * reach its check run (installation, owner, repo, check run id), so any worker can do this.
   */
  async handle(job: QueueJob<QueuedPrJob>, signal: AbortSignal): Promise<void> {
    const gate = job.payload;
    if (job.mode === 'run') {
      // A retry (e.g. its worker died mid-job) re-gates into the same check run, never a new one.
      if (job.previous) await this.announceRetry(job);
      const startedAt = new Date();
      if (gate.receivedAt) this.metrics?.jobStarted((startedAt.getTime() - Date.parse(gate.receivedAt)) / 1000);
      const run = await runQueuedJob(gate, this.deps, signal);
      await observeJob({ store: this.deps.store, metrics: this.metrics, log: this.log }, gate, run, startedAt);
      return;
    }
    const host = await hostFor(this.deps, gate);
    const outcome =
      job.mode === 'superseded'
        ? supersededOutcome(job.supersededBy ? await supersedingHead(host, this.deps, gate, job.supersededBy) : undefined)
        : abandonedOutcome(job.previous);
    await host.completeCheckRun(gate.checkRunId, outcome);
  }

  /**
   * Webhook intake, step one: false when this process has already seen the delivery. Synchronous and
   * without I/O, so the webhook is answered without waiting on the database; the store's verdict
   * (other App processes) is taken in the background before anything is queued.
   */
  acceptDelivery(deliveryId: string | undefined, event = 'unknown'): boolean {
    const first = this.dedupe.firstInProcess(deliveryId);
    this.metrics?.delivery(event, first);
    return first;
  }

  /** Webhook intake, step two (background): false when another App process already took the delivery. */
  async claimDelivery(deliveryId: string | undefined): Promise<boolean> {
    const first = await this.dedupe.claimInStore(deliveryId);
    if (!first) this.log.info({ delivery: deliveryId }, 'redelivery ignored (another slopgate process took it)');
    return first;
  }

  /**
   * Creates the `in_progress` check run and queues the job, in the background, in order per PR.
   * `claimDelivery`: first claim `req.deliveryId` in the store (a webhook not claimed yet), inside the
   * per-PR order, so two pushes are still queued in the order they arrived.
   */
  requestGate(gh: GitHubClient, req: GateRequest, opts: { claimDelivery?: boolean } = {}): void {
    const key = keyOf(req);
    const receivedAt = new Date().toISOString();
    this.lastHead.set(key, req.headSha);
    // A failed intake (GitHub down for a moment) must not swallow the next push of the same PR.
    const prev = (this.intakeTails.get(key) ?? Promise.resolve()).catch(() => undefined);
    const work = prev.then(async () => {
      if (opts.claimDelivery && !(await this.claimDelivery(req.deliveryId))) return;
      await this.intake(gh, req, key, receivedAt);
    });
    this.intakeTails.set(key, work);
    this.track(
      work.finally(() => {
        if (this.intakeTails.get(key) === work) this.intakeTails.delete(key);
      }),
    );
  }

  /** Background work that tests and shutdown can wait for. */
  track(p: Promise<unknown>): void {
    const guarded = p.catch((err: unknown) => this.log.error({ err: errorMessage(err) }, 'background task failed'));
    this.pending.add(guarded);
    void guarded.finally(() => this.pending.delete(guarded));
  }

  /** Resolves when all intake and queued jobs are done (tests, graceful shutdown). */
  async idle(): Promise<void> {
    for (;;) {
      while (this.pending.size) await Promise.all([...this.pending]);
      if (this.queue instanceof MemoryQueue) await this.queue.onIdle();
      if (!this.pending.size) return;
    }
  }

  async stop(): Promise<void> {
    await this.queue.stop({ graceMs: 10_000 });
  }

  /** Puts the job's check run back to in progress, saying why it runs again (best effort). */
  private async announceRetry(job: QueueJob<QueuedPrJob>): Promise<void> {
    const gate = job.payload;
    try {
      const host = await hostFor(this.deps, gate);
      if (!job.previous) return; // a retry always carries the failure it follows
      await host.reopenCheckRun(gate.checkRunId, retryingOutput(job.previous, job.attempt, job.maxAttempts));
    } catch (err) {
      this.log.warn({ job: gate.key, err: errorMessage(err) }, 'could not mark the check run as retrying');
    }
  }

  /**
   * A job found the PR at another head than it was queued for. Webhooks can arrive out of order, so
   * when no job for that head was requested here, gate it now instead of leaving it ungated.
   */
  private async onStaleHead(job: QueuedPrJob, actualHead: string): Promise<void> {
    if (this.lastHead.get(job.key) === actualHead) return;
    const gh = await this.deps.octokitFor(job.installationId);
    this.requestGate(gh, {
      installationId: job.installationId,
      owner: job.owner,
      repo: job.repo,
      number: job.number,
      headSha: actualHead,
      trigger: 'pull_request',
      deliveryId: `${job.deliveryId}:stale`,
    });
  }

  private async intake(gh: GitHubClient, req: GateRequest, key: string, receivedAt: string): Promise<void> {
    const host = new GitHubReviewHost(gh, { owner: req.owner, repo: req.repo }, this.deps.appId);
    const externalId = req.mergeGroup ? mergeGroupExternalIdFor(req.number) : externalIdFor(req.number);
    const checkRunId = await host.startCheckRun(req.headSha, externalId);
    const job: QueuedPrJob = {
      key,
      installationId: req.installationId,
      owner: req.owner,
      repo: req.repo,
      number: req.number,
      headSha: req.headSha,
      checkRunId,
      trigger: req.trigger,
      deliveryId: req.deliveryId,
      receivedAt,
      ...(req.requestedBy ? { requestedBy: req.requestedBy } : {}),
      ...(req.mergeGroup ? { mergeGroup: req.mergeGroup } : {}),
    };
    const { id } = await this.queue.enqueue({ key, payload: job });
    this.jobHeads.set(id, req.headSha);
    evictOldest(this.jobHeads, REMEMBERED_JOBS);
  }
}
