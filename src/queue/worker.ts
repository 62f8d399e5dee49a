import { InputError } from '../core/errors.js';
import { createLogger, type Logger } from '../core/trace.js';
import { queueOptionsFromEnv } from './create-queue.js';
import { registeredJobHandler } from './handlers.js';
import { PgQueue, type PgQueueOptions } from './pg-queue.js';
import type { JobHandler } from './types.js';

export interface WorkerOptions<P = unknown> extends Partial<Omit<PgQueueOptions, 'log'>> {
  /** The function that does a job; defaults to the registered one ({@link registeredJobHandler}). */
  handler?: JobHandler<P>;
  log?: Logger;
  /** Stops the worker when aborted (besides SIGINT / SIGTERM). */
  signal?: AbortSignal;
  /** Time running jobs get to finish on shutdown before they are interrupted and retried elsewhere (default 30 s). */
  graceMs?: number;
  /** A durable queue built by the caller (who may also enqueue into it); default: one from the options and DATABASE_URL. */
  queue?: PgQueue<P>;
}

/**
 * `slopgate worker`: takes jobs from the shared PostgreSQL queue until SIGINT/SIGTERM. Start as many
 * as you like, on as many machines as you like, all pointing at the same `DATABASE_URL`.
 * Resolves with the process exit code.
 */
export async function runWorker<P = unknown>(opts: WorkerOptions<P> = {}): Promise<number> {
  const env = queueOptionsFromEnv();
  const url = opts.url ?? env.databaseUrl;
  if (!url && !opts.queue) {
    throw new InputError(
      'slopgate worker needs a shared PostgreSQL database',
      'set DATABASE_URL=postgres://user:pass@host:5432/db (the same one the App uses)',
    );
  }
  const handler = opts.handler ?? fromRegistry<P>();
  if (!handler)
    throw new InputError(
      'no job handler is registered in this build',
      'the App registers its gate handler with registerJobHandler() before runWorker() is called',
    );
  const log = opts.log ?? createLogger({ level: process.env.LOG_LEVEL ?? 'info' });
  const { handler: _h, log: _l, signal, graceMs, queue: given, ...tuning } = opts;
  // Without a given queue the check above made sure there is a url.
  const queue =
    given ?? new PgQueue({ ...env.durable, ...(env.concurrency ? { concurrency: env.concurrency } : {}), ...tuning, url: url ?? '', log });

  const stopped = new Promise<void>((resolve) => {
    const onSignal = () => resolve();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    signal?.addEventListener('abort', onSignal, { once: true });
    if (signal?.aborted) resolve();
  });
  await queue.process(handler);
  log.info({ worker: queue.workerId }, 'slopgate worker started');
  await stopped;
  log.info({ worker: queue.workerId }, 'slopgate worker stopping');
  await queue.stop({ graceMs: graceMs ?? 30_000 });
  return 0;
}

/**
 * The registered handler with its payload type restored. The payload is whatever the queue decodes
 * from its JSON rows (an I/O boundary): whoever registered the handler also enqueues those payloads.
 */
function fromRegistry<P>(): JobHandler<P> | undefined {
  // cast: the registry is untyped across modules; the App registers its own payload type
  return registeredJobHandler() as JobHandler<P> | undefined;
}
