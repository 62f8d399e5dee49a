import type { Db } from './db.js';

/** The refine round of one pull request. A new head SHA does not reset it; `/slopgate reset` does. */
export interface RoundState {
  round: number;
  /** A maintainer's per-PR max rounds (cleared on PASS), or null for the config value. */
  maxRoundsOverride: number | null;
  updatedAt: Date | null;
}

export async function getRound(db: Db, repo: string, pr: number): Promise<RoundState> {
  const { rows } = await db.query<{ round: number; max_rounds_override: number | null; updated_at: Date }>(
    'SELECT round, max_rounds_override, updated_at FROM rounds WHERE repo = $1 AND pr = $2',
    [repo, pr],
  );
  const r = rows[0];
  return r
    ? { round: r.round, maxRoundsOverride: r.max_rounds_override, updatedAt: new Date(r.updated_at) }
    : { round: 1, maxRoundsOverride: null, updatedAt: null };
}

export type AdvanceResult = { advanced: true; round: number } | { advanced: false; round: number; reason: 'round-shifted' };

/**
 * The round-shift guard: moves the PR from `expected` to `expected + 1` only if the stored round is
 * still `expected` (compare-and-set). When two webhooks race, exactly one advances; the other gets
 * `round-shifted` with the current round and should re-read and re-decide instead of advancing twice.
 */
export async function advanceRound(db: Db, repo: string, pr: number, expected: number): Promise<AdvanceResult> {
  const updated = await db.query<{ round: number }>(
    'UPDATE rounds SET round = round + 1, updated_at = now() WHERE repo = $1 AND pr = $2 AND round = $3 RETURNING round',
    [repo, pr, expected],
  );
  if (updated.rows[0]) return { advanced: true, round: updated.rows[0].round };
  if (expected === 1) {
    // No row yet means round 1: the first advance creates the row, once.
    const inserted = await db.query<{ round: number }>(
      'INSERT INTO rounds (repo, pr, round) VALUES ($1, $2, 2) ON CONFLICT (repo, pr) DO NOTHING RETURNING round',
      [repo, pr],
    );
    if (inserted.rows[0]) return { advanced: true, round: inserted.rows[0].round };
  }
  return { advanced: false, round: (await getRound(db, repo, pr)).round, reason: 'round-shifted' };
}

/** Back to round 1 and no override (`/slopgate reset`). */
export async function resetRound(db: Db, repo: string, pr: number): Promise<void> {
  await db.query(
    `INSERT INTO rounds (repo, pr, round, max_rounds_override) VALUES ($1, $2, 1, NULL)
     ON CONFLICT (repo, pr) DO UPDATE SET round = 1, max_rounds_override = NULL, updated_at = now()`,
    [repo, pr],
  );
}

/** Sets (or with null clears) the per-PR max rounds a maintainer granted. */
export async function setMaxRoundsOverride(db: Db, repo: string, pr: number, maxRounds: number | null): Promise<void> {
  if (maxRounds !== null && (!Number.isInteger(maxRounds) || maxRounds < 1 || maxRounds > 100)) {
    throw new Error(`max rounds override must be an integer from 1 to 100, got ${maxRounds}`);
  }
  await db.query(
    `INSERT INTO rounds (repo, pr, round, max_rounds_override) VALUES ($1, $2, 1, $3)
     ON CONFLICT (repo, pr) DO UPDATE SET max_rounds_override = $3, updated_at = now()`,
    [repo, pr, maxRounds],
  );
}
