import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgQueue } from '../../src/queue/pg-queue.js';
import { sleep } from '../../src/queue/sleep.js';
import { PG_URL, dropSchema, uniqueSchema } from '../store/backends.js';
import type { TestPayload } from './fixtures/worker-proc.js';

const script = fileURLToPath(new URL('./fixtures/worker-proc.ts', import.meta.url));

interface ResultRow {
  job_id: string;
  key: string;
  tag: string;
  mode: string;
  attempt: number;
  event: string;
  pid: number;
  previous: string | null;
  at: Date;
}

describe('durable queue: two worker processes on one PostgreSQL', () => {
  const schema = uniqueSchema('q');
  const client = new pg.Client({ connectionString: PG_URL });
  const workers: { proc: ChildProcess; stderr: string[] }[] = [];
  let producer: PgQueue<TestPayload>;

  const results = async (where = 'true', params: unknown[] = []) =>
    (await client.query<ResultRow>(`SELECT * FROM ${schema}.results WHERE ${where} ORDER BY at, id`, params)).rows;
  const jobStates = async (ids: string[]) =>
    (await client.query<{ id: string; state: string }>(`SELECT id::text, state::text FROM ${schema}.job WHERE id = ANY($1::uuid[])`, [ids]))
      .rows;

  /** Polls `check` until it returns true; fails after `ms` with the workers' stderr for context. */
  async function waitFor(what: string, check: () => Promise<boolean>, ms = 40_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (await check()) return;
      await sleep(200);
    }
    throw new Error(`timed out waiting for ${what}\n${workers.map((w, i) => `worker ${i}: ${w.stderr.join('').slice(-2000)}`).join('\n')}`);
  }

  function startWorker() {
    const proc = spawn(process.execPath, ['--import', 'tsx', script], {
      env: { ...process.env, PG_URL, QUEUE_SCHEMA: schema },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const w = { proc, stderr: [] as string[] };
    proc.stderr.on('data', (d: Buffer) => w.stderr.push(d.toString()));
    workers.push(w);
    return w;
  }

  beforeAll(async () => {
    await client.connect();
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(
      `CREATE TABLE ${schema}.results (id bigserial PRIMARY KEY, job_id uuid, key text, tag text, mode text, attempt int, event text, pid int, previous text, at timestamptz DEFAULT clock_timestamp())`,
    );
    producer = new PgQueue<TestPayload>({ url: PG_URL, schema, retryLimit: 2, retryDelaySec: 1, leaseSeconds: 2 });
    await producer.start();
    startWorker();
    startWorker();
  });

  afterAll(async () => {
    for (const w of workers) if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill('SIGTERM');
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.proc.exitCode !== null || w.proc.signalCode !== null) {
              resolve();
              return;
            }
            const t = setTimeout(() => {
              w.proc.kill('SIGKILL');
              resolve();
            }, 8000);
            w.proc.once('exit', () => {
              clearTimeout(t);
              resolve();
            });
          }),
      ),
    );
    await producer.stop({ graceMs: 1000 });
    await client.end();
    await dropSchema(schema);
  });

  it('retries a failing job with growing delays until it succeeds, and hands a job that never succeeds back as abandoned', async () => {
    const flaky = await producer.enqueue({ key: 'acme/app#1', payload: { tag: 'flaky', failTimes: 2 } });
    const doomed = await producer.enqueue({ key: 'acme/app#2', payload: { tag: 'doomed', alwaysFail: true } });
    await waitFor('the flaky job to succeed', async () => (await results(`tag = 'flaky' AND event = 'done'`)).length > 0);
    await waitFor('the doomed job to be abandoned', async () => (await results(`tag = 'doomed' AND event = 'abandoned'`)).length > 0);

    const starts = await results(`tag = 'flaky' AND event = 'start'`);
    expect(starts.map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(starts.map((r) => r.previous)).toEqual([null, 'error', 'error']);
    // Backoff: at least retryDelay (1 s) before the 2nd attempt and at least twice that before the 3rd.
    const gap = (a: ResultRow, b: ResultRow) => b.at.getTime() - a.at.getTime();
    expect(gap(starts[0]!, starts[1]!)).toBeGreaterThanOrEqual(1000);
    expect(gap(starts[1]!, starts[2]!)).toBeGreaterThanOrEqual(2000);
    expect(await results(`tag = 'flaky' AND event = 'done'`)).toHaveLength(1);

    const doomedRuns = await results(`tag = 'doomed' AND mode = 'run' AND event = 'error'`);
    expect(doomedRuns.map((r) => r.attempt)).toEqual([1, 2, 3]);
    const abandoned = await results(`tag = 'doomed' AND event = 'abandoned'`);
    expect(abandoned).toHaveLength(1);
    expect(abandoned[0]!.previous).toBe('error');
    expect(await jobStates([flaky.id, doomed.id])).toEqual(
      expect.arrayContaining([
        { id: flaky.id, state: 'completed' },
        { id: doomed.id, state: 'failed' },
      ]),
    );
  });

  it('three pushes to one PR in a row: only the newest runs to the end, the others are closed out, none is retried', async () => {
    const ids: string[] = [];
    for (const tag of ['push 1', 'push 2', 'push 3'])
      ids.push((await producer.enqueue({ key: 'acme/app#7', payload: { tag, sleepMs: 1500 } })).id);
    await waitFor('the newest push to finish', async () => (await results(`tag = 'push 3' AND event = 'done'`)).length > 0);
    await waitFor('all three jobs to be completed', async () => (await jobStates(ids)).every((j) => j.state === 'completed'));
    const rows = await results(`key = 'acme/app#7'`);
    expect(rows.filter((r) => r.event === 'done').map((r) => r.tag)).toEqual(['push 3']);
    for (const tag of ['push 1', 'push 2']) {
      const ends = rows.filter((r) => r.tag === tag && r.event !== 'start').map((r) => r.event);
      // Closed out before it started, or stopped mid-run by the newer push — exactly one of the two.
      expect(ends).toHaveLength(1);
      expect(['superseded', 'aborted:SupersededError']).toContain(ends[0]);
    }
    expect(rows.every((r) => r.attempt === 1)).toBe(true);
  });

  it('a worker killed with SIGKILL mid-job: its job is retried by the other worker, and every job completes exactly once', async () => {
    const [victim] = workers;
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push((await producer.enqueue({ key: `acme/kill#${i}`, payload: { tag: `kill ${i}`, sleepMs: 2500 } })).id);
    let inFlight: ResultRow[] = [];
    await waitFor('the first worker to be in the middle of a job', async () => {
      inFlight = await results(`tag LIKE 'kill %' AND event = 'start' AND pid = $1`, [victim!.proc.pid]);
      return inFlight.length > 0;
    });
    victim!.proc.kill('SIGKILL');
    await waitFor(
      'every job to finish',
      async () => new Set((await results(`tag LIKE 'kill %' AND event = 'done'`)).map((r) => r.tag)).size === 4,
      60_000,
    );
    await waitFor('every job to be completed', async () => (await jobStates(ids)).every((j) => j.state === 'completed'));

    const done = await results(`tag LIKE 'kill %' AND event = 'done'`);
    expect(done.map((r) => r.tag).sort()).toEqual(['kill 0', 'kill 1', 'kill 2', 'kill 3']);
    for (const killed of inFlight) {
      const finish = done.find((r) => r.job_id === killed.job_id)!;
      expect(finish.pid).not.toBe(victim!.proc.pid);
      // At least one retry; on a loaded machine a lease can lapse once more before the survivor finishes it.
      expect(finish.attempt).toBeGreaterThanOrEqual(2);
      expect(finish.previous).toBe('worker-lost');
    }
  });
});
