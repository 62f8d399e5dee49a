import { isRecord } from '../core/is-record.js';
import type { Db } from '../store/db.js';
import { listFlakyTests, type FlakyTestSummary } from '../store/flaky-tests.js';

/**
 * What the dashboard reads from the store, one function per part of the page. Everything is read-only
 * and bounded by a window of days (and row limits): the dashboard never writes. `scope` limits what is
 * read to the repositories of some accounts (a signed-in member sees the accounts they belong to); an
 * operator sees everything.
 */

/** Which repositories a viewer may see: every one (`all`), or those of these accounts (owners). */
export type Scope = { all: true } | { all: false; accounts: string[] };

export interface Window {
  days: number;
  now?: Date;
}

const since = (w: Window) => new Date((w.now ?? new Date()).getTime() - w.days * 86_400_000);

/** An SQL condition on `repo` for the scope (`$n` is the accounts array), and its parameter. */
function scoped(scope: Scope, column: string, params: unknown[]): string {
  if (scope.all) return 'TRUE';
  const n = params.push(scope.accounts.map((a) => a.toLowerCase()));
  return `lower(split_part(${column}, '/', 1)) = ANY($${n})`;
}

/** The value under `key`, made and stored first when there is none. */
function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  const found = map.get(key);
  if (found !== undefined) return found;
  const made = make();
  map.set(key, made);
  return made;
}

export function inScope(scope: Scope, repo: string): boolean {
  return scope.all || scope.accounts.some((a) => a.toLowerCase() === (repo.split('/')[0] ?? '').toLowerCase());
}

export function percentileOf(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx] ?? null;
}

/** One repository's overview: runs per day by outcome, gate times, how often the test gate ran. */
export interface RepoOverview {
  repo: string;
  runs: number;
  /** `YYYY-MM-DD` (UTC) → outcome → runs. */
  perDay: Record<string, Record<string, number>>;
  medianMs: number | null;
  p95Ms: number | null;
  /** Runs where G8 was enabled (not turned off by the config or --no-tests). */
  testsEnabled: number;
  /** Of those, runs where the suite ran at the base and at the head. */
  testsRan: number;
}

interface OverviewRow {
  repo: string;
  day: string;
  outcome: string | null;
  ms: number | null;
  base_status: string | null;
  head_status: string | null;
  g8_status: string | null;
  g8_reason: string | null;
}

export async function repoOverviews(db: Db, scope: Scope, w: Window): Promise<RepoOverview[]> {
  const params: unknown[] = [since(w)];
  const where = scoped(scope, 'repo', params);
  const { rows } = await db.query<OverviewRow>(
    `SELECT repo, to_char(finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, outcome,
            (report->>'durationMs')::float8 AS ms,
            report->'sections'->'tests'->'baseline'->>'status' AS base_status,
            report->'sections'->'tests'->'candidate'->>'status' AS head_status,
            (SELECT g->>'status' FROM jsonb_array_elements(report->'guards') g WHERE g->>'id' = 'G8' LIMIT 1) AS g8_status,
            (SELECT g->>'reason' FROM jsonb_array_elements(report->'guards') g WHERE g->>'id' = 'G8' LIMIT 1) AS g8_reason
       FROM runs WHERE finished_at >= $1 AND ${where}
      ORDER BY finished_at DESC LIMIT 20000`,
    params,
  );
  const byRepo = new Map<string, { rows: OverviewRow[] }>();
  for (const r of rows) entry(byRepo, r.repo, () => ({ rows: [] })).rows.push(r);
  return [...byRepo.entries()]
    .map(([repo, { rows: list }]) => {
      const perDay: Record<string, Record<string, number>> = {};
      for (const r of list) {
        const day = (perDay[r.day] ??= {});
        const outcome = r.outcome ?? 'unknown';
        day[outcome] = (day[outcome] ?? 0) + 1;
      }
      const ms = list.flatMap((r) => (r.ms === null ? [] : [r.ms]));
      // Enabled: G8 took part (it ran, found something, or skipped for a reason other than being turned off).
      const enabled = list.filter(
        (r) => r.g8_status !== null && !(r.g8_status === 'skipped' && (r.g8_reason ?? '').startsWith('disabled')),
      );
      const ran = enabled.filter((r) => r.base_status === 'ok' && r.head_status === 'ok');
      return {
        repo,
        runs: list.length,
        perDay,
        medianMs: percentileOf(ms, 50),
        p95Ms: percentileOf(ms, 95),
        testsEnabled: enabled.length,
        testsRan: ran.length,
      };
    })
    .sort((a, b) => b.runs - a.runs || a.repo.localeCompare(b.repo));
}

/** Why a PR needs a person. */
export type AttentionKind = 'STUCK' | 'ASK_AUTHOR' | 'ESCALATE' | 'action_required';

export interface AttentionItem {
  kind: AttentionKind;
  repo: string;
  pr: number;
  headSha: string;
  reason: string;
  /** Since when the PR has been in this state (its first run or job in a row with it). */
  since: Date;
  runId: string | null;
  checkRunId: number | null;
}

const KINDS: readonly AttentionKind[] = ['STUCK', 'ASK_AUTHOR', 'ESCALATE', 'action_required'];

function attentionKind(kind: string | null): AttentionKind | null {
  return KINDS.find((k) => k === kind) ?? null;
}

interface LatestRow {
  repo: string;
  pr: number;
  head_sha: string;
  kind: string | null;
  reason: string | null;
  at: Date | string;
  run_id: string | null;
  check_run_id: number | string | null;
  source: 'run' | 'job';
}

/**
 * PRs whose newest verdict needs a person: STUCK, ASK_AUTHOR, ESCALATE, or an outage (a job that could
 * not finish: its check run is `action_required`). A reported job is its stored run; a job that ended
 * otherwise (skipped, a config error) after the verdict takes the PR off the list; a superseded one
 * does not (its newer head decides).
 */
export async function attention(db: Db, scope: Scope, w: Window): Promise<AttentionItem[]> {
  const params: unknown[] = [since(w)];
  const runScope = scoped(scope, 'repo', params);
  const { rows } = await db.query<LatestRow>(
    `WITH events AS (
       SELECT repo, pr, head_sha, outcome AS kind, report->'decision'->>'reason' AS reason, finished_at AS at, id AS run_id,
              NULL::bigint AS check_run_id, 'run' AS source
         FROM runs WHERE pr IS NOT NULL AND finished_at >= $1 AND ${runScope}
       UNION ALL
       SELECT repo, pr, head_sha, CASE WHEN result = 'infrastructure-error' THEN coalesce(conclusion, 'action_required') ELSE outcome END,
              reason, finished_at, run_id, check_run_id, 'job'
         FROM jobs WHERE finished_at >= $1 AND result NOT IN ('superseded', 'reported') AND ${runScope}
     ), ranked AS (
       SELECT *, row_number() OVER (PARTITION BY repo, pr ORDER BY at DESC, source DESC) AS n FROM events
     )
     SELECT repo, pr, head_sha, kind, reason, at, run_id, check_run_id, source FROM ranked WHERE n = 1`,
    params,
  );
  const items: AttentionItem[] = [];
  for (const r of rows) {
    const kind = attentionKind(r.kind);
    if (!kind) continue;
    items.push({
      kind,
      repo: r.repo,
      pr: r.pr,
      headSha: r.head_sha,
      reason: r.reason ?? '',
      since: await sinceWhen(db, r.repo, r.pr, kind, new Date(r.at)),
      runId: r.run_id,
      checkRunId: r.check_run_id === null ? await checkRunOf(db, r.repo, r.pr, r.head_sha) : Number(r.check_run_id),
    });
  }
  const order: AttentionKind[] = ['STUCK', 'action_required', 'ESCALATE', 'ASK_AUTHOR'];
  return items.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind) || a.since.getTime() - b.since.getTime());
}

/** The first of the PR's runs (or outages) in an unbroken row of `kind` up to `latest`. */
async function sinceWhen(db: Db, repo: string, pr: number, kind: AttentionKind, latest: Date): Promise<Date> {
  const { rows } = await db.query<{ at: Date | string | null }>(
    kind === 'action_required'
      ? `SELECT min(finished_at) AS at FROM jobs WHERE repo = $1 AND pr = $2 AND result = 'infrastructure-error' AND finished_at > coalesce(
           (SELECT max(finished_at) FROM jobs WHERE repo = $1 AND pr = $2 AND result IN ('reported', 'skipped', 'config-error')), '-infinity')`
      : `SELECT min(finished_at) AS at FROM runs WHERE repo = $1 AND pr = $2 AND outcome = $3 AND finished_at > coalesce(
           (SELECT max(finished_at) FROM runs WHERE repo = $1 AND pr = $2 AND outcome IS DISTINCT FROM $3), '-infinity')`,
    kind === 'action_required' ? [repo, pr] : [repo, pr, kind],
  );
  const at = rows[0]?.at;
  return at ? new Date(at) : latest;
}

async function checkRunOf(db: Db, repo: string, pr: number, headSha: string): Promise<number | null> {
  const { rows } = await db.query<{ id: number | string }>(
    'SELECT check_run_id AS id FROM jobs WHERE repo = $1 AND pr = $2 AND head_sha = $3 AND check_run_id IS NOT NULL ORDER BY finished_at DESC LIMIT 1',
    [repo, pr, headSha],
  );
  return rows[0] ? Number(rows[0].id) : null;
}

/** One rule (guard and category): how often it spoke, blocked, and was dismissed, and through what. */
export interface RuleQuality {
  guard: string;
  category: string;
  raised: number;
  blocking: number;
  dismissed: { inline: number; command: number; label: number; config: number };
  /** Dismissed (inline, command, label) / raised. */
  rate: number;
}

interface FindingRow {
  repo: string;
  pr: number | null;
  run_id: string;
  fid: string | null;
  guard: string | null;
  category: string | null;
  source: string | null;
  buckets: unknown;
}

/**
 * Per guard and category over the window: each finding counted once per PR (by its id; a finding seen
 * on five pushes is one), blocking when any run blocked on it, dismissed by the source that dismissed
 * it. G1 findings a maintainer's label let through (a sanction) count as raised and dismissed by label.
 */
export async function ruleQuality(db: Db, scope: Scope, w: Window): Promise<RuleQuality[]> {
  const params: unknown[] = [since(w)];
  const where = scoped(scope, 'r.repo', params);
  const { rows } = await db.query<FindingRow>(
    `SELECT r.repo, r.pr, r.id AS run_id, f->>'id' AS fid, f->>'guard' AS guard, f->>'category' AS category,
            f->'dismissed'->>'source' AS source, r.report->'decision'->'buckets' AS buckets
       FROM runs r, jsonb_array_elements(coalesce(r.report->'findings', '[]'::jsonb)) f
      WHERE r.finished_at >= $1 AND ${where}
      LIMIT 200000`,
    params,
  );
  const { rows: labels } = await db.query<{
    repo: string;
    pr: number | null;
    run_id: string;
    category: string | null;
    path: string | null;
  }>(
    `SELECT r.repo, r.pr, r.id AS run_id, s->>'category' AS category, s->>'path' AS path
       FROM runs r, jsonb_array_elements(coalesce(r.report->'sections'->'sanctions'->'allowed', '[]'::jsonb)) s
      WHERE r.finished_at >= $1 AND ${where} AND s->>'allowedBy' ILIKE '%label%'`,
    params,
  );
  interface Seen {
    blocking: boolean;
    source: string | null;
  }
  const rules = new Map<string, { guard: string; category: string; findings: Map<string, Seen> }>();
  const ruleOf = (guard: string, category: string) => {
    const key = `${guard}\u0000${category}`;
    return entry(rules, key, () => ({ guard, category, findings: new Map<string, Seen>() })).findings;
  };
  const blockingIds = (buckets: unknown): Set<string> =>
    new Set(
      isRecord(buckets) ? Object.values(buckets).flatMap((v) => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [])) : [],
    );
  const perRun = new Map<string, Set<string>>();
  for (const r of rows) {
    if (!r.guard || !r.category || !r.fid) continue;
    const blocked = entry(perRun, r.run_id, () => blockingIds(r.buckets));
    const findings = ruleOf(r.guard, r.category);
    const key = `${r.repo}#${r.pr ?? r.run_id}#${r.fid}`;
    const seen = findings.get(key) ?? { blocking: false, source: null };
    seen.blocking ||= blocked.has(r.fid);
    seen.source ??= r.source;
    findings.set(key, seen);
  }
  for (const l of labels) {
    const findings = ruleOf('G1', l.category ?? 'unknown');
    findings.set(`${l.repo}#${l.pr ?? l.run_id}#label:${l.path ?? ''}`, { blocking: false, source: 'label' });
  }
  return [...rules.values()]
    .map(({ guard, category, findings }) => {
      const all = [...findings.values()];
      const count = (source: string) => all.filter((s) => s.source === source).length;
      const dismissed = { inline: count('inline'), command: count('command'), label: count('label'), config: count('config') };
      const raised = all.length;
      const byPeople = dismissed.inline + dismissed.command + dismissed.label;
      return { guard, category, raised, blocking: all.filter((s) => s.blocking).length, dismissed, rate: raised ? byPeople / raised : 0 };
    })
    .sort((a, b) => b.rate - a.rate || b.raised - a.raised || a.guard.localeCompare(b.guard) || a.category.localeCompare(b.category));
}

/** A repository's test command and how long its suite takes at the head. */
export interface SuiteTiming {
  repo: string;
  command: string;
  runs: number;
  medianMs: number;
  maxMs: number;
  slowestRun: string;
}

export async function slowestSuites(db: Db, scope: Scope, w: Window, limit = 10): Promise<SuiteTiming[]> {
  const params: unknown[] = [since(w)];
  const where = scoped(scope, 'repo', params);
  const { rows } = await db.query<{ id: string; repo: string; command: string | null; ms: number | null }>(
    `SELECT id, repo, report->'sections'->'tests'->>'command' AS command,
            (report->'sections'->'tests'->'candidate'->>'durationMs')::float8 AS ms
       FROM runs WHERE finished_at >= $1 AND ${where} AND report->'sections'->'tests'->'candidate' IS NOT NULL
      LIMIT 20000`,
    params,
  );
  const groups = new Map<string, { repo: string; command: string; ms: number[]; slowest: { id: string; ms: number } }>();
  for (const r of rows) {
    if (r.ms === null) continue;
    const ms = r.ms;
    const command = r.command ?? '(detected)';
    const key = `${r.repo}\u0000${command}`;
    const g = entry(groups, key, () => ({ repo: r.repo, command, ms: [] as number[], slowest: { id: r.id, ms } }));
    g.ms.push(ms);
    if (ms > g.slowest.ms) g.slowest = { id: r.id, ms };
  }
  return [...groups.values()]
    .map((g) => ({
      repo: g.repo,
      command: g.command,
      runs: g.ms.length,
      medianMs: percentileOf(g.ms, 50) ?? 0,
      maxMs: Math.max(...g.ms),
      slowestRun: g.slowest.id,
    }))
    .sort((a, b) => b.medianMs - a.medianMs)
    .slice(0, limit);
}

export function flakyTests(db: Db, scope: Scope, w: Window, rule: { prs: number }): Promise<FlakyTestSummary[]> {
  return listFlakyTests(db, {
    ...(scope.all ? {} : { owners: scope.accounts }),
    windowDays: w.days,
    prs: rule.prs,
    ...(w.now ? { now: w.now } : {}),
  });
}

export interface RecentRun {
  id: string;
  repo: string;
  pr: number | null;
  headSha: string;
  outcome: string | null;
  finishedAt: Date | null;
  durationMs: number | null;
}

export async function recentRuns(db: Db, scope: Scope, w: Window, limit = 25): Promise<RecentRun[]> {
  const params: unknown[] = [since(w)];
  const where = scoped(scope, 'repo', params);
  const { rows } = await db.query<{
    id: string;
    repo: string;
    pr: number | null;
    head_sha: string;
    outcome: string | null;
    finished_at: Date | string | null;
    ms: number | null;
  }>(
    `SELECT id, repo, pr, head_sha, outcome, finished_at, (report->>'durationMs')::float8 AS ms
       FROM runs WHERE finished_at >= $1 AND ${where} ORDER BY finished_at DESC, id LIMIT ${Math.max(1, Math.min(limit, 500))}`,
    params,
  );
  return rows.map((r) => ({
    id: r.id,
    repo: r.repo,
    pr: r.pr,
    headSha: r.head_sha,
    outcome: r.outcome,
    finishedAt: r.finished_at ? new Date(r.finished_at) : null,
    durationMs: r.ms,
  }));
}

/** The check run a stored run was reported on, when the App recorded its job (same PR and head). */
export async function checkRunOfRun(db: Db, run: { repo: string; pr: number | null; headSha: string }): Promise<number | null> {
  return run.pr === null ? null : checkRunOf(db, run.repo, run.pr, run.headSha);
}
