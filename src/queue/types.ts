/**
 * The job queue behind one interface: in-process (default) or durable in PostgreSQL (pg-boss) when a
 * database URL is configured. A job is keyed by pull request (`owner/name#123`); a newer job for the
 * same key supersedes an older one.
 */

/** Why a job is handed to the handler. */
export type JobMode =
  /** Do the work. */
  | 'run'
  /** A newer job for the same key arrived before this one started: do not run it, only close it out
   * (e.g. complete its check run as cancelled). */
  | 'superseded'
  /** The job failed for good (retries used up, or the process shut down before it ran): close it out
   * as an infrastructure failure (e.g. complete its check run as neutral with a re-run button). */
  | 'abandoned';

/** How the previous attempt of a job ended, when this is not the first one. */
export interface PreviousAttempt {
  reason: 'error' | 'worker-lost' | 'expired' | 'shutdown';
  message?: string;
  /** The worker that ran it (durable queue). */
  worker?: string;
}

export interface QueueJob<P = unknown> {
  id: string;
  key: string;
  payload: P;
  mode: JobMode;
  /** 1 for the first attempt. */
  attempt: number;
  maxAttempts: number;
  /** Set on retries and on abandoned jobs. `worker-lost` means the previous attempt's worker died
   * mid-job: anything it started (a check run `in_progress`) is still open and is now this job's to finish. */
  previous?: PreviousAttempt;
  /** For `superseded`: the id of the newer job. */
  supersededBy?: string;
}

/**
 * Does one job. `signal` aborts when a newer job for the same key arrives (reason: {@link SupersededError}),
 * when the worker shuts down or loses the job (reason: {@link ShutdownError} / {@link LeaseLostError}).
 * A handler that returns after a supersede has done its job; one that throws is retried (durable queue)
 * or closed out as abandoned.
 */
export type JobHandler<P = unknown> = (job: QueueJob<P>, signal: AbortSignal) => Promise<void>;

export interface EnqueueRequest<P = unknown> {
  /** Coalescing key: `owner/name#pr`. */
  key: string;
  payload: P;
}

/** What the queue holds now, for the dashboard and /metrics. */
export interface QueueStats {
  /** Jobs waiting to run (every worker's, for the durable queue). */
  pending: number;
  /** Jobs running (in this process for the in-process queue; everywhere for the durable one). */
  running: number;
  /** When the oldest waiting job was queued, if any waits. */
  oldestPendingAt: Date | null;
  /** Jobs this process runs at once (its workers). */
  concurrency: number;
  /** Workers holding a lease now (the durable queue), else absent. */
  workers?: number;
}

export interface JobQueue<P = unknown> {
  readonly kind: 'memory' | 'postgres';
  /** What the queue holds now (optional: a queue without it shows no depth). */
  stats?(): Promise<QueueStats>;
  /** Adds a job; returns its id. Supersedes queued or running jobs of the same key. */
  enqueue(req: EnqueueRequest<P>): Promise<{ id: string }>;
  /** Starts handing jobs to `handler` (once per queue). */
  process(handler: JobHandler<P>): Promise<void>;
  /** Stops taking jobs, gives running ones `graceMs` to finish, then aborts them. */
  stop(opts?: { graceMs?: number }): Promise<void>;
}

/** Abort reason: a newer job for the same key replaced this one. */
export class SupersededError extends Error {
  constructor(readonly by: string) {
    super(`superseded by a newer job (${by})`);
    this.name = 'SupersededError';
  }
}

/** Abort reason: the worker is shutting down; the job will be retried elsewhere. */
export class ShutdownError extends Error {
  constructor() {
    super('the worker is shutting down');
    this.name = 'ShutdownError';
  }
}

/** Abort reason: this worker's lease on the job expired and another worker took it over. */
export class LeaseLostError extends Error {
  constructor() {
    super('the job was taken over by another worker (missed heartbeats)');
    this.name = 'LeaseLostError';
  }
}

/** The newer job's id when `signal` was aborted because of a supersede, else undefined. */
export function supersededBy(signal: AbortSignal): string | undefined {
  return signal.aborted && signal.reason instanceof SupersededError ? signal.reason.by : undefined;
}
