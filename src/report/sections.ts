import type { Report } from '../core/report.js';
import type { PsiSection, TestsSection } from '../core/report-sections.js';

/**
 * Readers of the report sections the psi guard and G8 write (`core/report-sections.ts`), turned into
 * what the terminal and Markdown reporters show.
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

/** Reads the psi guard's section (see PsiSection) into what reporters show. */
export function readPsi(section: PsiSection | undefined): PsiView | null {
  if (!section) return null;
  const files = section.files.map((f) => ({ path: f.path, score: f.psi, gamma: f.gamma, omega: f.omega }));
  return { score: section.score, threshold: section.threshold, ...(section.weakestFile ? { weakest: section.weakestFile } : {}), files };
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
function testDetails(section: TestsSection): [string, string][] {
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
 * Reads G8's section (see TestsSection). Without one, regressions come from the report's
 * `test-regression` findings.
 */
export function readTests(report: Report): TestsView | null {
  const s = report.sections?.tests;
  const fromFindings = report.findings.filter((f) => f.category === 'test-regression').length;
  if (!s) {
    if (fromFindings === 0) return null;
    return { headline: `${fromFindings} regression${fromFindings === 1 ? '' : 's'}`, regressions: fromFindings, details: [], regressed: [] };
  }
  const regressions = s.regressions.length;
  const notRun = s.notRun ?? s.skipped;
  let headline: string;
  // A gate that did not run the tests never reads as "no regressions".
  if (notRun) headline = `tests not run: ${notRun}`;
  else if (regressions > 0) headline = `${regressions} regression${regressions === 1 ? '' : 's'}`;
  else headline = 'no regressions';
  return { headline, regressions, details: testDetails(s), regressed: [...s.regressions] };
}
