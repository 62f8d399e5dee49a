import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { QueuedPrJob } from '../../../src/host/queued-job.js';
import { runGateWorker } from '../../../src/platforms/github/worker-entry.js';
import { PgQueue, type PgQueueOptions } from '../../../src/queue/pg-queue.js';
import { sleep } from '../../../src/queue/sleep.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { PG_URL, dropSchema, uniqueSchema } from '../../store/backends.js';
import { FakeRemote, removeFakeRemotes } from '../../helpers/fake-remote.js';
import { closeStrict, startHarness, testPrivateKey, type Harness } from './helpers/harness.js';
import { APP_ID, pullRequestEvent, type PrShape } from './helpers/payloads.js';
import { markerGuard } from '../../helpers/test-guards.js';

const doomedWorkerScript = fileURLToPath(new URL('./fixtures/doomed-worker.ts', import.meta.url));
const silent = pino({ level: 'silent' });

/** Fast leases and retries, so a dead worker is noticed within seconds. */
const tuning = (schema: string, retryLimit: number): Omit<PgQueueOptions, 'url'> => ({
  schema,
  retryLimit,
  retryDelaySec: 1,
  leaseSeconds: 2,
  heartbeatMs: 250,
  pollMs: 200,
  maintenanceIntervalSeconds: 1,
});

const storeSchema = uniqueSchema('scale_store');
const queueSchemas: string[] = [];
let webStore: Store;
let workerStore: Store;
let h: Harness | undefined;
let webQueue: PgQueue<QueuedPrJob> | undefined;
const workers: { stop: AbortController; done: Promise<number> }[] = [];
const children: ChildProcess[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  webStore = await openStore({ url: PG_URL, schema: storeSchema, poolSize: 3 });
  workerStore = await openStore({ url: PG_URL, schema: storeSchema, poolSize: 3 });
});

afterEach(async () => {
  for (const w of workers.splice(0)) {
    w.stop.abort();
    await w.done;
  }
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await webQueue?.stop({ graceMs: 0 });
  webQueue = undefined;
  closeStrict(h);
  h = undefined;
});

afterAll(async () => {
  await webStore.close();
  await workerStore.close();
  for (const s of [storeSchema, ...queueSchemas]) await dropSchema(s);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  removeFakeRemotes();
});

/** The web tier: Probot + slopgate with the durable queue, answering webhooks but running no jobs. */
async function startWebTier(remote: FakeRemote, retryLimit: number): Promise<{ harness: Harness; schema: string }> {
  const schema = uniqueSchema('scale_q');
  queueSchemas.push(schema);
  webQueue = new PgQueue<QueuedPrJob>({ url: PG_URL, ...tuning(schema, retryLimit), log: silent });
  const harness = await startHarness(remote, { guards: [markerGuard], queue: webQueue, processJobs: false, store: webStore });
  return { harness, schema };
}

/** `slopgate worker` in this process: its own Probot, built from the environment as in production. */
function startWorker(remote: FakeRemote, schema: string, retryLimit: number): void {
  const workDir = mkdtempSync(join(tmpdir(), 'slopgate-worker-'));
  dirs.push(workDir);
  const stop = new AbortController();
  const env = {
    DATABASE_URL: PG_URL,
    APP_ID: String(APP_ID),
    PRIVATE_KEY: testPrivateKey(),
    LOG_LEVEL: 'silent' as const,
    SLOPGATE_WORKDIR: workDir,
  };
  const done = runGateWorker({
    env,
    store: workerStore,
    app: { guards: [markerGuard], remoteUrl: () => remote.url },
    durable: tuning(schema, retryLimit),
    log: silent,
    signal: stop.signal,
    graceMs: 1000,
  });
  workers.push({ stop, done });
}

/** A worker process that takes the next job and is then killed with SIGKILL, mid-job. */
async function killWorkerMidJob(schema: string, retryLimit: number): Promise<{ jobId: string; checkRunId: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', doomedWorkerScript], {
    env: { ...process.env, PG_URL, QUEUE_TUNING: JSON.stringify(tuning(schema, retryLimit)) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const took = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /took (\S+) (\d+)/.exec(out);
      if (m) resolve(m);
    });
    child.once('exit', (code) => reject(new Error(`the doomed worker exited (${code}) before it took a job:\n${err}`)));
  });
  child.kill('SIGKILL');
  return { jobId: took[1]!, checkRunId: Number(took[2]) };
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 40_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const completedPatch = (harness: Harness, id: number) =>
  harness.github.bodiesOf('PATCH', `/check-runs/${id}`).find((b) => b.status === 'completed');

async function queuedJob(schema: string): Promise<{ state: string; data: { key: string; payload: QueuedPrJob } }> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT state::text AS state, data FROM ${schema}.job WHERE name = 'slopgate_gate'`);
    expect(rows).toHaveLength(1);
    return rows[0];
  } finally {
    await client.end();
  }
}

describe('scale-out: a web tier queues in PostgreSQL, `slopgate worker` processes gate', () => {
  it('the web tier only creates the check run and queues the job; a separate worker gates it and completes that check run', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'x\n' });
    const head = remote.pushPr(40, { 'a.txt': 'y SLOP\n' });
    const pr: PrShape = { number: 40, headSha: head, baseSha: remote.baseSha };
    const { harness, schema } = await startWebTier(remote, 2);
    h = harness;
    h.github.token().createCheckRun(401);

    await h.receive('pull_request', pullRequestEvent('opened', pr));
    await h.idle();

    // Nothing ran here: the job waits in PostgreSQL with everything a worker needs to finish it.
    expect(h.github.bodiesOf('PATCH', '/check-runs/401')).toEqual([]);
    const job = await queuedJob(schema);
    expect(job.state).toBe('created');
    expect(job.data.key).toBe('Codertocat/Hello-World#40');
    expect(job.data.payload).toMatchObject({
      checkRunId: 401,
      installationId: 1,
      owner: 'Codertocat',
      repo: 'Hello-World',
      number: 40,
      headSha: head,
    });

    // The worker has its own Probot (a fresh installation token) and does the whole job.
    h.github.token().gateJob(pr, 401, { review: true });
    startWorker(remote, schema, 2);
    await waitFor('the worker to complete check run 401', () => Boolean(completedPatch(h!, 401)));
    await waitFor('the worker to finish the job', async () => (await queuedJob(schema)).state === 'completed');

    expect(completedPatch(h, 401)).toMatchObject({ conclusion: 'failure', output: { title: expect.stringContaining('1 blocking') } });
    expect(h.github.bodiesOf('POST', '/check-runs')).toHaveLength(1);
    const [review] = h.github.bodiesOf('POST', '/pulls/40/reviews');
    expect(review.comments).toEqual([expect.objectContaining({ path: 'a.txt', line: 1 })]);
  });

  it('a worker killed mid-job: the retry on another worker re-gates into the same check run, not a new one', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'x\n' });
    const head = remote.pushPr(41, { 'a.txt': 'y\n' });
    const pr: PrShape = { number: 41, headSha: head, baseSha: remote.baseSha };
    const { harness, schema } = await startWebTier(remote, 1);
    h = harness;
    h.github.token().createCheckRun(411);
    await h.receive('pull_request', pullRequestEvent('opened', pr));
    await h.idle();

    const lost = await killWorkerMidJob(schema, 1);
    expect(lost.checkRunId).toBe(411);

    // The survivor: marks the check run as re-running (1 update), then reports into it (1 update).
    h.github.token().gateJob(pr, 411, { updates: 2 });
    startWorker(remote, schema, 1);
    await waitFor('the survivor to complete check run 411', () => Boolean(completedPatch(h!, 411)));

    const updates = h.github.bodiesOf('PATCH', '/check-runs/411');
    expect(updates[0]).toMatchObject({
      status: 'in_progress',
      output: { title: 'Gating again (attempt 2 of 2): slopgate lost the worker that was running it' },
    });
    expect(updates[1]).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(h.github.bodiesOf('POST', '/check-runs')).toHaveLength(1);
  });

  it('a job given up after its last worker died completes its check run action_required, saying the worker was lost, with a Re-run button', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'x\n' });
    const head = remote.pushPr(42, { 'a.txt': 'y\n' });
    const pr: PrShape = { number: 42, headSha: head, baseSha: remote.baseSha };
    const { harness, schema } = await startWebTier(remote, 0);
    h = harness;
    h.github.token().createCheckRun(421);
    await h.receive('pull_request', pullRequestEvent('opened', pr));
    await h.idle();

    await killWorkerMidJob(schema, 0);
    // No retry is left: the survivor gets the job back as abandoned and only closes its check run.
    h.github.token().updateCheckRun(421);
    startWorker(remote, schema, 0);
    await waitFor('the abandoned job to complete check run 421', () => Boolean(completedPatch(h!, 421)));

    expect(completedPatch(h, 421)).toMatchObject({
      status: 'completed',
      conclusion: 'action_required',
      output: { title: 'Not about your code: slopgate lost the worker running this job; Re-run to try again' },
      actions: [{ label: 'Re-run', description: 'Gate this commit again', identifier: 'rerun' }],
    });
    expect(completedPatch(h, 421).output.summary).toContain('says nothing about the code');
  });
});
