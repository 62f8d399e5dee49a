import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from 'probot';
import { createSlopgateApp } from './app.js';
import { appServerLog } from './app-log.js';
import { InputError, errorMessage } from '../../core/errors.js';
import { createLogger } from '../../core/trace.js';
import { defaultWorkDir, requireAppCredentials, requireWebhookSecret, serverDeploymentFromEnv } from './deployment-env.js';
import { checkPrivateKey, databaseStartError } from './startup-checks.js';
import type { QueuedPrJob } from '../../host/queued-job.js';
import { PgQueue } from '../../queue/pg-queue.js';
import { openStore, storeOptionsFromEnv } from '../../store/open-store.js';
import { SlopgateMetrics } from '../../dashboard/metrics.js';
import { serveMetricsPort } from '../../dashboard/metrics-port.js';

/**
 * `npm start`: the slopgate GitHub App as a long-running server (Probot's `run`). Reads APP_ID,
 * PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET, PORT, HOST, LOG_LEVEL, GHE_HOST/GHE_PROTOCOL
 * (Probot) and DATABASE_URL, SLOPGATE_ROLE, SLOPGATE_WORKDIR (default: see defaultWorkDir), SLOPGATE_CONCURRENCY and the
 * SLOPGATE_QUEUE_* settings (slopgate).
 *
 * With DATABASE_URL the jobs go into the durable PostgreSQL queue, shared with `slopgate worker`
 * processes; SLOPGATE_ROLE=web makes this process only answer webhooks and queue jobs.
 */
export async function runAppServer(): Promise<void> {
  requireWebhookSecret(process.env);
  const deployment = serverDeploymentFromEnv(process.env);
  // Without APP_ID Probot runs its setup (it registers the App and writes .env); with it, the key must work.
  if (process.env.APP_ID?.trim()) {
    requireAppCredentials(process.env, 'the App server');
    checkPrivateKey(process.env);
  }
  const workDir = defaultWorkDir(process.env);
  try {
    await mkdir(workDir, { recursive: true });
  } catch (err) {
    throw new InputError(
      `cannot create the work dir ${workDir}: ${errorMessage(err)}`,
      'set SLOPGATE_WORKDIR to a folder this user can write',
    );
  }
  // DATABASE_URL: a shared PostgreSQL, opened now so that a wrong URL fails at start. Otherwise an
  // embedded PGlite database in the work dir, opened on first use: it needs several hundred MB of
  // memory, which an idle App should not hold (see `npm run bench`).
  const storeOptions = storeOptionsFromEnv(process.env, join(workDir, 'db'));
  const store = await openStore({
    ...storeOptions,
    lazy: !storeOptions.url,
    // The embedded database: waiting for another process on its folder, or a damaged one moved aside.
    onNotice: (message, level) => (level === 'warn' ? console.warn : console.info)(`slopgate: ${message}`),
  }).catch((err: unknown) => {
    throw storeOptions.url ? databaseStartError(err, storeOptions.url) : err;
  });
  const { databaseUrl, concurrency, durable } = deployment.queue;
  let queue: PgQueue<QueuedPrJob> | undefined;
  if (databaseUrl) {
    queue = new PgQueue<QueuedPrJob>({
      url: databaseUrl,
      ...durable,
      ...(concurrency ? { concurrency } : {}),
      log: createLogger({ level: process.env.LOG_LEVEL ?? 'info' }),
    });
    // a wrong DATABASE_URL fails here, not on the first webhook
    await queue.start().catch(async (err: unknown) => {
      await store.close().catch(() => undefined);
      throw databaseStartError(err, databaseUrl);
    });
  }
  // /metrics is served on the webhooks' port behind the dashboard's token, and on SLOPGATE_METRICS_PORT when set.
  const metrics = new SlopgateMetrics();
  const metricsServer = await serveMetricsPort(metrics, process.env);
  const slopgate = createSlopgateApp({
    workDir,
    store,
    metrics,
    ...(queue ? { queue } : {}),
    ...(concurrency ? { concurrency } : {}),
    processJobs: deployment.role !== 'web',
  });
  // Probot's logger, with the credential headers of the dashboard's requests redacted (app-log.ts).
  const server = await run(slopgate.appFn, { log: await appServerLog(process.env) });
  console.info(
    deployment.role === 'web'
      ? 'slopgate: web tier: webhooks are queued in PostgreSQL for `slopgate worker` processes'
      : `slopgate: answering webhooks and running gate jobs (${queue ? 'shared PostgreSQL queue' : 'in-process queue'})`,
  );
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.info(`${signal}: stopping slopgate (running jobs get 10 s to finish)`);
    try {
      await slopgate.runtime().stop();
      await server.stop();
      metricsServer?.close();
      await store.close();
    } finally {
      process.exit(0);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}
