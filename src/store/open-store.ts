import type { Db } from './db.js';
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
}

function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** Opens the database and brings its schema up to date. */
export async function openDb(opts: StoreOptions = {}): Promise<Db> {
  let db: Db;
  if (opts.url) {
    if (!isPostgresUrl(opts.url)) throw new Error('the database URL must start with postgres:// or postgresql://');
    db = await openPostgres({ url: opts.url, ...(opts.schema ? { schema: opts.schema } : {}), ...(opts.poolSize ? { max: opts.poolSize } : {}) });
  } else {
    db = await openPglite({ ...(opts.dataDir ? { dataDir: opts.dataDir } : {}), ...(opts.schema ? { schema: opts.schema } : {}) });
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
 */
export function lazyDb(opts: StoreOptions, open: (o: StoreOptions) => Promise<Db> = openDb): Db {
  let opening: Promise<Db> | undefined;
  let closed = false;
  const db = (): Promise<Db> => {
    if (closed) return Promise.reject(new Error('the store is closed'));
    opening ??= open(opts).catch((err: unknown) => {
      opening = undefined;
      throw err;
    });
    return opening;
  };
  return {
    dialect: opts.url ? 'postgres' : 'pglite',
    query: async (sql, params) => (await db()).query(sql, params),
    exec: async (sql) => (await db()).exec(sql),
    transaction: async (fn) => (await db()).transaction(fn),
    close: async () => {
      closed = true;
      const pending = opening;
      opening = undefined;
      if (pending) await (await pending.catch(() => undefined))?.close();
    },
  };
}

/** The store the environment asks for: `DATABASE_URL` if set, else PGlite in `dataDir` or memory. */
export function storeOptionsFromEnv(env: NodeJS.ProcessEnv = process.env, dataDir?: string): StoreOptions {
  const url = env.DATABASE_URL?.trim();
  return url ? { url } : dataDir ? { dataDir } : {};
}
