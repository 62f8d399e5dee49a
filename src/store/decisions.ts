import type { Decision } from '../core/decision.js';
import type { Db, Queryable } from './db.js';

export interface DecisionEntry {
  runId?: string;
  repo: string;
  pr?: number;
  decision: Decision;
  headSha?: string;
  findingIds?: string[];
  /** Free-form extra context (tier-3 tie-breaker answer, command that triggered it, …). */
  extra?: Record<string, unknown>;
  at?: Date;
}

/** One line of the decisions log as exported. */
export interface DecisionRecord {
  id: number;
  runId: string | null;
  repo: string;
  pr: number | null;
  outcome: string;
  reason: string;
  round: number;
  at: string;
  record: Record<string, unknown>;
}

/** Appends to the decisions log inside an existing transaction (used by saveRun). */
export async function insertDecision(tx: Queryable, e: DecisionEntry): Promise<number> {
  const record = {
    decision: e.decision,
    // Top-level copies of the routing provenance, so an audit can filter on them without unpacking the decision.
    ...(e.decision.source ? { source: e.decision.source } : {}),
    ...(e.decision.candidates ? { candidates: e.decision.candidates } : {}),
    ...(e.headSha ? { headSha: e.headSha } : {}),
    ...(e.findingIds ? { findingIds: e.findingIds } : {}),
    ...(e.extra ? { extra: e.extra } : {}),
  };
  const { rows } = await tx.query<{ id: number }>(
    `INSERT INTO decisions (run_id, repo, pr, outcome, reason, round, record, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8) RETURNING id::int AS id`,
    [
      e.runId ?? null,
      e.repo,
      e.pr ?? null,
      e.decision.outcome,
      e.decision.reason,
      e.decision.round,
      JSON.stringify(record),
      e.at ?? new Date(),
    ],
  );
  return rows[0]!.id;
}

/** Appends one decision to the log; returns its sequence number. */
export function appendDecision(db: Db, e: DecisionEntry): Promise<number> {
  return insertDecision(db, e);
}

export interface DecisionFilter {
  repo?: string;
  pr?: number;
  since?: Date;
  /** At most this many entries, oldest first (default 10,000). */
  limit?: number;
}

/** The decisions log, oldest first. */
export async function listDecisions(db: Db, filter: DecisionFilter = {}): Promise<DecisionRecord[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.repo !== undefined) where.push(`repo = $${params.push(filter.repo)}`);
  if (filter.pr !== undefined) where.push(`pr = $${params.push(filter.pr)}`);
  if (filter.since !== undefined) where.push(`created_at >= $${params.push(filter.since)}`);
  const limit = Math.max(1, Math.min(filter.limit ?? 10_000, 100_000));
  const { rows } = await db.query<{
    id: number;
    run_id: string | null;
    repo: string;
    pr: number | null;
    outcome: string;
    reason: string;
    round: number;
    created_at: Date;
    record: Record<string, unknown>;
  }>(
    `SELECT id::int AS id, run_id, repo, pr, outcome, reason, round, created_at, record FROM decisions
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id LIMIT $${params.push(limit)}`,
    params,
  );
  return rows.map((r) => ({
    id: r.id,
    runId: r.run_id,
    repo: r.repo,
    pr: r.pr,
    outcome: r.outcome,
    reason: r.reason,
    round: r.round,
    at: new Date(r.created_at).toISOString(),
    record: r.record,
  }));
}

/** The decisions log as JSON lines (one object per line, oldest first), for export and audits. */
export async function exportDecisions(db: Db, filter: DecisionFilter = {}): Promise<string> {
  const entries = await listDecisions(db, filter);
  return entries.map((e) => JSON.stringify(e)).join('\n') + (entries.length ? '\n' : '');
}
