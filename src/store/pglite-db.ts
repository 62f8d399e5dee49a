import { PGlite, type Transaction } from '@electric-sql/pglite';
import { checkSchemaName, type Db, type Queryable, type QueryResult } from './db.js';

function wrap(conn: PGlite | Transaction): Queryable {
  return {
    async query<T>(sql: string, params: unknown[] = []): Promise<QueryResult<T>> {
      const r = await conn.query<T>(sql, params);
      return { rows: r.rows, affected: r.affectedRows ?? 0 };
    },
    async exec(sql: string): Promise<void> {
      await conn.exec(sql);
    },
  };
}

/**
 * PGlite's own start parameters plus a smaller buffer cache. slopgate's tables are small (runs,
 * findings, baselines); PostgreSQL's default 128 MB of shared buffers, allocated inside the WASM
 * heap, roughly doubles the process's memory for no gain (measured by `npm run bench`).
 */
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/**
 * The embedded database: PostgreSQL compiled to WASM, running in this process. With a directory it
 * persists there; without one it lives in memory and is gone when the process exits. PGlite has a
 * single connection, so concurrent callers are serialised by PGlite itself (transactions included).
 */
export async function openPglite(opts: { dataDir?: string; schema?: string } = {}): Promise<Db> {
  const pg = await PGlite.create({ ...(opts.dataDir ? { dataDir: opts.dataDir } : {}), startParams: START_PARAMS });
  if (opts.schema) {
    const schema = checkSchemaName(opts.schema);
    await pg.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}; SET search_path TO ${schema}`);
  }
  const base = wrap(pg);
  return {
    dialect: 'pglite',
    query: base.query,
    exec: base.exec,
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    close: () => pg.close(),
  };
}
