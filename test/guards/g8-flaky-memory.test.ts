import { afterAll, beforeAll, expect, it } from 'vitest';
import { configSchema, type SlopgateConfigInput } from '../../src/core/config-schema.js';
import type { Report } from '../../src/core/report.js';
import { runGate } from '../../src/gate/run-gate.js';
import { g8 } from '../../src/guards/g8-tests/index.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { openStore } from '../../src/store/open-store.js';
import { storeServices } from '../../src/store/services.js';
import type { Store } from '../../src/store/store.js';
import { MemoryBaselineCache } from '../../src/testgate/baseline-cache.js';
import { evidenceViolations } from '../helpers/evidence.js';
import { prRepo, type TestRepo } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';
import { sandboxCacheDir, testsSection } from '../testgate/fixtures.js';

/**
 * Issue 33, the flaky memory: flips are stored per repository and test id with each run; a test that
 * flipped on two other PRs is known flaky on the third, where its failure is a nit, while a real
 * regression of another test on that PR still blocks. Real repositories through the real pipeline and
 * the real store (PGlite), as the App wires them.
 */
const cache = sandboxCacheDir();
let store: Store;
const REPO = 'acme/app';

beforeAll(async () => {
  store = await openStore({});
});
afterAll(async () => {
  await store.close();
  cache.remove();
});

const APP = 'def add(a, b):\n    return a + b\n';
const TEST_APP = 'from app import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n';
const STEADY = 'def test_clock():\n    assert True\n';
/** Fails on its first run in a tree, passes on a re-run (the marker file stays between them). */
const FLIPS = `import os


def test_clock():
    marker = os.path.join(os.getcwd(), ".clock-marker")
    if not os.path.exists(marker):
        open(marker, "w").close()
        assert False, "clock skew"
`;
const ALWAYS_FAILS = 'def test_clock():\n    assert False, "clock skew"\n';

const BASE = {
  'pyproject.toml': '[project]\nname = "app"\nversion = "0.1.0"\n',
  'app/__init__.py': APP,
  'tests/__init__.py': '',
  'tests/test_app.py': TEST_APP,
  'tests/test_clock.py': STEADY,
};

async function gatePr(repo: TestRepo, pr: number, tests: SlopgateConfigInput['tests'] = {}): Promise<Report> {
  const report = await runGate({
    repoDir: repo.dir,
    base: 'main',
    head: 'pr',
    guards: [g8],
    config: configSchema.parse({ tests: { timeoutSec: 120, ...tests } }),
    services: {
      ...storeServices(store, { repo: REPO, pr }),
      baselineCache: new MemoryBaselineCache(),
      tests: { cacheDir: cache.dir, repo: REPO },
    },
  });
  expect(evidenceViolations(report.findings, [g8])).toEqual([]);
  await store.saveRun(report, { repo: REPO, pr, trigger: 'pull_request' });
  return report;
}

const CLOCK = 'py:tests/test_clock.py::test_clock';
const ADD = 'py:tests/test_app.py::test_add';

needs('pytest')('G8 remembers flaky tests across PRs', () => {
  it('a test that flipped on two PRs is known flaky on the third: not blocking there, while a real regression still blocks', async () => {
    for (const pr of [11, 12]) {
      const flipped = await gatePr(prRepo(BASE, { 'tests/test_clock.py': FLIPS }), pr);
      expect(testsSection(flipped).flaky).toEqual([CLOCK]);
      expect(flipped.findings.map((f) => [f.category, f.severity])).toEqual([['flaky-test', 'nit']]);
    }
    const known = await store.knownFlaky(REPO, [CLOCK], { prs: 2, windowDays: 30, excludePr: 13 });
    expect(known).toMatchObject([{ test: CLOCK, basis: 'prs', prs: [11, 12], flips: 2 }]);

    // PR 13: the flaky test fails on every run, and the change really breaks `add`.
    const third = await gatePr(
      prRepo(BASE, { 'tests/test_clock.py': ALWAYS_FAILS, 'app/__init__.py': 'def add(a, b):\n    return a - b\n' }),
      13,
    );
    const byCategory = third.findings.map((f) => [f.category, f.severity, (f.evidence as { test?: string } | undefined)?.test]);
    expect(byCategory).toEqual(
      expect.arrayContaining([
        ['test-regression', 'fail', ADD],
        ['flaky-test', 'nit', CLOCK],
      ]),
    );
    expect(byCategory).toHaveLength(2);
    const clock = third.findings.find((f) => f.category === 'flaky-test')!;
    expect(clock.message).toContain('known flaky');
    expect(clock.message).toContain('#11, #12');
    expect(testsSection(third).regressions).toEqual([ADD]);
    expect(third.sections.tests?.knownFlaky).toEqual([CLOCK]);
    expect(third.decision.blocking).toBe(1);
    expect(third.decision.conclusion).toBe('failure');
    // The check run (the Markdown summary) says that a known-flaky test failed.
    const md = renderMarkdown(third);
    expect(md).toContain('1 regression (1 known-flaky test failed, not blocking)');
    expect(md).toContain('known flaky');
  }, 600_000);

  it('on that third PR without the real regression, the known-flaky failure alone does not block', async () => {
    const alone = await gatePr(prRepo(BASE, { 'tests/test_clock.py': ALWAYS_FAILS }), 14);
    expect(alone.findings.map((f) => [f.category, f.severity])).toEqual([['flaky-test', 'nit']]);
    expect(alone.decision.blocking).toBe(0);
    expect(alone.decision.conclusion).not.toBe('failure');
    expect(testsSection(alone).regressions).toEqual([]);
  }, 300_000);

  it('one PR flipping twice does not make its own test known flaky; a quarantined test never blocks', async () => {
    const other = 'py:tests/test_other.py::test_net';
    await store.recordFlips({ repo: REPO, pr: 20, headSha: 'a'.repeat(40), testIds: [other] });
    await store.recordFlips({ repo: REPO, pr: 20, headSha: 'b'.repeat(40), testIds: [other] });
    expect(await store.knownFlaky(REPO, [other], { prs: 2, windowDays: 30 })).toEqual([]);
    expect(await store.knownFlaky(REPO, [other], { prs: 1, windowDays: 30, excludePr: 20 })).toEqual([]);
    // A flip on a base is enough alone.
    await store.recordFlips({ repo: REPO, onBase: true, headSha: 'c'.repeat(40), testIds: [other] });
    expect(await store.knownFlaky(REPO, [other], { prs: 2, windowDays: 30, excludePr: 20 })).toMatchObject([
      { test: other, basis: 'base' },
    ]);

    const quarantined = await gatePr(prRepo(BASE, { 'app/__init__.py': 'def add(a, b):\n    return a - b\n' }), 21, {
      quarantine: ['tests/test_app.py::test_add'],
    });
    expect(quarantined.findings.map((f) => [f.category, f.severity])).toEqual([['flaky-test', 'nit']]);
    expect(quarantined.findings[0]!.message).toContain('quarantined');
    expect(quarantined.sections.tests?.quarantined).toEqual([ADD]);
    expect(quarantined.decision.blocking).toBe(0);
  }, 300_000);
});
