import { existsSync } from 'node:fs';
import { rename, stat } from 'node:fs/promises';
import { errorMessage, InputError } from '../core/errors.js';
import type { Db } from './db.js';
import { DEFAULT_LOCK_WAIT_MS, lockFolder } from './folder-lock.js';
import { migrate } from './migrate.js';
import { openPglite } from './pglite-db.js';

/** How the embedded store tells its user what it does: waiting for another process, a database moved aside. */
export type StoreNotice = (message: string, level: 'info' | 'warn') => void;

export interface EmbeddedDbOptions {
  dataDir: string;
  schema?: string;
  /** How long to wait for another process holding the folder (default: SLOPGATE_DB_LOCK_WAIT_SECONDS, else 30 s). */
  lockWaitMs?: number;
  onNotice?: StoreNotice;
}

/** `SLOPGATE_DB_LOCK_WAIT_SECONDS`: how long one process waits for another that holds the embedded database. */
export function lockWaitFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SLOPGATE_DB_LOCK_WAIT_SECONDS?.trim();
  if (!raw) return DEFAULT_LOCK_WAIT_MS;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new InputError(`SLOPGATE_DB_LOCK_WAIT_SECONDS must be a number of seconds, got '${raw}'`, 'use e.g. 30 (the default)');
  }
  return Math.round(seconds * 1000);
}

/**
 * Reads every table once (a damaged page fails the scan) and checks that each sequence still has its
 * catalog row (two processes writing one folder left "cache lookup failed for sequence" behind).
 */
async function healthCheck(db: Db): Promise<void> {
  const orphans = await db.query<{ relname: string }>(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_sequence s ON s.seqrelid = c.oid
     WHERE c.relkind = 'S' AND n.nspname = current_schema() AND s.seqrelid IS NULL`,
  );
  if (orphans.rows.length) throw new Error(`sequence ${orphans.rows[0]!.relname} has lost its catalog entry`);
  const tables = await db.query<{ tablename: string }>(`SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`);
  for (const { tablename } of tables.rows) await db.query(`SELECT count(*)::int AS n FROM "${tablename.replace(/"/g, '""')}"`);
}

async function openChecked(opts: EmbeddedDbOptions): Promise<Db> {
  const db = await openPglite({ dataDir: opts.dataDir, ...(opts.schema ? { schema: opts.schema } : {}) });
  try {
    await migrate(db);
    await healthCheck(db);
    return db;
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}

function firstLine(err: unknown): string {
  return (errorMessage(err).split('\n')[0] ?? '').slice(0, 300);
}

/**
 * The embedded database in `dataDir`, for this process alone: it takes the folder's lock first (waiting,
 * bounded, for another process that holds it; taking over the lock of one that is gone), then opens,
 * migrates and checks the database. A database it cannot open or read is moved aside to
 * `<dataDir>.broken-<time>` and a new one is created, with a warning: it holds a cache and run history,
 * nothing the gate needs to decide correctly, so a damaged one must not stop the gate. The lock is
 * released when the returned Db is closed.
 */
export async function openEmbeddedDb(opts: EmbeddedDbOptions): Promise<Db> {
  const notice = opts.onNotice ?? (() => undefined);
  // A file where the folder should be is a mistaken path, not a damaged database: never moved aside.
  const existing = await stat(opts.dataDir).catch(() => null);
  if (existing && !existing.isDirectory()) {
    throw new InputError(
      `${opts.dataDir} is not a folder: the embedded database keeps its files in a folder of its own`,
      'name a new or existing database folder (or a postgres:// URL)',
    );
  }
  const lock = await lockFolder(opts.dataDir, { waitMs: opts.lockWaitMs ?? lockWaitFromEnv(), onNotice: (m) => notice(m, 'info') });
  try {
    let db: Db;
    try {
      db = await openChecked(opts);
    } catch (err) {
      if (!existsSync(opts.dataDir)) throw err;
      const aside = `${opts.dataDir}.broken-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      await rename(opts.dataDir, aside);
      notice(
        `could not read the database in ${opts.dataDir} (${firstLine(err)}); moved it to ${aside} and started a new one — it held cached test baselines and run history, which start again from empty`,
        'warn',
      );
      try {
        db = await openChecked(opts);
      } catch (again) {
        throw new Error(`cannot create a new database in ${opts.dataDir}: ${firstLine(again)}`);
      }
    }
    const opened = db;
    return {
      dialect: opened.dialect,
      query: (sql, params) => opened.query(sql, params),
      exec: (sql) => opened.exec(sql),
      transaction: (fn) => opened.transaction(fn),
      close: async () => {
        try {
          await opened.close();
        } finally {
          await lock.release();
        }
      },
    };
  } catch (err) {
    await lock.release();
    throw err;
  }
}
