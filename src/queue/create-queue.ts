import type { Logger } from '../core/trace.js';
import { MemoryQueue } from './memory-queue.js';
import { PgQueue, type PgQueueOptions } from './pg-queue.js';
import type { JobQueue } from './types.js';

export interface QueueOptions {
  /** A `postgres://` URL selects the durable queue; without one the queue is in-process. */
  databaseUrl?: string;
  concurrency?: number;
  log?: Logger;
  /** Tuning of the durable queue (schema, retries, lease, …). */
  durable?: Omit<PgQueueOptions, 'url' | 'concurrency' | 'log'>;
}

/** The durable PostgreSQL queue when a database URL is given, else the in-process queue. */
export function createQueue<P>(opts: QueueOptions = {}): JobQueue<P> {
  if (opts.databaseUrl) {
    return new PgQueue<P>({
      url: opts.databaseUrl,
      ...opts.durable,
      ...(opts.concurrency ? { concurrency: opts.concurrency } : {}),
      ...(opts.log ? { log: opts.log } : {}),
    });
  }
  return new MemoryQueue<P>({ ...(opts.concurrency ? { concurrency: opts.concurrency } : {}), ...(opts.log ? { log: opts.log } : {}) });
}

function positiveInt(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got '${value}'`);
  return n;
}

/**
 * Queue settings from the environment: `DATABASE_URL` (durable queue), `SLOPGATE_CONCURRENCY` (jobs
 * per process), `SLOPGATE_QUEUE_SCHEMA`, `SLOPGATE_QUEUE_RETRIES`, `SLOPGATE_QUEUE_LEASE_SECONDS`.
 */
export function queueOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): QueueOptions {
  const url = env.DATABASE_URL?.trim();
  const concurrency = positiveInt(env.SLOPGATE_CONCURRENCY, 'SLOPGATE_CONCURRENCY');
  const retries = env.SLOPGATE_QUEUE_RETRIES?.trim() === '0' ? 0 : positiveInt(env.SLOPGATE_QUEUE_RETRIES, 'SLOPGATE_QUEUE_RETRIES');
  const lease = positiveInt(env.SLOPGATE_QUEUE_LEASE_SECONDS, 'SLOPGATE_QUEUE_LEASE_SECONDS');
  const durable: QueueOptions['durable'] = {
    ...(env.SLOPGATE_QUEUE_SCHEMA?.trim() ? { schema: env.SLOPGATE_QUEUE_SCHEMA.trim() } : {}),
    ...(retries !== undefined ? { retryLimit: retries } : {}),
    ...(lease !== undefined ? { leaseSeconds: lease } : {}),
  };
  return { ...(url ? { databaseUrl: url } : {}), ...(concurrency ? { concurrency } : {}), durable };
}
