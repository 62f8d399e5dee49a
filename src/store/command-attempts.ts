import type { Db, Queryable } from './db.js';

/** Whose commands are counted together: one user on one pull request. */
export interface CommandScope {
  /** `owner/name`. */
  repo: string;
  pr: number;
  login: string;
}

export interface CommandWindow {
  /** Attempts counted per window. */
  limit: number;
  windowMs: number;
}

/** Rows older than this are deleted whatever their scope (the window is minutes; a day is plenty). */
const KEEP_MS = 24 * 60 * 60 * 1000;

/** Serialises the attempts of one scope across processes (a transaction-scoped advisory lock). */
async function lockScope(tx: Queryable, s: CommandScope): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`slopgate:commands:${s.repo}#${s.pr}@${s.login.toLowerCase()}`]);
}

/**
 * Counts one command attempt of `scope`, unless the scope already has `limit` attempts in the window:
 * then nothing is recorded and null is returned. Returns the attempt's id otherwise.
 */
export async function admitCommand(db: Db, scope: CommandScope, w: CommandWindow, now: Date): Promise<string | null> {
  return db.transaction(async (tx) => {
    await lockScope(tx, scope);
    await tx.query('DELETE FROM command_attempts WHERE at < $1', [new Date(now.getTime() - KEEP_MS)]);
    const since = new Date(now.getTime() - w.windowMs);
    const { rows } = await tx.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM command_attempts WHERE repo = $1 AND pr = $2 AND lower(login) = lower($3) AND at > $4',
      [scope.repo, scope.pr, scope.login, since],
    );
    if ((rows[0]?.n ?? 0) >= w.limit) return null;
    const inserted = await tx.query<{ id: string }>(
      'INSERT INTO command_attempts (repo, pr, login, at) VALUES ($1, $2, $3, $4) RETURNING id::text AS id',
      [scope.repo, scope.pr, scope.login, now],
    );
    return inserted.rows[0]!.id;
  });
}

/**
 * Marks an admitted attempt as answered under `command`, unless the same command of the same scope was
 * answered within the window: then it stays counted, unanswered, and false is returned.
 */
export async function settleCommand(
  db: Db,
  scope: CommandScope,
  id: string,
  command: string,
  w: CommandWindow,
  now: Date,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    await lockScope(tx, scope);
    const since = new Date(now.getTime() - w.windowMs);
    const { rows } = await tx.query(
      `SELECT 1 FROM command_attempts
        WHERE repo = $1 AND pr = $2 AND lower(login) = lower($3) AND command = $4 AND at > $5 AND id <> $6::bigint LIMIT 1`,
      [scope.repo, scope.pr, scope.login, command, since, id],
    );
    if (rows.length) return false;
    await tx.query('UPDATE command_attempts SET command = $1 WHERE id = $2::bigint', [command, id]);
    return true;
  });
}
