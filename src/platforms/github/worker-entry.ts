import { mkdir } from 'node:fs/promises';
import { createProbot, type Probot } from 'probot';
import { createSlopgateRuntime, type SlopgateAppOptions } from './app.js';
import { sanctionKeyFromEnv } from '../../host/sanctions.js';
import { InputError } from '../../core/errors.js';
import type { Logger } from '../../core/trace.js';
import { queueOptionsFromEnv } from '../../queue/create-queue.js';
import { registerJobHandler } from '../../queue/handlers.js';
import { PgQueue, type PgQueueOptions } from '../../queue/pg-queue.js';
import { runWorker } from '../../queue/worker.js';
import { openStore } from '../../store/open-store.js';
import { SlopgateMetrics } from '../../dashboard/metrics.js';
import { serveMetricsPort } from '../../dashboard/metrics-port.js';
import type { Store } from '../../store/store.js';
import { githubRemoteUrl } from '../../workspace/repo-mirror.js';
import { defaultWorkDir, requireAppCredentials } from './deployment-env.js';
import { checkPrivateKey, databaseStartError } from './startup-checks.js';
import type { QueuedPrJob } from '../../host/queued-job.js';

export interface GateWorkerOptions {
  /** Where DATABASE_URL, APP_ID, PRIVATE_KEY(_PATH), GHE_HOST, SLOPGATE_* are read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Jobs this process runs at once (default: SLOPGATE_CONCURRENCY, else 2). */
  concurrency?: number;
  /** An authenticated Probot instance (default: built from `env` exactly as the App server builds it). */
  probot?: Probot;
  /** The store (default: opened from DATABASE_URL). A store passed in is not closed here. */
  store?: Store;
  /** Runtime settings the App also takes (guards, remote URLs, work dir, the pipeline in tests). */
  app?: Omit<SlopgateAppOptions, 'queue' | 'store' | 'concurrency' | 'processJobs'>;
  /** Queue tuning on top of the SLOPGATE_QUEUE_* settings (schema, lease, retries, …). */
  durable?: Partial<Omit<PgQueueOptions, 'url' | 'log'>>;
  log?: Logger;
  /** Stops the worker when aborted (besides SIGINT / SIGTERM). */
  signal?: AbortSignal;
  /** Time running jobs get on shutdown before they are handed to another worker (default 30 s). */
  graceMs?: number;
}

/**
 * `slopgate worker`: the App's gate runtime without the web server. It authenticates as the App
 * (Probot from the same environment: APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, GHE_HOST…), opens the
 * store from DATABASE_URL, and takes jobs from the shared PostgreSQL queue the App's web tier fills.
 * Jobs it queues itself (a PR that moved on while a job ran) go into the same queue.
 * Resolves with the exit code once stopped.
 */
export async function runGateWorker(opts: GateWorkerOptions = {}): Promise<number> {
  const env = opts.env ?? process.env;
  const settings = queueOptionsFromEnv(env);
  const url = settings.databaseUrl;
  if (!url) {
    throw new InputError(
      'slopgate worker needs DATABASE_URL: workers share jobs with the App through PostgreSQL, and without it there is nothing to share',
      'set DATABASE_URL=postgres://user:pass@host:5432/db to the database the App server uses (the App then queues its jobs there)',
    );
  }
  if (!opts.probot) {
    requireAppCredentials(env, 'slopgate worker');
    checkPrivateKey(env);
  }
  const probot = opts.probot ?? createProbot({ env });
  const log = opts.log ?? probot.log;
  const workDir = opts.app?.workDir ?? defaultWorkDir(env);
  await mkdir(workDir, { recursive: true });
  const concurrency = opts.concurrency ?? settings.concurrency;
  const queue = new PgQueue<QueuedPrJob>({ ...settings.durable, ...opts.durable, ...(concurrency ? { concurrency } : {}), url, log });
  let store: Store;
  try {
    store = opts.store ?? (await openStore({ url }));
    // The queue's tables, now: an unreachable database is a start-up error, not the first job's.
    await queue.start();
  } catch (err) {
    await queue.stop({ graceMs: 0 }).catch(() => undefined);
    throw databaseStartError(err, url);
  }
  try {
    const appId = opts.app?.appId ?? Number(env.APP_ID ?? 0);
    // A worker serves no webhooks: its metrics go on SLOPGATE_METRICS_PORT when set.
    const metrics = new SlopgateMetrics();
    const metricsServer = await serveMetricsPort(metrics, env);
    metricsServer?.ref();
    const runtime = createSlopgateRuntime(probot, {
      metrics,
      remoteUrl: githubRemoteUrl(env),
      resolveThreads: env.SLOPGATE_RESOLVE_THREADS !== 'false',
      ...opts.app,
      workDir,
      appId,
      sanctionKey: opts.app?.sanctionKey ?? sanctionKeyFromEnv(env),
      store,
      queue,
      log,
    });
    registerJobHandler<QueuedPrJob>((job, signal) => runtime.handle(job, signal));
    try {
      return await runWorker({
        queue,
        log,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.graceMs !== undefined ? { graceMs: opts.graceMs } : {}),
      });
    } finally {
      metricsServer?.close();
    }
  } catch (err) {
    await queue.stop({ graceMs: 0 }).catch(() => undefined);
    throw err;
  } finally {
    if (!opts.store) await store.close();
  }
}
