import type { GuardStatus } from './report.js';
import type { CoverageEntry, ProjectCheckRecord, ReportSections, TestsSection } from './report-sections.js';
import { COVERED_BY_TESTS, NEEDS_INSTALL_ON, NEEDS_TESTS_ON, NO_FILES_IN_SCOPE } from './phases-not-run.js';

/**
 * The coverage record of a run (the entry types are in report-sections.ts, which the report imports):
 * built here from the guard statuses and the sections, read by the decision and every reporter.
 */
export type { CoverageEntry, CoverageStatus } from './report-sections.js';

/** True for the entries that make a run not verified. */
export function isGap(e: CoverageEntry): boolean {
  return e.status === 'partial' || e.status === 'not-run';
}

/** Skip reasons that are the operator's choice or say the check had nothing to look at. */
const NOT_EXPECTED = [
  NO_FILES_IN_SCOPE,
  'disabled in config',
  'disabled for this run',
  'not selected (--only)',
  'no store configured',
  'the repository name is unknown',
  NEEDS_TESTS_ON,
  NEEDS_INSTALL_ON,
  COVERED_BY_TESTS,
];

function chosenSkip(reason: string | undefined): boolean {
  return reason === undefined || NOT_EXPECTED.some((r) => reason.startsWith(r));
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * A permanent gap says what the operator can allow: a host the egress proxy refused (a browser download,
 * a CDN) stays refused on every re-run, a missing toolchain stays missing.
 */
function withRemedy(reason: string): string {
  if (reason.includes('egress proxy refused') && !reason.includes('SLOPGATE_EGRESS_ALLOW'))
    return `${reason} (a permanent gap, not an outage: re-running will not help; an operator can allow the host with SLOPGATE_EGRESS_ALLOW)`;
  if (
    /\b(not found|not installed|no such file or directory)\b/i.test(reason) &&
    /\b(go|cargo|rustc|python3?|node|java|mvn|toolchain)\b/i.test(reason)
  )
    return `${reason} (a permanent gap: install the toolchain on the machine that runs slopgate)`;
  return reason;
}

/** The suite-level entries of the test gate, its packages and its changed files. */
function testEntries(t: TestsSection): CoverageEntry[] {
  const out: CoverageEntry[] = [];
  const suite = t.command ? `the suite (${t.command})` : 'the suite';
  if (t.skipped !== undefined) {
    out.push(
      t.noSetup
        ? { check: 'G8', scope: suite, status: 'skipped', reason: t.skipped }
        : {
            check: 'G8',
            scope: suite,
            status: 'not-run',
            reason: withRemedy(`the suite did not start at the base or the head — ${t.skipped}`),
          },
    );
  } else if (t.notRun !== undefined) {
    out.push({ check: 'G8', scope: suite, status: 'not-run', reason: withRemedy(t.notRun) });
  } else if (t.baseline && t.candidate && t.baseline.total === 0 && t.candidate.total === 0) {
    const broken = t.baseline.broken || t.candidate.broken;
    const why = broken
      ? `no test ran at either side; ${plural(t.baseline.broken, 'test unit')} failed to build or import at the base, ${t.candidate.broken} at the head`
      : 'no test ran at either side';
    out.push({ check: 'G8', scope: suite, status: 'not-run', reason: `the suite did not start at the base or the head — ${why}` });
  } else if (t.baseline && t.candidate) {
    out.push({
      check: 'G8',
      scope: suite,
      status: 'ran',
      reason: `${plural(t.baseline.total, 'test')} at the base, ${t.candidate.total} at the head`,
    });
  }
  for (const p of t.workspace?.packages ?? []) {
    const scope = `package ${p.dir}`;
    if (p.notRun) out.push({ check: 'G8', scope, status: 'not-run', reason: p.notRun });
    else if (p.noSetup && t.workspace?.rootRan)
      out.push({ check: 'G8', scope, status: 'ran', reason: "no suite of its own; the root's command ran" });
    else if (p.noSetup)
      out.push({
        check: 'G8',
        scope,
        status: 'not-run',
        reason: `no suite of its own, and the root has none either (${p.skipped ?? 'no test setup'})`,
      });
    else if (p.skipped && chosenSkip(p.skipped)) out.push({ check: 'G8', scope, status: 'skipped', reason: p.skipped });
    else if (p.skipped) out.push({ check: 'G8', scope, status: 'not-run', reason: `its suite did not start — ${p.skipped}` });
    else if (p.baseline && p.candidate && p.baseline.total === 0 && p.candidate.total === 0)
      out.push({ check: 'G8', scope, status: 'not-run', reason: 'its suite did not start: no test ran at either side' });
    else if (p.baseline && p.candidate) out.push({ check: 'G8', scope, status: 'ran' });
  }
  for (const f of t.files ?? []) out.push({ check: 'G8', scope: `file ${f.path}`, status: f.status, reason: f.reason });
  return out;
}

function checkEntry(r: ProjectCheckRecord): CoverageEntry {
  const scope = plural(r.files, 'file');
  const check = `G16 ${r.tool}`;
  if (r.status === 'ran') return { check, scope, status: 'ran', ...(r.reason ? { reason: r.reason } : {}) };
  if (r.status === 'partial') return { check, scope, status: 'partial', reason: r.reason ?? 'it checked part of its files' };
  // A check the project's CI runs (severity fail) that could not run here is a gap; a convention is not,
  // nor one the operator's choice left out (a run without the dependencies it needs).
  const chosen = r.reason !== undefined && chosenSkip(r.reason);
  return { check, scope, status: r.severity === 'fail' && !chosen ? 'not-run' : 'skipped', reason: r.reason ?? 'not run' };
}

/** A guard's own row: ran, skipped by choice or for want of files, or expected and not run. */
function guardEntry(g: GuardStatus): CoverageEntry {
  const scope = g.files ? plural(g.files, 'file') : 'the change';
  if (g.status === 'error') return { check: g.id, scope, status: 'not-run', reason: g.reason ?? 'it crashed or ran out of time' };
  if (g.status !== 'skipped') return { check: g.id, scope, status: 'ran' };
  if (chosenSkip(g.reason)) return { check: g.id, scope, status: 'skipped', reason: g.reason ?? 'skipped' };
  // G17 that started and could not conclude (time, a compiler failure) left its files unchecked.
  if (g.id === 'G17' && /ran out of its time budget|compiler failed/.test(g.reason ?? ''))
    return { check: g.id, scope, status: 'not-run', reason: g.reason ?? 'not run' };
  return { check: g.id, scope, status: 'skipped', reason: g.reason ?? 'skipped' };
}

/**
 * The coverage record of a run, from the guard statuses and the sections G8 and G16 write. G8 and G16
 * are described by their sections (suite, packages, files, tools) when those are there.
 */
export function buildCoverage(statuses: readonly GuardStatus[], sections: ReportSections): CoverageEntry[] {
  const out: CoverageEntry[] = [];
  for (const g of statuses) {
    if (g.id === 'G8' && sections.tests && (g.status !== 'skipped' || !chosenSkip(g.reason))) {
      const entries = testEntries(sections.tests);
      if (entries.length) {
        out.push(...entries);
        continue;
      }
    }
    if (g.id === 'G16' && sections.checks?.checks.length) {
      out.push(...sections.checks.checks.map(checkEntry));
      continue;
    }
    out.push(guardEntry(g));
  }
  const missing = sections.tests?.systemPackagesMissing;
  if (missing?.length && out.some((e) => e.check === 'G8' && isGap(e))) {
    out.push({
      check: 'G8',
      scope: 'system packages',
      status: 'not-run',
      reason: `the project's CI installs ${missing.join(', ')} (apt-get), which this machine lacks; an operator can install them on the runner`,
    });
  }
  return out;
}

/** One line per gap, for the decision's headline: `the suite did not start … — …`, `G16 gofmt (101 files): partial — …`. */
export function gapLines(coverage: readonly CoverageEntry[]): string[] {
  return coverage.filter(isGap).map((e) => {
    if (e.check === 'G8' && e.reason?.startsWith('the suite did not start')) return e.reason;
    return `${e.check} on ${e.scope} ${e.status === 'partial' ? 'ran on part of its input' : 'did not run'}${e.reason ? ` (${e.reason})` : ''}`;
  });
}
