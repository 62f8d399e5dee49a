import { createHash } from 'node:crypto';
import type { Category } from './categories.js';

export type Severity = 'fail' | 'risk' | 'nit';

export const SEVERITY_RANK: Record<Severity, number> = { fail: 0, risk: 1, nit: 2 };

/** A known fix: replace lines startLine..endLine (1-based, inclusive) of `path` at head. */
export interface Suggestion {
  path: string;
  startLine: number;
  endLine: number;
  replacement: string;
}

export type DismissalSource = 'command' | 'inline' | 'config';

/** Why a finding no longer counts for the decision: who dismissed it, when, why, and through what. */
export interface Dismissal {
  by: string;
  /** ISO 8601 time. */
  at: string;
  reason: string;
  source: DismissalSource;
}

/** One problem found in a pull request. Every stage produces these and every reporter renders them. */
export interface Finding {
  /** Stable fingerprint: see {@link fingerprintOf}. */
  id: string;
  /** 'G1'…'G14', 'psi', 'qa', 'history', … */
  guard: string;
  category: Category;
  severity: Severity;
  path?: string;
  line?: number;
  endLine?: number;
  /** What is wrong, with the evidence. */
  message: string;
  /** What to do about it. */
  remediation: string;
  suggestion?: Suggestion;
  /** The PR commit that introduced the finding, when known. */
  commit?: string;
  /** Sources that raised the same fingerprint (the first one included). */
  confirmedBy: string[];
  /** Structured evidence for reporters and the store (kept small). */
  evidence?: Record<string, unknown>;
  /**
   * What tells this finding's cause apart from another of the same category at the same place (why
   * the tests did not run, where a symlink points, how a suite stopped). Part of the id, so a dismissal
   * of one cause never covers another.
   */
  cause?: string;
  /** Set when the finding was dismissed: it is still reported, but routing ignores it. */
  dismissed?: Dismissal;
}

export type FindingInput = Omit<Finding, 'id' | 'confirmedBy' | 'dismissed'> & { confirmedBy?: string[] };

export function normalizeText(value: string | undefined): string {
  return (value ?? '').toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * Fingerprint of a finding: category | path (lower-cased) | line | first 80 chars of the
 * normalised remediation, plus the cause when the finding has one (exactly, not normalised: a symlink
 * to `/proc/self/environ` is not one to `/proc/self/Environ`). The guard and the severity are
 * deliberately not part of it, so the same problem raised by two sources merges into one finding.
 * A `/slopgate dismiss` is recorded for this id, so it covers exactly what the id hashes.
 */
export function fingerprintOf(f: Pick<Finding, 'category' | 'path' | 'line' | 'remediation' | 'cause'>): string {
  const parts = [f.category, normalizeText(f.path), f.line === undefined ? '' : String(f.line), normalizeText(f.remediation).slice(0, 80)];
  if (f.cause !== undefined) parts.push(`cause:${f.cause}`);
  return createHash('sha256').update(parts.join('|')).digest('hex').slice(0, 12);
}

export function makeFinding(input: FindingInput): Finding {
  const finding: Finding = {
    ...input,
    id: '',
    confirmedBy: input.confirmedBy ?? [input.guard],
  };
  finding.id = fingerprintOf(finding);
  return finding;
}
