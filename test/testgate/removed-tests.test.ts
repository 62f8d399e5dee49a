import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Report } from '../../src/core/report.js';
import { prRepo } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';
import { gateTests, sandboxCacheDir } from './fixtures.js';

/**
 * The evidence rule for tests a PR takes out of the run: their base version is run against the PR's
 * code. Failing there is a blocking `tests-removed` finding naming the test and the failure; passing or
 * not runnable is a risk. A PR that removes tests is never a silent neutral.
 */

const cache = sandboxCacheDir();
const outside = mkdtempSync(join(tmpdir(), 'slopgate-outside-'));
afterAll(() => {
  cache.remove();
  rmSync(outside, { recursive: true, force: true });
});

const CALC = 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n';
const BROKEN = CALC.replace('return a + b', 'return a - b');
const TEST_ADD = 'from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n';
const TEST_MUL = 'from calc.ops import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n';
const BASE = {
  'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
  'calc/__init__.py': '',
  'calc/ops.py': CALC,
  'tests/test_add.py': TEST_ADD,
  'tests/test_mul.py': TEST_MUL,
};

/** Two test folders, so that taking one away still leaves tests that run. */
const TWO_DIRS = {
  'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n',
  'calc/__init__.py': '',
  'calc/ops.py': CALC,
  'tests/test_add.py': TEST_ADD,
  'checks/test_mul.py': TEST_MUL,
};

const removedFindings = (report: Report) => report.findings.filter((f) => f.category === 'tests-removed');

needs('pytest')('tests a PR takes out of the run follow the evidence rule', () => {
  it('deleting the test a change breaks: blocking, naming the test and its failure', async () => {
    const repo = prRepo(BASE, { 'calc/ops.py': BROKEN, 'tests/test_add.py': null });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    const [f, ...rest] = removedFindings(report);
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ severity: 'fail', path: 'tests/test_add.py' });
    expect(f!.message).toContain('1 test that passed at the base');
    expect(f!.message).toContain('are gone with this change, and their base version fails against it');
    expect(f!.message).toMatch(/`tests\/test_add\.py::test_add`: .*assert -1 == 5/);
    expect(f!.evidence).toMatchObject({ tests: ['py:tests/test_add.py::test_add'], restored: ['tests/test_add.py'] });
    expect(report.decision.outcome).toBe('ASK_AUTHOR');
  }, 240_000);

  it('moving it out of the collected paths (testpaths) is the same', async () => {
    const repo = prRepo(BASE, { 'calc/ops.py': BROKEN, 'tests/test_add.py': null, 'attic/test_add.py': TEST_ADD });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    expect(removedFindings(report)).toMatchObject([{ severity: 'fail', path: 'tests/test_add.py' }]);
    expect(report.decision.outcome).toBe('ASK_AUTHOR');
  }, 240_000);

  it('a skip marker added to the broken test: its base version is run and fails; the finding is the tests-weakened one G15 would raise', async () => {
    const skipped = `import pytest\n${TEST_ADD.replace('def test_add', '@pytest.mark.skip(reason="later")\ndef test_add')}`;
    const repo = prRepo(BASE, { 'calc/ops.py': BROKEN, 'tests/test_add.py': skipped });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    expect(removedFindings(report)).toEqual([]);
    const [f, ...rest] = report.findings.filter((x) => x.category === 'tests-weakened');
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ severity: 'fail', path: 'tests/test_add.py', line: 5 });
    expect(f!.message).toContain('and it fails — the change breaks what the test checked');
    expect(report.decision.outcome).toBe('ASK_AUTHOR');
  }, 240_000);

  it('a skip the source does not show (a conftest.py hook marks it): its base version is run and fails', async () => {
    const hook = [
      'import pytest',
      '',
      '',
      'def pytest_collection_modifyitems(items):',
      '    for item in items:',
      '        if item.name == "test_add":',
      '            item.add_marker(pytest.mark.skip(reason="later"))',
      '',
    ].join('\n');
    const repo = prRepo(BASE, { 'calc/ops.py': BROKEN, 'tests/conftest.py': hook });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    const [f] = removedFindings(report).filter((x) => x.path === 'tests/test_add.py');
    expect(f).toMatchObject({ severity: 'fail', path: 'tests/test_add.py' });
    expect(f!.message).toContain('are skipped with this change, and their base version fails against it');
    expect(report.decision.outcome).toBe('ASK_AUTHOR');
  }, 240_000);

  it('a test module deleted with the function it tested (nothing at the head defines it): a risk, removed with the code', async () => {
    const repo = prRepo(BASE, { 'calc/ops.py': 'def add(a, b):\n    return a + b\n', 'tests/test_mul.py': null });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    const [f] = removedFindings(report);
    expect(f).toMatchObject({ severity: 'risk', path: 'tests/test_mul.py' });
    expect(f!.message).toContain('removed with the code they tested');
    expect(f!.message).toMatch(/nothing at the head defines `mul`.*cannot import name 'mul'/);
  }, 240_000);

  it('the function moved to another module while its test is deleted: blocking, with the import error', async () => {
    const repo = prRepo(BASE, {
      'calc/ops.py': 'def add(a, b):\n    return a + b\n',
      'calc/more.py': 'def mul(a, b):\n    return a * b + 0\n',
      'tests/test_mul.py': null,
    });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    const [f] = removedFindings(report);
    expect(f).toMatchObject({ severity: 'fail', path: 'tests/test_mul.py' });
    expect(f!.message).toMatch(/ImportError|cannot import name 'mul'/);
  }, 240_000);

  it("a conftest.py the change adds cannot turn the restored test's failure into a pass", async () => {
    const swallow = [
      'import pytest',
      '',
      '',
      '@pytest.hookimpl(hookwrapper=True)',
      'def pytest_runtest_makereport(item, call):',
      '    outcome = yield',
      '    report = outcome.get_result()',
      '    if report.failed:',
      '        report.outcome = "passed"',
      '',
    ].join('\n');
    const repo = prRepo(BASE, { 'calc/ops.py': BROKEN, 'tests/test_add.py': null, 'conftest.py': swallow });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    expect(removedFindings(report)).toMatchObject([{ severity: 'fail', path: 'tests/test_add.py' }]);
  }, 240_000);

  it('deleting a test whose base version still passes: a risk that says so, not silence', async () => {
    const repo = prRepo(BASE, { 'tests/test_mul.py': null });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    expect(removedFindings(report)).toMatchObject([{ severity: 'risk', path: 'tests/test_mul.py' }]);
    expect(removedFindings(report)[0]!.message).toContain('its base version still passes against this change');
    expect(report.decision.outcome).toBe('ADVISE');
  }, 240_000);

  it('the tests folder replaced by a symlink out of the tree: the base test is written inside the tree, never through the link', async () => {
    const repo = prRepo(TWO_DIRS, { 'calc/ops.py': BROKEN, 'tests/test_add.py': null });
    rmSync(join(repo.dir, 'tests'), { recursive: true, force: true });
    repo.symlink('tests', outside).commit('tests elsewhere');
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    expect(readdirSync(outside)).toEqual([]);
    const failing = removedFindings(report).filter((f) => f.severity === 'fail');
    expect(failing.map((f) => f.path)).toEqual(['tests/test_add.py']);
    expect(report.decision.outcome).toBe('ASK_AUTHOR');
  }, 240_000);

  it('the tests folder turned into a submodule: the base tests run against the change, and the finding says why they were gone', async () => {
    const repo = prRepo(TWO_DIRS, { 'calc/ops.py': BROKEN, 'tests/test_add.py': null });
    const sha = repo.git('rev-parse', 'HEAD').trim();
    repo.git('update-index', '--add', '--cacheinfo', `160000,${sha},tests`);
    repo.git('commit', '-q', '-m', 'tests as a submodule');
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    const [f] = removedFindings(report).filter((x) => x.severity === 'fail');
    expect(f).toMatchObject({ path: 'tests/test_add.py' });
    expect(f!.message).toContain('`tests` is a submodule; submodules are not part of the tree under test');
  }, 240_000);
});
