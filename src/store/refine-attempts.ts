import { z } from 'zod';
import { parseJsonAs, shapedAs } from '../core/parse-data.js';
import type { RefineAttempt } from '../refiner/attempt.js';
import type { GuardVerdict } from '../refiner/verdict.js';
import type { Db } from './db.js';
import type { HistoryExclusions, Hotspot } from '../core/ports.js';
import { findHotspots } from './history.js';

/** Where an attempt belongs: the repository, the PR (none from the CLI), the round and the head it refined. */
export interface RefineAttemptScope {
  repo: string;
  pr?: number;
  round: number;
  headSha: string;
}

export interface StoredRefineAttempt extends RefineAttempt {
  repo: string;
  pr: number | null;
  round: number;
  headSha: string;
  createdAt: string;
}

const MAX_REASON = 2000;

export async function recordRefineAttempt(db: Db, scope: RefineAttemptScope, a: RefineAttempt): Promise<void> {
  await db.query(
    `INSERT INTO refine_attempts (repo, pr, round, head_sha, attempt, source, outcome, reason, paths, targets, fixed, verdicts,
                                  prompt_tokens, completion_tokens, candidate_sha, duration_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb, $11::jsonb, $12::jsonb, $13, $14, $15, $16)`,
    [
      scope.repo,
      scope.pr ?? null,
      scope.round,
      scope.headSha,
      a.n,
      a.source,
      a.outcome,
      a.reason?.slice(0, MAX_REASON) ?? null,
      JSON.stringify(a.paths),
      JSON.stringify(a.targets),
      JSON.stringify(a.fixed),
      JSON.stringify(a.verdicts),
      a.tokens.prompt,
      a.tokens.completion,
      a.candidateSha ?? null,
      Math.round(a.ms),
    ],
  );
}

interface AttemptRow {
  repo: string;
  pr: number | null;
  round: number;
  head_sha: string;
  attempt: number;
  source: string;
  outcome: RefineAttempt['outcome'];
  reason: string | null;
  /** JSON columns: read through {@link column}. */
  paths: unknown;
  targets: unknown;
  fixed: unknown;
  verdicts: unknown;
  prompt_tokens: number;
  completion_tokens: number;
  candidate_sha: string | null;
  duration_ms: number;
  created_at: Date;
}

const pathList = z.array(z.string());
const verdictList = z.array(
  z.object({
    guard: z.string(),
    status: z.enum(['pass', 'fail', 'skipped', 'error']),
    newFindings: z.number(),
    message: z.string().optional(),
  }),
) satisfies z.ZodType<GuardVerdict[]>;

/**
 * A JSON column checked against its schema. Both adapters return it parsed; a string (older drivers) is
 * parsed here. A row that does not match (edited by hand, written by another version) throws naming the column.
 */
function column<T>(schema: z.ZodType<T>, value: unknown, name: string): T {
  const what = `the ${name} column of a refine_attempts row`;
  return typeof value === 'string' ? parseJsonAs(schema, value, what) : shapedAs(schema, value, what);
}

/** A PR's attempts (all repository attempts without a PR when `pr` is null), oldest first. */
export async function listRefineAttempts(db: Db, repo: string, pr: number | null, limit = 100): Promise<StoredRefineAttempt[]> {
  const { rows } = await db.query<AttemptRow>(
    `SELECT * FROM (
       SELECT * FROM refine_attempts WHERE repo = $1 AND (($2::int IS NULL AND pr IS NULL) OR pr = $2::int)
        ORDER BY created_at DESC, id DESC LIMIT $3
     ) newest ORDER BY created_at, id`,
    [repo, pr, limit],
  );
  return rows.map((r) => ({
    repo: r.repo,
    pr: r.pr,
    round: r.round,
    headSha: r.head_sha,
    n: r.attempt,
    source: r.source,
    outcome: r.outcome,
    ...(r.reason ? { reason: r.reason } : {}),
    paths: column(pathList, r.paths, 'paths'),
    targets: column(pathList, r.targets, 'targets'),
    fixed: column(pathList, r.fixed, 'fixed'),
    verdicts: column(verdictList, r.verdicts, 'verdicts'),
    tokens: { prompt: r.prompt_tokens, completion: r.completion_tokens },
    ...(r.candidate_sha ? { candidateSha: r.candidate_sha } : {}),
    ms: r.duration_ms,
    createdAt: new Date(r.created_at).toISOString(),
  }));
}

/**
 * Paths among `paths` whose refine attempts were reverted at least `threshold` times within the window:
 * the refiner keeps failing there, which is failure history just as a failing gate run is.
 */
export async function revertedHotspots(
  db: Db,
  repo: string,
  paths: string[],
  windowDays: number,
  threshold: number,
  exclude: HistoryExclusions = {},
): Promise<Hotspot[]> {
  const wanted = [...new Set(paths)].slice(0, 5000);
  if (wanted.length === 0) return [];
  const since = new Date((exclude.now ?? new Date()).getTime() - windowDays * 86_400_000);
  const { rows } = await db.query<{ path: string; n: number; last: Date; pr: number | null; head_sha: string }>(
    `SELECT p.path, count(*)::int AS n, max(a.created_at) AS last,
            (array_agg(a.pr ORDER BY a.created_at DESC))[1] AS pr,
            (array_agg(a.head_sha ORDER BY a.created_at DESC))[1] AS head_sha
       FROM refine_attempts a, jsonb_array_elements_text(a.paths) AS p(path)
      WHERE a.repo = $1 AND a.outcome = 'reverted' AND a.created_at >= $2 AND p.path = ANY($3::text[])
        AND ($4::int IS NULL OR a.pr IS NULL OR a.pr <> $4)
      GROUP BY p.path
     HAVING count(*) >= $5`,
    [repo, since, wanted, exclude.pr ?? null, threshold],
  );
  return rows.map((r) => {
    const at = new Date(r.last).toISOString();
    return {
      path: r.path,
      runs: r.n,
      failures: r.n,
      guards: ['refiner'],
      categories: ['refine-reverted'],
      lastRuns: [{ runId: '', pr: r.pr, headSha: r.head_sha, at }],
      lastFailedAt: at,
    };
  });
}

/** Gate-run hotspots and refine-revert hotspots as one list (a path in both adds its counts). */
export function mergeHotspots(gate: Hotspot[], reverts: Hotspot[]): Hotspot[] {
  const byPath = new Map(gate.map((h) => [h.path, { ...h }]));
  for (const r of reverts) {
    const g = byPath.get(r.path);
    if (!g) byPath.set(r.path, r);
    else {
      g.runs += r.runs;
      g.failures += r.failures;
      g.guards = [...g.guards, ...r.guards];
      g.categories = [...g.categories, ...r.categories];
    }
  }
  return [...byPath.values()].sort((a, b) => b.runs - a.runs || a.path.localeCompare(b.path));
}

/**
 * G9's history with the refiner's reverts counted: a path is a hotspot when its failing gate runs plus
 * its reverted refine attempts in the window reach the threshold.
 */
export async function hotspotsWithReverts(
  db: Db,
  repo: string,
  paths: string[],
  windowDays: number,
  threshold: number,
  exclude: HistoryExclusions = {},
): Promise<Hotspot[]> {
  const [gate, reverts] = await Promise.all([
    findHotspots(db, repo, paths, windowDays, 1, exclude),
    revertedHotspots(db, repo, paths, windowDays, 1, exclude),
  ]);
  return mergeHotspots(gate, reverts).filter((h) => h.runs >= threshold);
}
