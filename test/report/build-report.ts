import { makeFinding, type Finding, type FindingInput } from '../../src/core/finding.js';
import type { Report } from '../../src/core/report.js';
import { decide } from '../../src/routing/decide.js';
import type { PsiSection, TestsSection } from '../../src/core/report-sections.js';
import type { DecideOptions } from '../../src/routing/types.js';

/** Report objects built directly, for reporter tests where a repository would add nothing. */

export const BASE_SHA = '1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
export const HEAD_SHA = '2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

export function f(over: Partial<FindingInput> = {}): Finding {
  return makeFinding({
    guard: 'G7',
    category: 'toplevel-dropped',
    severity: 'fail',
    path: 'src/app.py',
    line: 10,
    message: 'def load_config was removed',
    remediation: 'Restore load_config or update its callers.',
    ...over,
  });
}

export function buildReport(findings: Finding[], over: Partial<Report> = {}, decideOpts: DecideOptions = {}): Report {
  return {
    version: 1,
    tool: { name: 'slopgate', version: '0.1.0' },
    repo: 'acme/web',
    base: { ref: 'main', sha: BASE_SHA },
    head: { ref: 'feature', sha: HEAD_SHA },
    commits: [HEAD_SHA],
    files: [
      { path: 'src/app.py', status: 'modified', additions: 3, deletions: 9 },
      { path: 'README.md', status: 'modified', additions: 1, deletions: 1 },
    ],
    guards: [
      { id: 'G7', name: 'dropped definitions', status: findings.length ? 'fail' : 'pass', files: 1, findings: findings.length, ms: 12 },
      { id: 'G14', name: 'dead links', status: 'skipped', reason: 'no changed files in scope', files: 0, findings: 0, ms: 0 },
    ],
    findings,
    sections: {},
    decision: decide(findings, decideOpts),
    createdAt: '2026-01-01T00:00:00.000Z',
    durationMs: 42,
    ...over,
  };
}

/** A psi section as the psi guard writes it (one file per entry). */
export function psiSection(files: { path: string; psi: number; gamma?: number; omega?: number }[], threshold = 0.5): PsiSection {
  const rows = files.map((r) => ({
    path: r.path,
    psi: r.psi,
    gamma: r.gamma ?? 1,
    omega: r.omega ?? 0,
    components: { literalNewlines: 0, blankRuns: 0, trailingWhitespace: 0, fencedSource: 0, nearEmpty: 0 },
    gammaEvidence: [],
  }));
  const weakest = rows.reduce<(typeof rows)[number] | null>((w, r) => (w === null || r.psi < w.psi ? r : w), null);
  return { score: weakest?.psi ?? 1, weakestFile: weakest?.path ?? null, threshold, alpha: 1, lambda: 1, files: rows };
}

/** A tests section as G8 writes it, with empty lists unless given. */
export function testsSection(over: Partial<TestsSection> = {}): TestsSection {
  return { regressions: [], brokenUnits: [], suiteBroken: false, fixed: [], removed: [], flaky: [], ...over };
}

/**
 * A run in which the suite ran at the base (3 tests) and produced no results at the head: G8's
 * `build-broken` finding for the whole suite, and the section as G8 writes it.
 */
export function suiteBrokenReport(failure?: string): Report {
  const finding = f({
    guard: 'G8',
    category: 'build-broken',
    path: undefined,
    line: undefined,
    message: 'The test command `pytest` ran at the base but with this change it exits with code 4 without producing any test results.',
    remediation: 'Run `pytest` locally on this branch and fix what stops the suite from starting.',
  });
  return buildReport([finding], {
    sections: {
      tests: testsSection({
        runner: 'pytest',
        command: 'pytest',
        baseline: { sha: BASE_SHA, status: 'ok', failing: 0, broken: 0, total: 3, durationMs: 900, cached: false },
        candidate: {
          sha: HEAD_SHA,
          status: 'no-results',
          failing: 0,
          broken: 0,
          total: 0,
          durationMs: 300,
          ...(failure ? { failure } : {}),
        },
        suiteBroken: true,
      }),
    },
  });
}
