import pg from 'pg';
import { checkSchemaName, type Db, type Queryable, type QueryResult } from './db.js';

function wrap(conn: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T>(sql: string, params: unknown[] = []): Promise<QueryResult<T>> {
      const r = await conn.query(sql, params);
      return { rows: r.rows as T[], affected: r.rowCount ?? 0 }; // cast: I/O boundary: rows are what the caller selected
    },
    async exec(sql: string): Promise<void> {
      await conn.query(sql);
    },
  };
}

/** Runs `fn` inside BEGIN/COMMIT on one pooled connection; rolls back and rethrows on error. */
export async function withPgTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

export interface PgOptions {
  url: string;
  /** Tables live in this schema (search_path) instead of `public`; created when missing. */
  schema?: string;
  /** Pool size (default 10). */
  max?: number;
}

/** A PostgreSQL server through a `pg` connection pool (`DATABASE_URL`). */
export async function openPostgres(opts: PgOptions): Promise<Db> {
  const schema = opts.schema ? checkSchemaName(opts.schema) : undefined;
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max ?? 10,
    application_name: 'slopgate',
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client that loses its connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const base = wrap(pool);
  const db: Db = {
    dialect: 'postgres',
    query: (sql, params) => base.query(sql, params),
    exec: (sql) => base.exec(sql),
    transaction: (fn) => withPgTransaction(pool, (client) => fn(wrap(client))),
    close: () => pool.end(),
  };
  if (schema) await db.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}`).catch(ignoreDuplicateSchema);
  return db;
}

/** Two processes creating the same schema at once: the loser gets a unique violation; the schema exists. */
function ignoreDuplicateSchema(err: unknown): void {
  const code = (err as { code?: string }).code; // cast: I/O boundary: a Node error carries an errno-style code
  if (code !== '23505' && code !== '42P06') throw err;
}
