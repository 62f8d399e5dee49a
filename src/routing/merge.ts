import { isCategory } from '../core/categories.js';
import { makeFinding, SEVERITY_RANK, type Finding, type Severity, type Suggestion } from '../core/finding.js';
import { isOneOf } from '../core/one-of.js';
import { isRecord } from '../core/is-record.js';

/** Output of one source of findings (a guard, the test gate, an LLM critic). */
export interface SourceReport {
  source: string;
  findings: unknown[];
}

export class MalformedReportError extends Error {
  constructor(
    readonly code: 'report-not-an-object' | 'report-no-findings' | 'malformed-finding',
    message: string,
  ) {
    super(message);
    this.name = 'MalformedReportError';
  }
}

/** A critic's free-text field: strings as they are, numbers and booleans printed, anything else empty. */
function textOf(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}

const SEVERITIES: readonly Severity[] = ['fail', 'risk', 'nit'];

function isLineNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v > 0;
}

/** A suggestion reporters can apply as is (whole lines of one file), or undefined. */
function suggestionOf(v: unknown): Suggestion | undefined {
  if (!isRecord(v)) return undefined;
  const { path, startLine, endLine, replacement } = v;
  if (typeof path !== 'string' || !path || typeof replacement !== 'string') return undefined;
  if (!isLineNumber(startLine) || !isLineNumber(endLine) || endLine < startLine) return undefined;
  return { path, startLine, endLine, replacement };
}

/**
 * Validates one raw finding (fail-closed). A well-formed finding with a category outside the closed
 * vocabulary is kept, forced to `fail` and routed to `stuck` as a `critic-error`, never dropped.
 */
function normalise(source: string, raw: unknown, index: number): Finding {
  if (!isRecord(raw)) {
    throw new MalformedReportError('malformed-finding', `${source}: finding #${index} is not an object`);
  }
  const path = typeof raw.path === 'string' && raw.path ? raw.path : undefined;
  const line = isLineNumber(raw.line) ? raw.line : undefined;
  const endLine = line && isLineNumber(raw.endLine) && raw.endLine >= line ? raw.endLine : undefined;
  const suggestion = suggestionOf(raw.suggestion);
  const base = {
    guard: typeof raw.guard === 'string' ? raw.guard : source,
    message: textOf(raw.message),
    ...(path ? { path } : {}),
    ...(line ? { line } : {}),
    ...(endLine ? { endLine } : {}),
    ...(typeof raw.commit === 'string' ? { commit: raw.commit } : {}),
    ...(suggestion ? { suggestion } : {}),
    ...(isRecord(raw.evidence) ? { evidence: raw.evidence } : {}),
    ...(typeof raw.cause === 'string' && raw.cause ? { cause: raw.cause } : {}),
    confirmedBy: [source],
  };
  if (!isCategory(raw.category)) {
    const shown = typeof raw.category === 'string' ? raw.category : 'unknown';
    return makeFinding({
      ...base,
      category: 'critic-error',
      severity: 'fail',
      remediation: `${source} reported the unknown category "${shown}"; a human has to look (never routed silently).`,
      evidence: { ...(base.evidence ?? {}), unknownCategory: shown },
    });
  }
  const severity = isOneOf(SEVERITIES, raw.severity) ? raw.severity : 'fail';
  return makeFinding({ ...base, category: raw.category, severity, remediation: textOf(raw.remediation) });
}

export function compareFindings(a: Finding, b: Finding): number {
  return (
    b.confirmedBy.length - a.confirmedBy.length ||
    SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
    a.category.localeCompare(b.category) ||
    (a.path ?? '').localeCompare(b.path ?? '') ||
    (a.line ?? 0) - (b.line ?? 0)
  );
}

/**
 * One finding raised twice (same fingerprint): the more severe one wins with its text (a static
 * `tests-weakened` risk that G8's run of the base version proves with a failure becomes that `fail`);
 * at equal severity the first one stays. Sources are added to `confirmedBy`, and evidence fields only
 * the other one has are kept.
 */
function mergeTwo(existing: Finding, f: Finding): Finding {
  const stronger = SEVERITY_RANK[f.severity] < SEVERITY_RANK[existing.severity];
  const [win, lose] = stronger ? [f, existing] : [existing, f];
  const confirmedBy = [...win.confirmedBy];
  for (const c of lose.confirmedBy) if (!confirmedBy.includes(c)) confirmedBy.push(c);
  const evidence = win.evidence || lose.evidence ? { ...lose.evidence, ...win.evidence } : undefined;
  return { ...win, confirmedBy, ...(evidence ? { evidence } : {}) };
}

/**
 * Validates every report, merges findings by fingerprint (the more severe one wins and keeps its text,
 * the first one on a tie; later sources are added to `confirmedBy`), and sorts: most confirmations
 * first, then fail < risk < nit, then category.
 */
export function mergeFindings(reports: SourceReport[]): Finding[] {
  if (!Array.isArray(reports)) throw new TypeError('mergeFindings expects an array of findings reports');
  const byId = new Map<string, Finding>();
  for (const report of reports) {
    if (!isRecord(report) || typeof report.source !== 'string') {
      throw new MalformedReportError('report-not-an-object', 'a findings report is not an object with a source');
    }
    if (!Array.isArray(report.findings)) {
      throw new MalformedReportError('report-no-findings', `${report.source}: findings is not an array`);
    }
    report.findings.forEach((raw, i) => {
      const f = normalise(report.source, raw, i);
      const existing = byId.get(f.id);
      if (!existing) byId.set(f.id, f);
      else byId.set(f.id, mergeTwo(existing, f));
    });
  }
  return [...byId.values()].sort(compareFindings);
}
