/**
 * The one database interface the rest of slopgate talks to. Both adapters speak PostgreSQL: PGlite
 * (embedded, in-process) and a PostgreSQL server through `pg`. Callers write plain PostgreSQL and stay
 * unaware of which one is behind it.
 *
 * Conventions that keep the two adapters interchangeable:
 * - pass JSON as a string and cast it (`$1::jsonb`); pass arrays only to `= ANY($n)`;
 * - cast counts and other int8 results to `int` in SQL (`count(*)::int`), since `pg` returns int8 as a string.
 */
export interface QueryResult<T> {
  rows: T[];
  /** Rows inserted, updated or deleted by the statement. */
  affected: number;
}

export interface Queryable {
  /** One statement with `$1…$n` parameters. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
  /** A script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly dialect: 'pglite' | 'postgres';
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** Validates a schema name before it is spliced into SQL (it cannot be a bound parameter). */
export function checkSchemaName(name: string): string {
  if (!IDENTIFIER.test(name)) {
    throw new Error(`invalid schema name '${name}': use lower-case letters, digits and underscores (max 63)`);
  }
  return name;
}
