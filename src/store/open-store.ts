import { InputError } from '../core/errors.js';
import type { Db } from './db.js';
import { openEmbeddedDb, type StoreNotice } from './embedded-db.js';
import { migrate } from './migrate.js';
import { openPglite } from './pglite-db.js';
import { openPostgres } from './pg-db.js';
import { Store } from './store.js';

export interface StoreOptions {
  /** `postgres://…` (a shared server, e.g. `DATABASE_URL`). Takes precedence over `dataDir`. */
  url?: string;
  /** PGlite data directory. Without `url` and `dataDir` the store lives in memory. */
  dataDir?: string;
  /** Keep the tables in this schema instead of the default (tests, several deployments on one server). */
  schema?: string;
  /** Connection pool size for PostgreSQL (default 10). */
  poolSize?: number;
  /**
   * Open the database on its first query instead of now (the App's embedded PGlite: it costs several
   * hundred MB of memory, which an App that has not received a pull request yet need not pay).
   */
  lazy?: boolean;
  /** With `lazy`: close the database again after this long without a query, reopen on the next one. */
  idleCloseMs?: number;
  /** PGlite in `dataDir`: how long to wait for another process holding the folder (default 30 s, or SLOPGATE_DB_LOCK_WAIT_SECONDS). */
  lockWaitMs?: number;
  /** PGlite in `dataDir`: told when the store waits for another process or moves a damaged database aside. */
  onNotice?: StoreNotice;
}

function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** Opens the database and brings its schema up to date. */
export async function openDb(opts: StoreOptions = {}): Promise<Db> {
  let db: Db;
  if (opts.url) {
    if (!isPostgresUrl(opts.url)) throw new Error('the database URL must start with postgres:// or postgresql://');
    db = await openPostgres({
      url: opts.url,
      ...(opts.schema ? { schema: opts.schema } : {}),
      ...(opts.poolSize ? { max: opts.poolSize } : {}),
    });
  } else if (opts.dataDir) {
    // Locked for this process, migrated and checked (a damaged database is moved aside): see embedded-db.ts.
    return openEmbeddedDb({
      dataDir: opts.dataDir,
      ...(opts.schema ? { schema: opts.schema } : {}),
      ...(opts.lockWaitMs !== undefined ? { lockWaitMs: opts.lockWaitMs } : {}),
      ...(opts.onNotice ? { onNotice: opts.onNotice } : {}),
    });
  } else {
    db = await openPglite(opts.schema ? { schema: opts.schema } : {});
  }
  try {
    await migrate(db);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return db;
}

/**
 * Opens the store: PostgreSQL when `url` is given, else PGlite in `dataDir`, else PGlite in memory.
 * Migrations run before it is returned.
 */
export async function openStore(opts: StoreOptions = {}): Promise<Store> {
  return new Store(opts.lazy ? lazyDb(opts) : await openDb(opts));
}

/**
 * A Db that opens (and migrates) the real one on its first query. Concurrent first callers share one
 * open; a failed open is not remembered, so the next query tries again and reports its own error.
 * Closing a Db that was never opened does nothing.
 *
 * With `idleCloseMs`, the real database is also closed again once no query or transaction has run for
 * that long, and reopened by the next one (the embedded PGlite holds its WASM heap only while open; its
 * data directory keeps every committed row). A query that arrives while the idle close is under way
 * waits for it to finish and then reopens; nothing is closed while a query or transaction is running.
 */
export function lazyDb(opts: StoreOptions, open: (o: StoreOptions) => Promise<Db> = openDb): Db {
  let opening: Promise<Db> | undefined;
  let closing: Promise<void> | undefined;
  let closed = false;
  let inflight = 0;
  let timer: NodeJS.Timeout | undefined;
  const idleMs = opts.idleCloseMs;

  const closeReal = (): Promise<void> => {
    const pending = opening;
    opening = undefined;
    const done = (async () => {
      if (pending) await (await pending.catch(() => undefined))?.close();
    })().finally(() => {
      if (closing === done) closing = undefined;
    });
    closing = done;
    return done;
  };
  const onIdle = () => {
    timer = undefined;
    if (inflight > 0 || closed || !opening) return;
    void closeReal().catch(() => undefined);
  };
  const acquire = async (): Promise<Db> => {
    const isClosed = (): boolean => closed; // read again after the wait: close() may have run meanwhile
    if (isClosed()) throw new Error('the store is closed');
    while (closing) await closing.catch(() => undefined);
    if (isClosed()) throw new Error('the store is closed');
    opening ??= open(opts).catch((err: unknown) => {
      opening = undefined;
      throw err;
    });
    return opening;
  };
  const use = async <T>(fn: (db: Db) => Promise<T>): Promise<T> => {
    inflight++;
    if (timer) clearTimeout(timer);
    timer = undefined;
    try {
      return await fn(await acquire());
    } finally {
      inflight--;
      if (inflight === 0 && idleMs !== undefined && !closed) {
        timer = setTimeout(onIdle, idleMs);
        timer.unref();
      }
    }
  };
  return {
    dialect: opts.url ? 'postgres' : 'pglite',
    query: (sql, params) => use((db) => db.query(sql, params)),
    exec: (sql) => use((db) => db.exec(sql)),
    transaction: (fn) => use((db) => db.transaction(fn)),
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      // An idle close still under way must finish too before the caller (e.g. a shutdown) goes on.
      const idleClosing = closing;
      await closeReal();
      await idleClosing?.catch(() => undefined);
    },
  };
}

/** How long the App keeps an idle embedded database open (`SLOPGATE_DB_IDLE_SECONDS`, 0 = never close). */
export const DEFAULT_DB_IDLE_SECONDS = 300;

/**
 * The store the environment asks for: `DATABASE_URL` if set, else PGlite in `dataDir` or memory. The
 * embedded database gets an idle close after `SLOPGATE_DB_IDLE_SECONDS` (default 300; used when it is
 * opened lazily, as the App does).
 */
export function storeOptionsFromEnv(env: NodeJS.ProcessEnv = process.env, dataDir?: string): StoreOptions {
  const url = env.DATABASE_URL?.trim();
  if (url) return { url };
  if (!dataDir) return {};
  const raw = env.SLOPGATE_DB_IDLE_SECONDS?.trim();
  const seconds = raw ? Number(raw) : DEFAULT_DB_IDLE_SECONDS;
  if (!Number.isFinite(seconds) || seconds < 0) {
    const hint = 'use e.g. 300 (the default), or 0 to keep the embedded database open';
    throw new InputError(`SLOPGATE_DB_IDLE_SECONDS must be a number of seconds, got '${raw}'`, hint);
  }
  return seconds > 0 ? { dataDir, idleCloseMs: Math.round(seconds * 1000) } : { dataDir };
}
