import { expect, it } from 'vitest';
import { runCheck } from '../../src/cli/check.js';
import type { Report } from '../../src/core/report.js';
import { checkRunTitle, renderCheckRun } from '../../src/report/markdown.js';
import { prRepo } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';

/**
 * What a maintainer reads when the suite cannot start, through the real CLI: a conftest.py that imports
 * a module the sandbox does not have, at the head (the suite ran at the base) and at the base (nothing
 * to compare). The title and the summary say what happened and name the module; the finding asks for
 * the project's own command, never slopgate's wrapper.
 */
const PROJECT = {
  'pyproject.toml': '[project]\nname = "shop"\nversion = "0.1.0"\ndependencies = []\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
  'shop/__init__.py': 'def total(prices):\n    return sum(prices)\n',
  'tests/test_total.py': 'from shop import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n',
  'tests/conftest.py': 'import pytest\n',
};
const NEEDS_MISSING =
  'import pytest\nfrom absent_dependency.orm import Session\n\n\n@pytest.fixture\ndef session():\n    return Session()\n';
const CAUSE = '`tests/conftest.py` imports `absent_dependency`, which is not installed in the sandbox';

async function check(base: Record<string, string>, head: Record<string, string>, format: 'json' | 'text' = 'json') {
  const repo = prRepo(base, head);
  let out = '';
  // G2 runs too, so that the decision rests on some evidence besides the test gate.
  await runCheck({ repo: repo.dir, base: 'main', head: 'pr', format, strict: false, only: ['G2', 'G8'] }, (s) => (out += s));
  return out;
}

needs('pytest', 'bwrap')('honest outcomes of the test gate, through the CLI', () => {
  it('the suite does not start at the head: the title, the summary and the text say so with the cause, and the finding names `pytest`', async () => {
    const report = JSON.parse(await check(PROJECT, { 'tests/conftest.py': NEEDS_MISSING })) as Report;
    const tests = report.sections.tests!;
    expect(tests).toMatchObject({ suiteBroken: true, command: 'pytest', candidate: { status: 'no-results' } });
    expect(tests.internalCommand).toContain('-p _slopgate_origins');
    expect(tests.candidate?.failure).toMatch(new RegExp(`^${CAUSE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; declare it in the project`));

    expect(checkRunTitle(report)).toBe(`1 blocking · suite does not start at the head: ${CAUSE}`);
    const { summary } = renderCheckRun(report);
    expect(summary).toContain(`### Tests: suite does not start at the head: ${CAUSE}\n`);
    expect(summary).not.toContain('no regressions');

    const [finding] = report.findings;
    expect(finding).toMatchObject({ guard: 'G8', category: 'build-broken', severity: 'fail' });
    expect(finding!.message).toContain(
      `The test suite (\`pytest\`) produced results at the base (${report.base.sha.slice(0, 7)}) but none with this change: ${CAUSE}`,
    );
    expect(finding!.remediation).toMatch(/^Run `pytest` on this branch/);
    for (const text of [finding!.message, finding!.remediation]) expect(text).not.toMatch(/SLOPGATE|_slopgate_origins|PYTHONPATH/);

    const text = await check(PROJECT, { 'tests/conftest.py': NEEDS_MISSING }, 'text');
    expect(text).toContain(`Tests: suite does not start at the head: ${CAUSE}; declare it`);
    expect(text).toContain('  command: pytest\n');
    expect(text).not.toContain('no regressions');
    expect(text).not.toContain('_slopgate_origins');
  }, 240_000);

  it('the suite does not start at the base: G8 is skipped naming the module and how to provide it, never a bare exit code', async () => {
    const report = JSON.parse(
      await check(
        { ...PROJECT, 'tests/conftest.py': NEEDS_MISSING },
        { 'shop/__init__.py': 'def total(prices):\n    return sum(prices) + 1\n' },
      ),
    ) as Report;
    const g8 = report.guards.find((g) => g.id === 'G8')!;
    expect(g8.status).toBe('skipped');
    expect(g8.reason).toMatch(
      /^no test results at the base: `tests\/conftest\.py` imports `absent_dependency`, which is not installed in the sandbox; declare it/,
    );
    expect(g8.reason).toMatch(/tests\.setup.*Without them, new failures cannot be told from old ones$/);
    expect(g8.reason).not.toMatch(/\(exit \d+\)/);
    // The suite never started: not verified, never a pass.
    expect(checkRunTitle(report)).toBe(`not verified · tests not run: no test results at the base: ${CAUSE}`);
    expect(report.decision.reason).toContain(
      `not verified: the suite did not start at the base or the head — no test results at the base: ${CAUSE}`,
    );
    expect(report.decision.conclusion).toBe('neutral');
  }, 240_000);

  it('a CI workflow’s command is the one the finding asks for', async () => {
    const base = {
      ...PROJECT,
      '.github/workflows/ci.yml':
        'on: [pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: python -m pytest -q tests\n',
    };
    const report = JSON.parse(await check(base, { 'tests/conftest.py': NEEDS_MISSING })) as Report;
    expect(report.sections.tests!.command).toBe('python -m pytest -q tests');
    expect(report.findings[0]!.remediation).toMatch(/^Run `python -m pytest -q tests` on this branch/);
  }, 240_000);
});
