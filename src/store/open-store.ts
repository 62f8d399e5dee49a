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
  return new Store(await openDb(opts));
}

/** The store the environment asks for: `DATABASE_URL` if set, else PGlite in `dataDir` or memory. */
export function storeOptionsFromEnv(env: NodeJS.ProcessEnv = process.env, dataDir?: string): StoreOptions {
  const url = env.DATABASE_URL?.trim();
  return url ? { url } : dataDir ? { dataDir } : {};
}
