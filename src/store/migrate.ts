import type { Db } from './db.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

/** Advisory-lock key: every process migrating the same database waits on the same lock. */
const LOCK_NAME = 'slopgate:migrations';

/**
 * Brings the schema up to date. Pending migrations run in one transaction while holding a
 * transaction-scoped advisory lock, so two processes starting at once cannot both apply a migration:
 * the second waits, then sees the versions the first recorded and has nothing left to do.
 * Returns the versions this call applied.
 */
export async function migrate(db: Db, migrations: Migration[] = MIGRATIONS): Promise<number[]> {
  return db.transaction(async (tx) => {
    // hashtext() of the name plus the current schema: separate schemas migrate independently.
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1 || current_schema()))`, [LOCK_NAME]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(rows.map((r) => r.version));
    const applied: number[] = [];
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}
