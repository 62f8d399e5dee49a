import type { HistoryExclusions, Hotspot } from '../core/ports.js';
import type { Db } from './db.js';

/** Upper bound on rows read per lookup (newest first): enough for any realistic window. */
const MAX_ROWS = 20_000;
const MAX_PATHS = 5_000;

interface FailureRow {
  path: string;
  run_id: string;
  pr: number | null;
  head_sha: string;
  guard: string;
  category: string;
  created_at: Date;
}

function byCount(counts: Map<string, number>): string[] {
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k]) => k);
}

/**
 * Paths among `paths` that failed guards in at least `threshold` separate runs of `repo` within the
 * last `windowDays` days. Runs on the same head commit count once (re-checking a commit is not new
 * evidence), and the excluded run, commit and PR do not count at all. Used by G9 and, to skip such
 * paths, by the refiner.
 */
export async function findHotspots(
  db: Db,
  repo: string,
  paths: string[],
  windowDays: number,
  threshold: number,
  exclude: HistoryExclusions = {},
): Promise<Hotspot[]> {
  const wanted = [...new Set(paths)].slice(0, MAX_PATHS);
  if (wanted.length === 0) return [];
  const since = new Date((exclude.now ?? new Date()).getTime() - windowDays * 86_400_000);
  const { rows } = await db.query<FailureRow>(
    `SELECT path, run_id::text AS run_id, pr, head_sha, guard, category, created_at
       FROM guard_failures
      WHERE repo = $1 AND path = ANY($2::text[]) AND created_at >= $3
        AND ($4::text IS NULL OR run_id::text <> $4)
        AND ($5::text IS NULL OR head_sha <> $5)
        AND ($6::int IS NULL OR pr IS NULL OR pr <> $6)
      ORDER BY created_at DESC, id DESC
      LIMIT ${MAX_ROWS}`,
    [repo, wanted, since, exclude.runId ?? null, exclude.headSha ?? null, exclude.pr ?? null],
  );
  const perPath = new Map<string, FailureRow[]>();
  for (const r of rows) {
    const list = perPath.get(r.path) ?? [];
    list.push(r);
    perPath.set(r.path, list);
  }
  const hotspots: Hotspot[] = [];
  for (const [path, list] of perPath) {
    const commits = new Map<string, FailureRow>(); // head sha → newest failing row of that commit
    const guards = new Map<string, number>();
    const categories = new Map<string, number>();
    for (const r of list) {
      if (!commits.has(r.head_sha)) commits.set(r.head_sha, r);
      guards.set(r.guard, (guards.get(r.guard) ?? 0) + 1);
      categories.set(r.category, (categories.get(r.category) ?? 0) + 1);
    }
    if (commits.size < threshold) continue;
    const newest = [...commits.values()];
    hotspots.push({
      path,
      runs: commits.size,
      failures: list.length,
      guards: byCount(guards),
      categories: byCount(categories),
      lastRuns: newest
        .slice(0, 5)
        .map((r) => ({ runId: r.run_id, pr: r.pr, headSha: r.head_sha, at: new Date(r.created_at).toISOString() })),
      lastFailedAt: new Date(list[0]!.created_at).toISOString(),
    });
  }
  return hotspots.sort((a, b) => b.runs - a.runs || a.path.localeCompare(b.path));
}
