import type { Report } from '../core/report.js';
import type {
  DependencyStage,
  PackageTests,
  PsiSection,
  SandboxIsolation,
  TestSideSummary,
  TestsSection,
  WorkspaceTests,
} from '../core/report-sections.js';
import { testsHeadline } from './tests-headline.js';

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

/** Reads the psi guard's section (see PsiSection) into what reporters show. */
export function readPsi(section: PsiSection | undefined): PsiView | null {
  if (!section) return null;
  const files = section.files.map((f) => ({ path: f.path, score: f.psi, gamma: f.gamma, omega: f.omega }));
  return { score: section.score, threshold: section.threshold, ...(section.weakestFile ? { weakest: section.weakestFile } : {}), files };
}

export interface TestsView {
  /**
   * One-line status: "1 regression", "no regressions" (only when both sides were compared),
   * "tests not run: <why>", "suite does not start at the head: <why>" (see tests-headline.ts).
   */
  headline: string;
  /** Both sides ran and were compared; when false the headline says what happened instead. */
  compared: boolean;
  /** The headline without a remedy, for one-line titles. */
  short: string;
  regressions: number;
  /** Label/value pairs for everything else the section holds (scalars and list sizes). */
  details: [string, string][];
  /** Names of the regressed tests when the section lists them. */
  regressed: string[];
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** "0 failing of 3 tests · 1 unit broken · 1.0 s · 6eb3c9d · from the cache" for one side of the gate. */
function describeSide(side: TestSideSummary & { cached?: boolean }): string {
  const parts = [`${side.failing} failing of ${side.total} test${side.total === 1 ? '' : 's'}`];
  if (side.broken) parts.push(`${side.broken} unit${side.broken === 1 ? '' : 's'} broken`);
  if (side.skipped) parts.push(`skipped: ${side.skipped}`);
  parts.push(seconds(side.durationMs));
  if (side.sha) parts.push(side.sha.slice(0, 7));
  if (side.cached === true) parts.push('from the cache');
  else if (side.cached === false) parts.push('ran now');
  return parts.join(' · ');
}

/** Up to five test ids by name, more as a count. */
function describeList(list: string[]): string {
  if (list.length === 0) return '0';
  return list.length <= 5 ? list.join(', ') : String(list.length);
}

/** The sandbox's properties that hold: `sandbox bwrap · network isolated · pidNamespace`. */
function describeSandbox(sandbox: SandboxIsolation): string {
  return Object.entries(sandbox)
    .filter(([, v]) => v !== false && v !== undefined)
    .map(([k, v]) => (v === true ? k : `${k} ${String(v)}`))
    .join(' · ');
}

/** "npm · installed in 41.2 s" / "python · from the cache" / "none: the module vendors its dependencies". */
function describeStage(stage: DependencyStage): string {
  const what = stage.ecosystem ? `${stage.ecosystem} · ` : '';
  switch (stage.status) {
    case 'installed':
      return `${what}installed${stage.installMs !== undefined ? ` in ${seconds(stage.installMs)}` : ''}`;
    case 'cached':
      return `${what}from the cache`;
    case 'failed':
      return `${what}install failed: ${stage.reason ?? ''}`;
    default:
      return `${what}${stage.status}${stage.reason ? `: ${stage.reason}` : ''}`;
  }
}

/** "npm · from the cache (shared: …)": a stage and the cache entry it used. */
function describeWithEntry(stage: DependencyStage, text: string): string {
  return stage.entry ? `${text} (${stage.entry.why})` : text;
}

/** "base npm · from the cache (shared: …); head the same (the base's entry: …)" for the section's dependencies. */
function describeDependencies(deps: { base: DependencyStage; head: DependencyStage }): string {
  const base = describeWithEntry(deps.base, describeStage(deps.base));
  const same = deps.head.key !== undefined && deps.head.key === deps.base.key;
  const head = describeWithEntry(deps.head, same ? 'the same' : describeStage(deps.head));
  return `base ${base}; head ${head}`;
}

type TestsEntry = { [K in keyof TestsSection]-?: [K, TestsSection[K]] }[keyof TestsSection];

function describeEntry([key, value]: TestsEntry): string | undefined {
  if (value === undefined) return undefined;
  switch (key) {
    case 'baseline':
    case 'candidate':
      return describeSide(value);
    case 'sandbox':
      return describeSandbox(value);
    case 'dependencies':
      return describeDependencies(value);
    case 'toolchain':
      return Object.entries(value)
        .map(([k, v]) => `${k} ${v}`)
        .join(' · ');
    case 'workspace':
      // Expanded into one line per package by testDetails.
      return undefined;
    case 'noSetup':
    case 'files':
      // Shown by the coverage record.
      return undefined;
    case 'internalCommand':
      // slopgate's own wrapper of the command: kept in the JSON report, never shown as something to run.
      return undefined;
    case 'runner':
    case 'command':
    case 'skipped':
    case 'notRun':
    case 'suiteBroken':
      return String(value);
    default:
      return describeList(value);
  }
}

/** What a comparison of base and head found: nothing to say when the suites were not compared. */
const COMPARISON_KEYS = new Set<string>(['brokenUnits', 'suiteBroken', 'fixed', 'removed', 'flaky']);

/**
 * Label/value pairs of the tests section, in G8's order (regressions are listed separately). When the
 * suites were not compared, the headline already says why (`skipped`), and the comparison's empty counts
 * are left out rather than read as results.
 */
function testDetails(section: TestsSection, compared: boolean): [string, string][] {
  const details: [string, string][] = [];
  // Object.entries widens the pairs; each key of TestsSection comes with its own value type.
  for (const entry of Object.entries(section) as TestsEntry[]) {
    if (entry[0] === 'regressions') continue;
    if (!compared && (COMPARISON_KEYS.has(entry[0]) || entry[0] === 'skipped')) continue;
    const text = describeEntry(entry);
    if (text !== undefined && text !== '') details.push([entry[0], text]);
  }
  if (section.workspace) details.push(...workspaceDetails(section.workspace));
  return details;
}

const REASON: Record<PackageTests['reason'], string> = {
  changed: 'changed',
  dependent: 'depends on a changed package',
  shared: 'a file outside the packages changed',
  root: "the root's command",
};

/** "workspace: npm (package.json workspaces), 2 of 3 packages ran", then one line per package that ran. */
function workspaceDetails(ws: WorkspaceTests): [string, string][] {
  const out: [string, string][] = [
    [
      'workspace',
      `${ws.kind} (${ws.source}), ${ws.packages.length} of ${ws.total} package${ws.total === 1 ? '' : 's'} affected by this change`,
    ],
  ];
  for (const p of ws.packages) {
    const why = p.reason === 'dependent' && p.via?.length ? `depends on ${p.via.join(', ')}` : REASON[p.reason];
    const parts = [p.name === p.dir ? why : `${p.name}, ${why}`];
    if (p.skipped) parts.push(`not run: ${p.skipped}`);
    else if (p.notRun) parts.push(`not run with this change: ${p.notRun}`);
    else {
      if (p.command) parts.push(p.command);
      if (p.baseline) parts.push(`base ${describeSide(p.baseline)}`);
      if (p.candidate) parts.push(`head ${describeSide(p.candidate)}`);
      if (p.suiteBroken) parts.push('suite broken at the head');
      if (p.regressions.length) parts.push(`${p.regressions.length} regression${p.regressions.length === 1 ? '' : 's'}`);
      if (p.brokenUnits.length) parts.push(`${p.brokenUnits.length} unit${p.brokenUnits.length === 1 ? '' : 's'} broken`);
      if (p.flaky.length) parts.push(`${p.flaky.length} flaky`);
    }
    out.push([`package ${p.dir}`, parts.join(' · ')]);
  }
  return out;
}

/**
 * Reads G8's section (see TestsSection). Without one, regressions come from the report's
 * `test-regression` findings.
 */
export function readTests(report: Report): TestsView | null {
  const s = report.sections.tests;
  const fromFindings = report.findings.filter((f) => f.category === 'test-regression').length;
  if (!s) {
    if (fromFindings === 0) return null;
    return {
      headline: `${fromFindings} regression${fromFindings === 1 ? '' : 's'}`,
      compared: true,
      short: `${fromFindings} regression${fromFindings === 1 ? '' : 's'}`,
      regressions: fromFindings,
      details: [],
      regressed: [],
    };
  }
  // A gate that did not run or compare the tests never reads as "no regressions".
  const { headline, compared, short } = testsHeadline(s);
  return { headline, compared, short, regressions: s.regressions.length, details: testDetails(s, compared), regressed: [...s.regressions] };
}

export interface SanctionsView {
  /** `path (category): allowed by …` for each G1 finding a sanction let through. */
  allowed: { path: string; category: string; allowedBy: string }[];
  /** Which sanctions of the PR apply, lapsed or are ignored (Markdown written by slopgate). */
  notes: string[];
}

/** Reads the sanctions section tolerantly (a report read back from JSON may hold anything). */
export function readSanctions(report: Report): SanctionsView | null {
  const s: unknown = report.sections.sanctions;
  if (typeof s !== 'object' || s === null) return null;
  const rec = s as { allowed?: unknown; notes?: unknown }; // checked field by field below
  const allowed = (Array.isArray(rec.allowed) ? rec.allowed : []).flatMap((a: unknown) => {
    if (typeof a !== 'object' || a === null) return [];
    const r = a as Record<string, unknown>; // checked below
    return typeof r.path === 'string' && typeof r.category === 'string' && typeof r.allowedBy === 'string'
      ? [{ path: r.path, category: r.category, allowedBy: r.allowedBy }]
      : [];
  });
  const notes = (Array.isArray(rec.notes) ? rec.notes : []).filter((n: unknown): n is string => typeof n === 'string');
  return allowed.length || notes.length ? { allowed, notes } : null;
}
