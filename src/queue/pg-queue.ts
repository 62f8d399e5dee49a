import { randomBytes, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { errorMessage } from '../core/errors.js';
import { isRecord } from '../core/is-record.js';
import { silentLogger, type Logger } from '../core/trace.js';
import { checkSchemaName } from '../store/db.js';
import { withPgTransaction } from '../store/pg-db.js';
import { queueSql, queueTablesSql } from './pg-queue-schema.js';
import { settlesWithin, sleep } from './sleep.js';
import {
  LeaseLostError,
  ShutdownError,
  SupersededError,
  type EnqueueRequest,
  type JobHandler,
  type JobQueue,
  type PreviousAttempt,
  type QueueJob,
  type QueueStats,
} from './types.js';

export interface PgQueueOptions {
  /** `postgres://…` — the same database every worker and the App use. */
  url: string;
  /** Schema of pg-boss's and slopgate's queue tables (default `slopgate_queue`). */
  schema?: string;
  /** pg-boss queue name (default `slopgate_gate`; letters, digits, underscores). */
  queueName?: string;
  /** Jobs this process runs at once (default 2). */
  concurrency?: number;
  /** Retries after a failed attempt (default 2, so 3 attempts). */
  retryLimit?: number;
  /** First retry delay in seconds (default 15); doubled per retry with jitter when backoff is on. */
  retryDelaySec?: number;
  retryBackoff?: boolean;
  /** Hard cap on one attempt, heartbeat or not (default 4 h; pg-boss allows < 24 h). */
  expireInSeconds?: number;
  /** A worker silent for this long is presumed dead and its jobs are retried (default 60 s). */
  leaseSeconds?: number;
  /** Heartbeat and supersede-check period (default 5 s). */
  heartbeatMs?: number;
  /** Idle polling period (default 1 s). */
  pollMs?: number;
  /** pg-boss maintenance period (default 60 s). */
  maintenanceIntervalSeconds?: number;
  log?: Logger;
}

/** What a job row carries in pg-boss's `data` column. */
interface JobData<P> {
  key: string;
  seq: number;
  payload: P;
}

interface ActiveJob {
  key: string;
  seq: number;
  controller: AbortController;
}

type BossJob<P> = PgBoss.JobWithMetadata<JobData<P>>;

/**
 * The durable queue: jobs live in PostgreSQL (pg-boss), so any number of `slopgate worker` processes on
 * any number of machines share them. Per-PR coalescing uses a sequence per key (newest wins; older
 * queued jobs are closed out as superseded, a running one is aborted within one heartbeat). Failed
 * attempts are retried with exponential backoff; a worker that stops heartbeating loses its jobs to
 * the others; jobs that fail for good are handed back once as `abandoned` (via a dead-letter queue).
 */
export class PgQueue<P = unknown> implements JobQueue<P> {
  readonly kind = 'postgres';
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly o: Required<Omit<PgQueueOptions, 'log'>>;
  private readonly log: Logger;
  private readonly sql: ReturnType<typeof queueSql>;
  private readonly dead: string;
  private readonly boss: PgBoss;
  private readonly pool: pg.Pool;
  private started: Promise<void> | undefined;
  private handler: JobHandler<P> | undefined;
  private readonly active = new Map<string, ActiveJob>();
  private readonly tasks = new Set<Promise<void>>();
  private readonly loops: Promise<void>[] = [];
  private readonly stopSignal = new AbortController();
  private timers: NodeJS.Timeout[] = [];

  constructor(opts: PgQueueOptions) {
    this.o = {
      url: opts.url,
      schema: checkSchemaName(opts.schema ?? 'slopgate_queue'),
      queueName: opts.queueName ?? 'slopgate_gate',
      concurrency: Math.max(1, Math.floor(opts.concurrency ?? 2)),
      retryLimit: opts.retryLimit ?? 2,
      retryDelaySec: opts.retryDelaySec ?? 15,
      retryBackoff: opts.retryBackoff ?? true,
      expireInSeconds: opts.expireInSeconds ?? 4 * 3600,
      leaseSeconds: opts.leaseSeconds ?? 60,
      heartbeatMs: opts.heartbeatMs ?? 5000,
      pollMs: Math.max(100, opts.pollMs ?? 1000),
      maintenanceIntervalSeconds: opts.maintenanceIntervalSeconds ?? 60,
    };
    this.log = opts.log ?? silentLogger;
    this.sql = queueSql(this.o.schema);
    this.dead = `${this.o.queueName}_dead`;
    this.boss = new PgBoss({
      connectionString: this.o.url,
      schema: this.o.schema,
      max: 4,
      application_name: 'slopgate-queue',
      schedule: false,
      supervise: true,
      migrate: true,
      maintenanceIntervalSeconds: this.o.maintenanceIntervalSeconds,
    });
    this.boss.on('error', (err) => this.log.warn({ err: errorMessage(err) }, 'queue: pg-boss error'));
    this.pool = new pg.Pool({ connectionString: this.o.url, max: 3, application_name: 'slopgate-queue' });
    this.pool.on('error', () => undefined);
  }

  async stats(): Promise<QueueStats> {
    const { rows } = await this.pool.query<{ pending: number; running: number; oldest: Date | null; workers: number }>(this.sql.stats, [
      this.o.queueName,
    ]);
    const r = rows[0];
    return {
      pending: r?.pending ?? 0,
      running: r?.running ?? 0,
      oldestPendingAt: r?.oldest ? new Date(r.oldest) : null,
      concurrency: this.o.concurrency,
      workers: r?.workers ?? 0,
    };
  }

  /** Installs pg-boss's schema, the two queues and slopgate's tables (idempotent, safe in parallel). */
  start(): Promise<void> {
    this.started ??= (async () => {
      await this.boss.start();
      const retry = {
        retryLimit: this.o.retryLimit,
        retryDelay: this.o.retryDelaySec,
        retryBackoff: this.o.retryBackoff,
        expireInSeconds: this.o.expireInSeconds,
      };
      await this.inTransaction(async (client) => {
        await client.query(this.sql.lockSetup);
        await client.query(queueTablesSql(this.o.schema));
      });
      await this.withSetupLock(() =>
        this.boss.createQueue(this.dead, { name: this.dead, policy: 'standard', retryLimit: 1, retryDelay: this.o.retryDelaySec }),
      );
      await this.withSetupLock(() =>
        this.boss.createQueue(this.o.queueName, { name: this.o.queueName, policy: 'standard', deadLetter: this.dead, ...retry }),
      );
      await this.boss.updateQueue(this.o.queueName, { name: this.o.queueName, policy: 'standard', deadLetter: this.dead, ...retry });
    })().catch((err: unknown) => {
      this.started = undefined; // let the next call try again (e.g. the database was still starting)
      throw err;
    });
    return this.started;
  }

  async enqueue(req: EnqueueRequest<P>): Promise<{ id: string }> {
    if (!req.key) throw new Error('a job needs a key (owner/name#pr)');
    if (this.stopSignal.signal.aborted) throw new Error('the queue is stopping and takes no new jobs');
    await this.start();
    // The key row stays locked until commit, so jobs of one key get sequence numbers in insert order.
    return this.inTransaction(async (client) => {
      const { rows } = await client.query<{ seq: number }>(this.sql.bumpKey, [req.key]);
      const data: JobData<P> = { key: req.key, seq: rows[0]!.seq, payload: req.payload };
      const id = randomUUID();
      // cast: library typing gap: pg-boss types the payload as object
      await this.boss.send(this.o.queueName, data as object, {
        id,
        singletonKey: req.key,
        db: { executeSql: (text, values) => client.query(text, values) },
      });
      await client.query(this.sql.setKeyJob, [req.key, id]);
      return { id };
    });
  }

  async process(handler: JobHandler<P>): Promise<void> {
    if (this.handler) throw new Error('process() was already called on this queue');
    this.handler = handler;
    await this.start();
    for (let i = 0; i < this.o.concurrency; i++) this.loops.push(this.fetchLoop(this.o.queueName, handler));
    this.loops.push(this.fetchLoop(this.dead, handler));
    this.timers.push(setInterval(() => void this.heartbeat(), this.o.heartbeatMs));
    this.timers.push(setInterval(() => void this.reap(), Math.max(500, Math.min(this.o.heartbeatMs, (this.o.leaseSeconds * 1000) / 2))));
  }

  async stop(opts: { graceMs?: number } = {}): Promise<void> {
    const graceMs = opts.graceMs ?? 30_000;
    this.stopSignal.abort();
    if (!(await settlesWithin(Promise.all([...this.tasks]), graceMs))) {
      for (const a of this.active.values()) a.controller.abort(new ShutdownError());
      await settlesWithin(Promise.all([...this.tasks]), Math.max(2000, graceMs));
    }
    for (const t of this.timers) clearInterval(t);
    await settlesWithin(Promise.all(this.loops), 5000);
    if (this.started) await this.started.catch(() => undefined);
    await this.boss.stop({ graceful: false, close: true, wait: true }).catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }

  private async withSetupLock(fn: () => Promise<void>): Promise<void> {
    // pg-boss creates a partition per queue; two processes doing it at once can collide on the DDL.
    for (let attempt = 1; ; attempt++) {
      try {
        await fn();
        return;
      } catch (err) {
        if (attempt >= 5) throw err;
        await sleep(100 * attempt);
      }
    }
  }

  private inTransaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return withPgTransaction(this.pool, fn);
  }

  private async fetchLoop(queue: string, handler: JobHandler<P>): Promise<void> {
    const stop = this.stopSignal.signal;
    while (!stop.aborted) {
      let jobs: BossJob<P>[];
      try {
        jobs = await this.boss.fetch<JobData<P>>(queue, { batchSize: 1, includeMetadata: true });
      } catch (err) {
        this.log.warn({ queue, err: errorMessage(err) }, 'queue: fetch failed');
        await sleep(this.o.pollMs * 5, stop);
        continue;
      }
      const job = jobs[0];
      if (!job) {
        await sleep(this.o.pollMs, stop);
        continue;
      }
      const task = this.runJob(queue, job, handler);
      this.tasks.add(task);
      await task.finally(() => this.tasks.delete(task));
    }
  }

  private toQueueJob(queue: string, job: BossJob<P>): QueueJob<P> {
    const previous = previousAttempt(job.output);
    const dead = queue === this.dead;
    return {
      id: job.id,
      key: job.data.key,
      payload: job.data.payload,
      mode: dead ? 'abandoned' : 'run',
      attempt: dead ? this.o.retryLimit + 1 : job.retryCount + 1,
      maxAttempts: this.o.retryLimit + 1,
      ...(previous && (dead || job.retryCount > 0) ? { previous } : {}),
    };
  }

  private async runJob(queue: string, job: BossJob<P>, handler: JobHandler<P>): Promise<void> {
    const qjob = this.toQueueJob(queue, job);
    try {
      await this.pool.query(this.sql.claim, [job.id, this.workerId]);
      const latest = (await this.pool.query<{ seq: number; job_id: string }>(this.sql.latestForKeys, [[qjob.key]])).rows[0];
      if (latest && latest.seq > job.data.seq) {
        // A newer push for this PR is queued or done: close this one out instead of running it.
        const controller = new AbortController();
        controller.abort(new SupersededError(latest.job_id));
        await handler({ ...qjob, mode: 'superseded', supersededBy: latest.job_id }, controller.signal).catch((err: unknown) =>
          this.log.warn({ jobId: job.id, err: errorMessage(err) }, 'queue: closing out a superseded job failed'),
        );
        await this.finish(queue, job.id, 'complete', { superseded: latest.job_id });
        return;
      }
    } catch (err) {
      this.log.warn({ jobId: job.id, err: errorMessage(err) }, 'queue: could not start a job; it will be retried');
      await this.finish(queue, job.id, 'fail', { reason: 'error', message: errorMessage(err) }).catch(() => undefined);
      return;
    }
    const controller = new AbortController();
    this.active.set(job.id, { key: qjob.key, seq: job.data.seq, controller });
    try {
      await handler(qjob, controller.signal);
      await this.finish(
        queue,
        job.id,
        'complete',
        controller.signal.reason instanceof SupersededError ? { superseded: controller.signal.reason.by } : { ok: true },
      );
    } catch (err) {
      const reason: unknown = controller.signal.reason;
      if (reason instanceof SupersededError) await this.finish(queue, job.id, 'complete', { superseded: reason.by });
      else if (reason instanceof LeaseLostError) this.log.warn({ jobId: job.id }, 'queue: lost the lease; another worker owns the job now');
      else {
        const shutdown = reason instanceof ShutdownError;
        this.log.warn(
          { jobId: job.id, key: qjob.key, attempt: qjob.attempt, err: errorMessage(err) },
          shutdown ? 'queue: job interrupted by shutdown' : 'queue: job failed',
        );
        await this.finish(
          queue,
          job.id,
          'fail',
          shutdown ? { reason: 'shutdown', worker: this.workerId } : { reason: 'error', message: errorMessage(err), worker: this.workerId },
        );
      }
    } finally {
      this.active.delete(job.id);
    }
  }

  /**
   * Completes or fails a job only while this worker still holds its lease. The lease row is locked
   * first, the same order the reaper uses, so a reaper and a finishing worker never both act on a job.
   */
  private async finish(queue: string, jobId: string, how: 'complete' | 'fail', data: object): Promise<void> {
    await this.inTransaction(async (client) => {
      const own = await client.query(this.sql.lockOwnLease, [jobId, this.workerId]);
      if (own.rowCount === 0) return;
      const db = { executeSql: (text: string, values: unknown[]) => client.query(text, values) };
      if (how === 'complete') await this.boss.complete(queue, jobId, data, { db });
      else await this.boss.fail(queue, jobId, data, { db });
      await client.query(this.sql.dropLease, [jobId]);
    }).catch((err: unknown) => this.log.warn({ jobId, err: errorMessage(err) }, `queue: could not ${how} a job`));
  }

  /** Renews leases and aborts jobs that were superseded or taken over elsewhere. */
  private async heartbeat(): Promise<void> {
    if (this.active.size === 0) return;
    const ids = [...this.active.keys()];
    try {
      const held = new Set((await this.pool.query<{ job_id: string }>(this.sql.heartbeat, [this.workerId, ids])).rows.map((r) => r.job_id));
      const keys = [...new Set([...this.active.values()].map((a) => a.key))];
      const latest = new Map(
        (await this.pool.query<{ key: string; seq: number; job_id: string }>(this.sql.latestForKeys, [keys])).rows.map((r) => [r.key, r]),
      );
      for (const [id, a] of this.active) {
        if (a.controller.signal.aborted) continue;
        const newest = latest.get(a.key);
        if (newest && newest.seq > a.seq) a.controller.abort(new SupersededError(newest.job_id));
        else if (!held.has(id)) a.controller.abort(new LeaseLostError());
      }
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'queue: heartbeat failed');
    }
  }

  /** Fails the active jobs of workers that stopped heartbeating, so pg-boss retries them. One reaper at a time. */
  private async reap(): Promise<void> {
    if (this.stopSignal.signal.aborted) return;
    try {
      await this.inTransaction(async (client) => {
        const { rows } = await client.query<{ locked: boolean }>(this.sql.tryLockReaper);
        if (!rows[0]?.locked) return;
        const stale = (await client.query<{ job_id: string; worker_id: string }>(this.sql.reapStaleLeases, [this.o.leaseSeconds])).rows;
        const staleWorker = new Map(stale.map((r) => [r.job_id, r.worker_id]));
        const active = stale.length
          ? (await client.query<{ id: string; name: string }>(this.sql.activeByIds, [[...staleWorker.keys()]])).rows
          : [];
        const orphans = (
          await client.query<{ id: string; name: string }>(this.sql.orphans, [[this.o.queueName, this.dead], this.o.leaseSeconds])
        ).rows;
        const db = { executeSql: (text: string, values: unknown[]) => client.query(text, values) };
        for (const j of [...active, ...orphans]) {
          const worker = staleWorker.get(j.id);
          this.log.warn({ jobId: j.id, worker }, 'queue: a worker stopped heartbeating; retrying its job');
          await this.boss.fail(
            j.name,
            j.id,
            { reason: 'worker-lost', message: 'the worker running this job stopped responding', ...(worker ? { worker } : {}) },
            { db },
          );
        }
      });
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'queue: reaper failed');
    }
  }
}

/** Reads why the previous attempt ended from `o`, the job's output column (JSON that pg-boss stores). */
function previousAttempt(o: unknown): PreviousAttempt | undefined {
  if (!isRecord(o)) return undefined;
  if (o.reason === 'error' || o.reason === 'worker-lost' || o.reason === 'shutdown') {
    return {
      reason: o.reason,
      ...(typeof o.message === 'string' ? { message: o.message } : {}),
      ...(typeof o.worker === 'string' ? { worker: o.worker } : {}),
    };
  }
  const value = o.value;
  if (isRecord(value) && typeof value.message === 'string' && value.message.includes('timeout'))
    return { reason: 'expired', message: value.message };
  return undefined;
}
