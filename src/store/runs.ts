import { randomUUID } from 'node:crypto';
import type { Finding } from '../core/finding.js';
import type { Report } from '../core/report.js';
import type { Db, Queryable } from './db.js';
import { insertDecision } from './decisions.js';
import { insertFlips } from './flaky-tests.js';

export type RunTrigger = 'pull_request' | 'recheck' | 'refine' | 'check_run' | 'cli' | (string & {});
export type RunStatus = 'completed' | 'errored' | 'cancelled';

export interface RunMeta {
  /** Run id (a UUID); generated when absent. */
  id?: string;
  /** `owner/name`; defaults to the report's repo. */
  repo?: string;
  pr?: number;
  trigger: RunTrigger;
  status?: RunStatus;
  /** When the run started; defaults to the report's createdAt. */
  startedAt?: Date;
  /** When the run finished; defaults to now. Also the time its guard failures are recorded at. */
  finishedAt?: Date;
  /** Append non-PASS decisions to the decisions log (default true). */
  logDecision?: boolean;
  /** The run gated a commit the default branch is or becomes: its flaky tests flipped on a base. */
  onBase?: boolean;
}

/**
 * Categories that say something about the gate rather than the code, or that G9 itself produces:
 * recording them as guard failures would make a path a hotspot because slopgate crashed on it, or
 * because it was a hotspot before.
 */
const NOT_A_CODE_FAILURE = new Set(['guard-error', 'critic-error', 'stuck-detected', 'history-hotspot']);

/** True for findings that count towards G9's failure history: blocking-severity problems in a file. */
export function isGuardFailure(f: Finding): f is Finding & { path: string } {
  return f.severity === 'fail' && Boolean(f.path) && !NOT_A_CODE_FAILURE.has(f.category);
}

/** Rows per INSERT … SELECT unnest(…) statement: few round trips even for thousands of findings. */
const BATCH = 500;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += BATCH) out.push(items.slice(i, i + BATCH));
  return out;
}

async function insertFindings(tx: Queryable, runId: string, findings: Finding[]): Promise<void> {
  for (const part of chunks(findings)) {
    await tx.query(
      `INSERT INTO findings (run_id, finding_id, guard, category, severity, path, line, message)
       SELECT $1::uuid, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[])
       ON CONFLICT (run_id, finding_id) DO NOTHING`,
      [
        runId,
        part.map((f) => f.id),
        part.map((f) => f.guard),
        part.map((f) => f.category),
        part.map((f) => f.severity),
        part.map((f) => f.path ?? null),
        part.map((f) => f.line ?? null),
        part.map((f) => f.message),
      ],
    );
  }
}

async function insertGuardFailures(
  tx: Queryable,
  runId: string,
  repo: string,
  meta: RunMeta,
  headSha: string,
  at: Date,
  findings: Finding[],
): Promise<void> {
  for (const part of chunks(findings.filter(isGuardFailure))) {
    await tx.query(
      `INSERT INTO guard_failures (repo, path, guard, category, run_id, pr, head_sha, created_at)
       SELECT $1, p, g, c, $5::uuid, $6::int, $7, $8 FROM unnest($2::text[], $3::text[], $4::text[]) AS u (p, g, c)`,
      [repo, part.map((f) => f.path), part.map((f) => f.guard), part.map((f) => f.category), runId, meta.pr ?? null, headSha, at],
    );
  }
}

/**
 * Stores one gate run: the run row with the whole report, its findings, its guard failures (G9's
 * history), the tests that flipped on a re-run (the flaky memory) and, for a non-PASS outcome, an entry in the decisions log — all in one transaction, so a
 * crash never leaves a run without its findings. Returns the run id.
 */
export async function saveRun(db: Db, report: Report, meta: RunMeta): Promise<string> {
  const id = meta.id ?? randomUUID();
  const repo = meta.repo ?? report.repo;
  const finishedAt = meta.finishedAt ?? new Date();
  const startedAt = meta.startedAt ?? new Date(report.createdAt);
  await db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO runs (id, repo, pr, base_sha, head_sha, trigger, status, outcome, conclusion, round, report, started_at, finished_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13)`,
      [
        id,
        repo,
        meta.pr ?? null,
        report.base.sha,
        report.head.sha,
        meta.trigger,
        meta.status ?? 'completed',
        report.decision.outcome,
        report.decision.conclusion,
        report.decision.round,
        JSON.stringify(report),
        startedAt,
        finishedAt,
      ],
    );
    await insertFindings(tx, id, report.findings);
    await insertGuardFailures(tx, id, repo, meta, report.head.sha, finishedAt, report.findings);
    // The flaky memory: every test that failed and then passed on a re-run of this commit.
    await insertFlips(tx, {
      repo,
      ...(meta.pr !== undefined ? { pr: meta.pr } : {}),
      onBase: meta.onBase ?? false,
      runId: id,
      headSha: report.head.sha,
      testIds: report.sections.tests?.flaky ?? [],
      at: finishedAt,
    });
    if ((meta.logDecision ?? true) && report.decision.outcome !== 'PASS') {
      await insertDecision(tx, {
        runId: id,
        repo,
        ...(meta.pr !== undefined ? { pr: meta.pr } : {}),
        decision: report.decision,
        headSha: report.head.sha,
        findingIds: report.findings.map((f) => f.id),
        at: finishedAt,
      });
    }
  });
  return id;
}

export interface StoredRun {
  id: string;
  repo: string;
  pr: number | null;
  baseSha: string;
  headSha: string;
  trigger: string;
  status: string;
  outcome: string | null;
  round: number | null;
  report: Report | null;
  startedAt: Date;
  finishedAt: Date | null;
}

interface RunRow {
  id: string;
  repo: string;
  pr: number | null;
  base_sha: string;
  head_sha: string;
  trigger: string;
  status: string;
  outcome: string | null;
  round: number | null;
  report: Report | null;
  started_at: Date;
  finished_at: Date | null;
}

function toRun(r: RunRow): StoredRun {
  return {
    id: r.id,
    repo: r.repo,
    pr: r.pr,
    baseSha: r.base_sha,
    headSha: r.head_sha,
    trigger: r.trigger,
    status: r.status,
    outcome: r.outcome,
    round: r.round,
    report: r.report,
    startedAt: new Date(r.started_at),
    finishedAt: r.finished_at ? new Date(r.finished_at) : null,
  };
}

export async function getRun(db: Db, id: string): Promise<StoredRun | undefined> {
  const { rows } = await db.query<RunRow>('SELECT * FROM runs WHERE id = $1', [id]);
  return rows[0] ? toRun(rows[0]) : undefined;
}

/** The newest runs of a pull request, newest first. */
export async function listRuns(db: Db, repo: string, pr: number, limit = 20): Promise<StoredRun[]> {
  const { rows } = await db.query<RunRow>('SELECT * FROM runs WHERE repo = $1 AND pr = $2 ORDER BY started_at DESC, id LIMIT $3', [
    repo,
    pr,
    Math.max(1, Math.min(limit, 1000)),
  ]);
  return rows.map(toRun);
}
