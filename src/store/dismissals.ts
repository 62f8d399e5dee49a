import type { PriorDismissal } from '../core/apply-dismissals.js';
import type { DismissalSource } from '../core/finding.js';
import type { Db } from './db.js';

export interface DismissalEntry {
  repo: string;
  pr: number;
  /** The finding id. */
  fingerprint: string;
  category: string;
  path?: string;
  by: string;
  reason: string;
  source: DismissalSource;
  /** Default: now. */
  at?: Date;
}

export interface StoredDismissal extends PriorDismissal {
  repo: string;
  pr: number;
  category: string;
  path?: string;
}

interface Row {
  repo: string;
  pr: number;
  fingerprint: string;
  category: string;
  path: string | null;
  dismissed_by: string;
  reason: string;
  source: DismissalSource;
  created_at: Date | string;
}

function fromRow(r: Row): StoredDismissal {
  return {
    repo: r.repo,
    pr: r.pr,
    fingerprint: r.fingerprint,
    category: r.category,
    ...(r.path ? { path: r.path } : {}),
    by: r.dismissed_by,
    reason: r.reason,
    source: r.source,
    at: new Date(r.created_at).toISOString(),
  };
}

const COLUMNS = 'repo, pr, fingerprint, category, path, dismissed_by, reason, source, created_at';

/**
 * Records a dismissal (who, when, why, for which fingerprint). Dismissing the same finding again
 * through the same source replaces the earlier record.
 */
export async function dismissFinding(db: Db, e: DismissalEntry): Promise<StoredDismissal> {
  if (!e.reason.trim()) throw new Error('a dismissal needs a reason');
  const { rows } = await db.query<Row>(
    `INSERT INTO dismissals (repo, pr, fingerprint, category, path, dismissed_by, reason, source, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (repo, pr, fingerprint, source)
     DO UPDATE SET dismissed_by = EXCLUDED.dismissed_by, reason = EXCLUDED.reason, category = EXCLUDED.category,
                   path = EXCLUDED.path, created_at = EXCLUDED.created_at
     RETURNING ${COLUMNS}`,
    [e.repo, e.pr, e.fingerprint, e.category, e.path ?? null, e.by, e.reason.trim(), e.source, (e.at ?? new Date()).toISOString()],
  );
  return fromRow(rows[0]!);
}

/** The dismissals of one pull request, oldest first (optionally only one source). */
export async function listDismissals(db: Db, repo: string, pr: number, source?: DismissalSource): Promise<StoredDismissal[]> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM dismissals WHERE repo = $1 AND pr = $2 AND ($3::text IS NULL OR source = $3) ORDER BY created_at, id`,
    [repo, pr, source ?? null],
  );
  return rows.map(fromRow);
}
