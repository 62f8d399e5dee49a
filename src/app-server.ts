#!/usr/bin/env node
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from 'probot';
import { createSlopgateApp } from './app.js';
import { errorMessage } from './core/errors.js';
import { openStore, storeOptionsFromEnv } from './store/open-store.js';

/**
 * `npm start`: the slopgate GitHub App as a long-running server (Probot's `run`). Reads APP_ID,
 * PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET, PORT, HOST, LOG_LEVEL, GHE_HOST/GHE_PROTOCOL
 * (Probot) and DATABASE_URL, SLOPGATE_WORKDIR, SLOPGATE_CONCURRENCY (slopgate).
 */
async function main(): Promise<void> {
  const workDir = process.env.SLOPGATE_WORKDIR ?? join(tmpdir(), 'slopgate');
  await mkdir(workDir, { recursive: true });
  // DATABASE_URL: a shared PostgreSQL; otherwise an embedded PGlite database in the work dir.
  const store = await openStore(storeOptionsFromEnv(process.env, join(workDir, 'db')));
  const concurrency = Number(process.env.SLOPGATE_CONCURRENCY) || undefined;
  const slopgate = createSlopgateApp({ workDir, store, ...(concurrency ? { concurrency } : {}) });
  const server = await run(slopgate.appFn);
  const shutdown = async (signal: string) => {
    console.info(`${signal}: stopping slopgate (running jobs get 10 s to finish)`);
    try {
      await slopgate.runtime().stop();
      await server.stop();
      await store.close();
    } finally {
      process.exit(0);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  console.error(`slopgate could not start: ${errorMessage(err)}`);
  process.exit(1);
});
