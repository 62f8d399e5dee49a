import { describe, expect, it } from 'vitest';
import type { Guard } from '../../src/core/guard.js';
import { renderReport } from '../../src/report/index.js';
import { renderText } from '../../src/report/text.js';
import { gate } from '../helpers/gate.js';
import { prRepo } from '../helpers/git-repo.js';
import { buildReport, f, psiSection, suiteBrokenReport, testsSection } from './build-report.js';

const ESC = '\u001b';

/** A fake guard: flags every added line containing "TODO" and one whole-change finding. */
const todoGuard: Guard = {
  id: 'GT',
  name: 'todo finder',
  appliesTo: () => true,
  checkFile: async (file) => {
    const text = file.head.text ?? '';
    return text
      .split('\n')
      .map((l, i) => ({ l, n: i + 1 }))
      .filter(({ l }) => l.includes('TODO'))
      .map(({ n }) => ({
        category: 'todo-marker' as const,
        severity: 'risk' as const,
        path: file.path,
        line: n,
        message: `TODO left on line ${n}`,
        remediation: 'Finish the work or open an issue for it.',
        suggestion: { path: file.path, startLine: n, endLine: n, replacement: 'done()\n' },
      }));
  },
  checkAll: () => [
    { category: 'tests-removed', severity: 'fail', message: 'the PR deletes tests', remediation: 'Explain why the tests were removed.' },
  ],
};

describe('report/text', () => {
  it('puts the decision first and groups findings by file, then line, with commit, remediation and suggestion', async () => {
    const repo = prRepo(
      { 'b.py': 'x = 1\n', 'a.py': 'y = 2\n' },
      { 'b.py': 'x = 1\n# TODO later\n# TODO again\n', 'a.py': 'y = 2\n# TODO here\n' },
    );
    const report = await gate(repo, [todoGuard]);
    const out = renderReport('text', report, { color: false });
    const lines = out.split('\n');
    expect(lines[0]).toContain('main..pr');
    expect(lines[1]).toMatch(/2 files changed · 1 commit/);
    const decisionAt = out.indexOf('ASK_AUTHOR');
    const findingsAt = out.indexOf('Findings (4)');
    expect(decisionAt).toBeGreaterThan(0);
    expect(decisionAt).toBeLessThan(findingsAt);
    expect(out).toContain('next: answer what the findings ask');
    // whole change first, then a.py, then b.py with line 2 before line 3
    const order = ['(whole change', 'a.py', 'b.py', 'line 2', 'line 3'].map((s) => out.indexOf(s, findingsAt));
    expect(order.every((i) => i > 0)).toBe(true);
    expect(order[0]!).toBeLessThan(order[1]!);
    expect(order[1]!).toBeLessThan(order[2]!);
    expect(out.indexOf('line 2', order[2])).toBeLessThan(out.indexOf('line 3', order[2]));
    expect(out).toContain(`commit ${report.commits[0]!.slice(0, 7)}`);
    expect(out).toContain('→ Finish the work or open an issue for it.');
    expect(out).toContain('+ done()');
    expect(out).toMatch(/✖ FAIL GT · tests-removed/);
    expect(out).toMatch(/▲ RISK GT · todo-marker · line 2/);
    expect(out).not.toContain(ESC);
  });

  it('colours only when asked', () => {
    const report = buildReport([f()]);
    expect(renderText(report, { color: false })).not.toContain(ESC);
    expect(renderText(report, { color: true })).toContain(`${ESC}[31m`);
  });

  it('a file name or message cannot smuggle terminal escape sequences through', () => {
    const evil = f({ path: `src/${ESC}[2Jwipe.py`, message: `gone${ESC}]0;pwned\u0007 ${ESC}[31mred` });
    const out = renderText(buildReport([evil]), { color: false });
    expect(out).not.toContain(ESC);
    expect(out).not.toContain('\u0007');
    expect(out).toContain('src/wipe.py');
  });

  it('shows the guard table with status, files, findings, ms and the skip reason', () => {
    const out = renderText(buildReport([f()]));
    expect(out).toMatch(/fail\s+G7 dropped definitions\s+1\s+1\s+12/);
    expect(out).toMatch(/skipped\s+G14 dead links\s+0\s+0\s+0\s+no changed files in scope/);
  });

  it('a suite that does not start at the head reads so, with the cause, never "no regressions"', () => {
    const out = renderText(suiteBrokenReport('`conftest.py` imports `sqlalchemy`, which is not installed in the sandbox'));
    expect(out).toContain(
      'Tests: suite does not start at the head: `conftest.py` imports `sqlalchemy`, which is not installed in the sandbox',
    );
    expect(out).not.toContain('no regressions');
  });

  it('renders the Ψ and tests sections the psi guard and G8 write', () => {
    const report = buildReport([f({ category: 'test-regression', guard: 'G8' })], {
      sections: {
        psi: psiSection([{ path: 'docs/x.md', psi: 0.41, gamma: 0.5, omega: 0.09 }]),
        tests: testsSection({ runner: 'pytest', regressions: ['tests/test_a.py::test_load'] }),
      },
    });
    const out = renderText(report);
    expect(out).toContain('Ψ-lite 0.41 (threshold 0.50) · weakest file docs/x.md');
    expect(out).toMatch(/Ψ 0\.41 {2}Γ 0\.50 {2}Ω 0\.09 {2}docs\/x\.md/);
    expect(out).toContain('Tests: 1 regression');
    expect(out).toContain('tests/test_a.py::test_load');
    expect(out).toContain('runner: pytest');
    expect(out).toContain('flaky: 0');
    const skipped = renderText(buildReport([], { sections: { tests: testsSection({ skipped: 'no test runner found' }) } }));
    expect(skipped).toContain('tests not run: no test runner found');
    expect(skipped).not.toContain('no regressions');
    // Nothing was compared: no empty counts that read like results, and the reason is said once.
    expect(skipped).not.toMatch(/flaky: 0|suiteBroken: false|brokenUnits: 0/);
    expect(skipped.match(/no test runner found/g)).toHaveLength(1);
  });

  it('describes both sides of the test gate the way G8 writes them', () => {
    const tests = testsSection({
      runner: 'pytest',
      baseline: { sha: '6eb3c9dfd4db', status: 'ok', failing: 0, broken: 0, total: 3, durationMs: 1041, cached: true },
      candidate: { sha: '4b086fd7df44', status: 'ok', failing: 1, broken: 1, total: 1, durationMs: 1118 },
      regressions: ['py:tests/test_connect.py::test_rows'],
      brokenUnits: ['py:tests/test_db.py'],
      fixed: [],
      sandbox: {
        sandbox: 'bwrap',
        network: 'isolated',
        pidNamespace: true,
        seccomp: false,
        processLimit: 'cgroup',
        memoryLimit: 'cgroup',
        disk: 'tmpfs',
      },
    });
    const out = renderText(buildReport([], { sections: { tests } }));
    expect(out).toContain('baseline: 0 failing of 3 tests · 1.0 s · 6eb3c9d · from the cache');
    expect(out).toContain('candidate: 1 failing of 1 test · 1 unit broken · 1.1 s · 4b086fd');
    expect(out).toContain('brokenUnits: py:tests/test_db.py');
    expect(out).toContain('sandbox: sandbox bwrap · network isolated · pidNamespace · processLimit cgroup');
    expect(out).not.toContain('seccomp');
  });

  it('a PASS report says so and lists no findings section', () => {
    const out = renderText(buildReport([]));
    expect(out).toContain('PASS (success) — every guard passed');
    expect(out).not.toContain('Findings (');
  });
});
