import type { FlakyLookup, KnownFlakyTest } from '../core/ports.js';
import type { Db, Queryable } from './db.js';

/** One rerun that flipped (failed, then passed on the same commit), as the store keeps it. */
export interface FlipEntry {
  repo: string;
  /** The PR the run gated; absent for a run of no PR (the CLI, a merge queue's commit without one). */
  pr?: number;
  /** The flip was seen on a commit the default branch is or becomes (a merge queue's commit). */
  onBase?: boolean;
  runId?: string;
  headSha: string;
  testIds: string[];
  at?: Date;
}

/** Records flips inside an existing transaction (saveRun) or on its own. */
export async function insertFlips(tx: Queryable, e: FlipEntry): Promise<void> {
  const ids = [...new Set(e.testIds)];
  if (ids.length === 0) return;
  await tx.query(
    `INSERT INTO flaky_flips (repo, test_id, pr, on_base, run_id, head_sha, created_at)
     SELECT $1, t, $3::int, $4, $5::uuid, $6, $7 FROM unnest($2::text[]) AS u (t)`,
    [e.repo, ids, e.pr ?? null, e.onBase ?? false, e.runId ?? null, e.headSha, e.at ?? new Date()],
  );
}

export function recordFlips(db: Db, e: FlipEntry): Promise<void> {
  return insertFlips(db, e);
}

interface FlipRow {
  test_id: string;
  flips: number;
  on_base: boolean;
  prs: number[] | null;
  last_at: Date | string;
}

/**
 * Which of `testIds` are known flaky in `repo`: flipped on a base in the window, or on at least
 * `lookup.prs` different PRs in it. The PR being gated does not count for itself (a PR cannot make
 * its own failing test known flaky by pushing again).
 */
export async function knownFlaky(db: Db, repo: string, testIds: string[], lookup: FlakyLookup): Promise<KnownFlakyTest[]> {
  if (testIds.length === 0) return [];
  const now = lookup.now ?? new Date();
  const since = new Date(now.getTime() - lookup.windowDays * 86_400_000);
  const { rows } = await db.query<FlipRow>(
    `SELECT test_id, count(*)::int AS flips, bool_or(on_base) AS on_base,
            array_agg(DISTINCT pr) FILTER (WHERE pr IS NOT NULL) AS prs, max(created_at) AS last_at
       FROM flaky_flips
      WHERE repo = $1 AND test_id = ANY($2) AND created_at >= $3 AND ($4::int IS NULL OR pr IS NULL OR pr <> $4)
      GROUP BY test_id`,
    [repo, testIds, since, lookup.excludePr ?? null],
  );
  return rows.flatMap((r) => {
    const prs = (r.prs ?? []).sort((a, b) => a - b);
    if (!r.on_base && prs.length < lookup.prs) return [];
    return [{ test: r.test_id, basis: r.on_base ? 'base' : 'prs', prs, flips: r.flips, lastAt: new Date(r.last_at).toISOString() }];
  });
}

/** One test of the dashboard's flaky list. */
export interface FlakyTestSummary {
  repo: string;
  test: string;
  flips: number;
  onBase: boolean;
  /** The PRs it flipped on, newest first (at most 5). */
  lastPrs: number[];
  prCount: number;
  lastAt: string;
  /** Known flaky by the default rule (`prs` PRs or a base). */
  known: boolean;
}

/** Every test that flipped in the window, most flips first (the dashboard; `owners` limits it to those accounts' repositories). */
export async function listFlakyTests(
  db: Db,
  opts: { owners?: string[]; windowDays: number; prs: number; now?: Date; limit?: number },
): Promise<FlakyTestSummary[]> {
  const since = new Date((opts.now ?? new Date()).getTime() - opts.windowDays * 86_400_000);
  const { rows } = await db.query<{
    repo: string;
    test_id: string;
    flips: number;
    on_base: boolean;
    prs: number[] | null;
    last_at: Date | string;
  }>(
    `SELECT repo, test_id, count(*)::int AS flips, bool_or(on_base) AS on_base, max(created_at) AS last_at,
            (SELECT array_agg(p ORDER BY at DESC) FROM (
               SELECT pr AS p, max(created_at) AS at FROM flaky_flips g
                WHERE g.repo = f.repo AND g.test_id = f.test_id AND g.pr IS NOT NULL AND g.created_at >= $1 GROUP BY pr) x) AS prs
       FROM flaky_flips f
      WHERE created_at >= $1 ${opts.owners ? "AND lower(split_part(repo, '/', 1)) = ANY($3)" : ''}
      GROUP BY repo, test_id
      ORDER BY flips DESC, last_at DESC
      LIMIT $2`,
    [since, opts.limit ?? 100, ...(opts.owners ? [opts.owners.map((o) => o.toLowerCase())] : [])],
  );
  return rows.map((r) => {
    const prs = r.prs ?? [];
    return {
      repo: r.repo,
      test: r.test_id,
      flips: r.flips,
      onBase: r.on_base,
      lastPrs: prs.slice(0, 5),
      prCount: prs.length,
      lastAt: new Date(r.last_at).toISOString(),
      known: r.on_base || prs.length >= opts.prs,
    };
  });
}
