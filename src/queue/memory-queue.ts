import { randomUUID } from 'node:crypto';
import { errorMessage } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/trace.js';
import { settlesWithin } from './sleep.js';
import {
  ShutdownError,
  SupersededError,
  type EnqueueRequest,
  type JobHandler,
  type JobQueue,
  type PreviousAttempt,
  type QueueJob,
  type QueueStats,
} from './types.js';

export interface MemoryQueueOptions {
  /** Jobs running at once (default 2). */
  concurrency?: number;
  log?: Logger;
}

/**
 * The in-process queue: bounded concurrency, one running job per key, newest job per key wins.
 * Nothing survives a restart; a job that throws is not retried but closed out as `abandoned`, so the
 * App still completes its check run.
 */
export class MemoryQueue<P = unknown> implements JobQueue<P> {
  readonly kind = 'memory';
  private readonly concurrency: number;
  private readonly log: Logger;
  private readonly pending: QueueJob<P>[] = [];
  /** Close-outs that arrived before `process()` was called. */
  private readonly deferred: QueueJob<P>[] = [];
  private readonly running = new Map<string, { job: QueueJob<P>; controller: AbortController }>();
  private readonly tasks = new Set<Promise<void>>();
  private handler: JobHandler<P> | undefined;
  private stopping = false;
  private idleWaiters: (() => void)[] = [];
  /** When each waiting job was queued (for the age of the oldest). */
  private readonly queuedAt = new Map<string, Date>();

  constructor(opts: MemoryQueueOptions = {}) {
    this.concurrency = Math.max(1, Math.floor(opts.concurrency ?? 2));
    this.log = opts.log ?? silentLogger;
  }

  async enqueue(req: EnqueueRequest<P>): Promise<{ id: string }> {
    if (this.stopping) throw new Error('the queue is stopping and takes no new jobs');
    if (!req.key) throw new Error('a job needs a key (owner/name#pr)');
    const job: QueueJob<P> = { id: randomUUID(), key: req.key, payload: req.payload, mode: 'run', attempt: 1, maxAttempts: 1 };
    const queued = this.pending.findIndex((j) => j.key === req.key);
    if (queued >= 0) {
      for (const old of this.pending.splice(queued, 1)) this.closeOut({ ...old, mode: 'superseded', supersededBy: job.id });
    }
    const active = this.running.get(req.key);
    if (active && !active.controller.signal.aborted) active.controller.abort(new SupersededError(job.id));
    this.pending.push(job);
    this.queuedAt.set(job.id, new Date());
    this.pump();
    return { id: job.id };
  }

  async process(handler: JobHandler<P>): Promise<void> {
    if (this.handler) throw new Error('process() was already called on this queue');
    this.handler = handler;
    for (const job of this.deferred.splice(0)) this.closeOut(job);
    this.pump();
  }

  /** Jobs waiting and running (for health checks). */
  get size(): { pending: number; running: number } {
    return { pending: this.pending.length, running: this.running.size };
  }

  async stats(): Promise<QueueStats> {
    for (const id of this.queuedAt.keys()) if (!this.pending.some((j) => j.id === id)) this.queuedAt.delete(id);
    const oldest = this.pending.map((j) => this.queuedAt.get(j.id)?.getTime() ?? Date.now());
    return {
      pending: this.pending.length,
      running: this.running.size,
      oldestPendingAt: oldest.length ? new Date(Math.min(...oldest)) : null,
      concurrency: this.concurrency,
    };
  }

  /** Resolves once nothing is queued or running. */
  onIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async stop(opts: { graceMs?: number } = {}): Promise<void> {
    const graceMs = opts.graceMs ?? 30_000;
    this.stopping = true;
    for (const job of this.pending.splice(0))
      this.closeOut({ ...job, mode: 'abandoned', previous: { reason: 'shutdown', message: 'slopgate stopped before this job ran' } });
    if (!(await settlesWithin(Promise.all([...this.tasks]), graceMs))) {
      for (const { controller } of this.running.values()) controller.abort(new ShutdownError());
      await settlesWithin(Promise.all([...this.tasks]), Math.max(1000, graceMs));
    }
  }

  private isIdle(): boolean {
    return this.pending.length === 0 && this.tasks.size === 0;
  }

  private track(p: Promise<void>): void {
    this.tasks.add(p);
    void p.finally(() => {
      this.tasks.delete(p);
      if (this.isIdle()) for (const w of this.idleWaiters.splice(0)) w();
    });
  }

  /** Hands a job that will not run to the handler, so it can close it out. */
  private closeOut(job: QueueJob<P>): void {
    const handler = this.handler;
    if (!handler) {
      this.deferred.push(job);
      return;
    }
    const controller = new AbortController();
    controller.abort(job.mode === 'superseded' ? new SupersededError(job.supersededBy ?? '') : new ShutdownError());
    this.track(
      (async () => {
        try {
          await handler(job, controller.signal);
        } catch (err) {
          this.log.warn({ jobId: job.id, key: job.key, mode: job.mode, err: errorMessage(err) }, 'queue: closing out a job failed');
        }
      })(),
    );
  }

  private pump(): void {
    const handler = this.handler;
    if (!handler) return;
    while (!this.stopping && this.running.size < this.concurrency) {
      const next = this.pending.findIndex((j) => !this.running.has(j.key));
      if (next < 0) return;
      for (const job of this.pending.splice(next, 1)) this.start(job, handler);
    }
  }

  private start(job: QueueJob<P>, handler: JobHandler<P>): void {
    const controller = new AbortController();
    this.running.set(job.key, { job, controller });
    this.track(
      (async () => {
        try {
          await handler(job, controller.signal);
        } catch (err) {
          if (!(controller.signal.reason instanceof SupersededError)) {
            const previous: PreviousAttempt =
              controller.signal.reason instanceof ShutdownError ? { reason: 'shutdown' } : { reason: 'error', message: errorMessage(err) };
            this.log.warn({ jobId: job.id, key: job.key, err: errorMessage(err) }, 'queue: job failed');
            this.closeOut({ ...job, mode: 'abandoned', previous });
          }
        } finally {
          this.running.delete(job.key);
          this.pump();
        }
      })(),
    );
  }
}
