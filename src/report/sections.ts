import type { Report } from '../core/report.js';

/**
 * Tolerant readers for the report sections other stages contribute (`psi`, `tests`). Their exact
 * shape belongs to those stages, so the reporters read what they recognise and never throw on the rest.
 */

export interface PsiFileView {
  path: string;
  score?: number;
  gamma?: number;
  omega?: number;
}

export interface PsiView {
  score?: number;
  threshold?: number;
  weakest?: string;
  files: PsiFileView[];
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function psiFile(path: string | undefined, v: unknown): PsiFileView | null {
  if (typeof v === 'number') return path ? { path, score: v } : null;
  if (!isObject(v)) return null;
  const p = path ?? str(v.path) ?? str(v.file);
  if (!p) return null;
  const view: PsiFileView = { path: p };
  const score = num(v.psi) ?? num(v.score) ?? num(v.value);
  const gamma = num(v.gamma) ?? num(v.Γ);
  const omega = num(v.omega) ?? num(v.Ω);
  if (score !== undefined) view.score = score;
  if (gamma !== undefined) view.gamma = gamma;
  if (omega !== undefined) view.omega = omega;
  return view;
}

/** Reads a Ψ-lite section: a bare number, or an object with a score and optional per-file rows. */
export function readPsi(section: unknown): PsiView | null {
  if (typeof section === 'number') return Number.isFinite(section) ? { score: section, files: [] } : null;
  if (!isObject(section)) return null;
  const rows = section.files ?? section.perFile ?? section.breakdown;
  const files: PsiFileView[] = [];
  if (Array.isArray(rows)) for (const r of rows) {
    const f = psiFile(undefined, r);
    if (f) files.push(f);
  } else if (isObject(rows)) for (const [path, r] of Object.entries(rows)) {
    const f = psiFile(path, r);
    if (f) files.push(f);
  }
  const scores = files.map((f) => f.score).filter((s): s is number => s !== undefined);
  const score = num(section.psi) ?? num(section.score) ?? num(section.value) ?? num(section.min) ?? (scores.length ? Math.min(...scores) : undefined);
  const view: PsiView = { files };
  if (score !== undefined) view.score = score;
  const threshold = num(section.threshold);
  if (threshold !== undefined) view.threshold = threshold;
  const weakest = str(section.weakestFile) ?? str(section.weakest_file) ?? str(section.weakest);
  if (weakest) view.weakest = weakest;
  if (view.score === undefined && files.length === 0) return null;
  return view;
}

/** Counts a field that may be a number or a list. */
function countOf(v: unknown): number | undefined {
  if (Array.isArray(v)) return v.length;
  return num(v);
}

export interface TestsView {
  /** One-line status such as "1 regression" or "skipped: no test runner found". */
  headline: string;
  regressions: number;
  /** Label/value pairs for everything else the section holds (scalars and list sizes). */
  details: [string, string][];
  /** Names of the regressed tests when the section lists them. */
  regressed: string[];
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** "0 failing of 3 tests · 1 unit broken · 1.0 s · 6eb3c9d · from the cache" for one side of the gate. */
function describeSide(side: Record<string, unknown>): string {
  const parts: string[] = [];
  const failing = num(side.failing);
  const total = num(side.total);
  if (failing !== undefined) parts.push(`${failing} failing${total !== undefined ? ` of ${total} test${total === 1 ? '' : 's'}` : ''}`);
  const broken = num(side.broken);
  if (broken) parts.push(`${broken} unit${broken === 1 ? '' : 's'} broken`);
  const skipped = str(side.skipped);
  if (skipped) parts.push(`skipped: ${skipped}`);
  const ms = num(side.durationMs);
  if (ms !== undefined) parts.push(seconds(ms));
  const sha = str(side.sha);
  if (sha) parts.push(sha.slice(0, 7));
  if (side.cached === true) parts.push('from the cache');
  else if (side.cached === false) parts.push('ran now');
  return parts.join(' · ');
}

function describeValue(key: string, value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (Array.isArray(value)) {
    const names = value.map(itemName).filter((n): n is string => Boolean(n));
    if (value.length === 0) return '0';
    return names.length === value.length && names.length <= 5 ? names.join(', ') : String(value.length);
  }
  if (!isObject(value)) return undefined;
  if (key === 'baseline' || key === 'candidate') return describeSide(value);
  const flags = Object.entries(value)
    .filter(([, v]) => v !== false && v !== undefined && v !== null)
    .map(([k, v]) => (v === true ? k : `${k} ${String(v)}`));
  return flags.join(' · ');
}

/** Label/value pairs of the tests section, in its own order (regressions are listed separately). */
function testDetails(section: Record<string, unknown>): [string, string][] {
  const details: [string, string][] = [];
  for (const [key, value] of Object.entries(section)) {
    if (key === 'regressions') continue;
    const text = describeValue(key, value);
    if (text !== undefined && text !== '') details.push([key, text]);
  }
  return details;
}

function itemName(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (isObject(v)) return str(v.id) ?? str(v.name) ?? str(v.test) ?? str(v.title);
  return undefined;
}

/**
 * Reads the test-gate section generically. Regressions come from the section when it states them,
 * else from the report's `test-regression` findings.
 */
export function readTests(report: Report): TestsView | null {
  const section = report.sections?.tests;
  const fromFindings = report.findings.filter((f) => f.category === 'test-regression').length;
  if (section === undefined || section === null) {
    if (fromFindings === 0) return null;
    return { headline: `${fromFindings} regression${fromFindings === 1 ? '' : 's'}`, regressions: fromFindings, details: [], regressed: [] };
  }
  const s = isObject(section) ? section : { value: section };
  const regressions = countOf(s.regressions) ?? countOf(s.regressed) ?? fromFindings;
  const regressed = (Array.isArray(s.regressions) ? s.regressions : []).map(itemName).filter((n): n is string => Boolean(n));
  const details = testDetails(s);
  const status = str(s.status);
  const reason = str(s.reason) ?? str(s.skipReason);
  const notRun = str(s.notRun) ?? (typeof s.skipped === 'string' ? s.skipped : undefined);
  let headline: string;
  // A gate that did not run the tests never reads as "no regressions".
  if (notRun) headline = `tests not run: ${notRun}`;
  else if (regressions > 0) headline = `${regressions} regression${regressions === 1 ? '' : 's'}`;
  else if (status && /skip/i.test(status)) headline = reason ? `skipped (${reason})` : 'skipped';
  else if (s.skipped === true) headline = reason ? `skipped (${reason})` : 'skipped';
  else headline = status ?? 'no regressions';
  return { headline, regressions, details, regressed };
}
