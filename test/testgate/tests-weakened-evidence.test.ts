import { afterAll, expect, it } from 'vitest';
import type { Report } from '../../src/core/report.js';
import { MemoryBaselineCache } from '../../src/testgate/baseline-cache.js';
import { g8 } from '../../src/guards/g8-tests/index.js';
import { g15 } from '../../src/guards/g15-weak-assertions/index.js';
import { gate } from '../helpers/gate.js';
import { prRepo, type TestRepo } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';
import { sandboxCacheDir } from './fixtures.js';

/**
 * Issue 18, item 1, with the tests on: G15 reads the weakening statically, G8 runs the base version of
 * the weakened test against the head. The two raise one finding with one fingerprint: `fail` naming the
 * test and its failure when the base version fails, else G15's risk with what the run showed.
 */

const cache = sandboxCacheDir();
afterAll(() => cache.remove());

const CALC = 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n';
const BROKEN = CALC.replace('return a + b', 'return a - b');
const TEST_ADD = 'from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n    assert add(0, 0) == 0\n';
const TEST_MUL = 'from calc.ops import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n';
const BASE = {
  'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
  'calc/__init__.py': '',
  'calc/ops.py': CALC,
  'tests/test_add.py': TEST_ADD,
  'tests/test_mul.py': TEST_MUL,
};
const SKIPPED = `import pytest\n${TEST_ADD.replace('def test_add', '@pytest.mark.skip(reason="requires special handling")\ndef test_add')}`;

const run = (repo: TestRepo) =>
  gate(repo, [g15, g8], {
    config: { tests: { enabled: true, timeoutSec: 120, reruns: 0 } },
    services: { baselineCache: new MemoryBaselineCache(), tests: { cacheDir: cache.dir, repo: 'fixture' } },
  });

/** Findings about the tests of tests/test_add.py, whatever their category. */
const aboutAdd = (report: Report) =>
  report.findings.filter((f) => (f.category === 'tests-weakened' || f.category === 'tests-removed') && f.path === 'tests/test_add.py');

needs('pytest', 'bwrap')('tests-weakened with the test gate on: the evidence rule, one finding per test', () => {
  it('a skip added to the test the change breaks: exactly one blocking finding naming the test and its failure', async () => {
    const report = await run(prRepo(BASE, { 'calc/ops.py': BROKEN, 'tests/test_add.py': SKIPPED }));
    const found = aboutAdd(report);
    expect(found).toHaveLength(1);
    const f = found[0]!;
    expect(f).toMatchObject({ category: 'tests-weakened', severity: 'fail', guard: 'G8', line: 5 });
    expect(f.confirmedBy.sort()).toEqual(['G15', 'G8']);
    expect(f.message).toContain(
      'The test `test_add` runs at the base, and this PR disables it with `@pytest.mark.skip(reason="requires special handling")`',
    );
    expect(f.message).toMatch(
      /its base version \(from \w+\) against this change and it fails .*`tests\/test_add\.py::test_add`: .*assert -1 == 5/,
    );
    expect(f.evidence).toMatchObject({ baseVersion: 'fails', tests: ['py:tests/test_add.py::test_add'], restored: ['tests/test_add.py'] });
    expect(report.decision.outcome).toBe('ASK_AUTHOR');
  }, 240_000);

  it('an assertion the change breaks deleted from a test that still passes: its base version fails → blocking', async () => {
    const weaker = TEST_ADD.replace('    assert add(2, 3) == 5\n', '');
    const report = await run(prRepo(BASE, { 'calc/ops.py': BROKEN, 'tests/test_add.py': weaker }));
    const found = aboutAdd(report);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ category: 'tests-weakened', severity: 'fail', guard: 'G8' });
    expect(found[0]!.message).toContain('deletes one of its assertions without adding any: `assert add(2, 3) == 5`');
    expect(found[0]!.message).toMatch(/assert -1 == 5/);
    expect(found[0]!.evidence).toMatchObject({ weakened: 'assertions', baseVersion: 'fails' });
    expect(report.decision.outcome).toBe('ASK_AUTHOR');
  }, 240_000);

  it('a skip added to a test whose base version still passes: one risk, with what the run showed', async () => {
    const report = await run(prRepo(BASE, { 'tests/test_add.py': SKIPPED }));
    const found = aboutAdd(report);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ category: 'tests-weakened', severity: 'risk' });
    expect(found[0]!.confirmedBy.sort()).toEqual(['G15', 'G8']);
    expect(found[0]!.evidence).toMatchObject({ weakened: 'skip', baseVersion: 'passes' });
    expect(report.decision.outcome).toBe('ADVISE');
  }, 240_000);
});
