import { afterAll, describe, expect, it } from 'vitest';
import type { SuiteResult, TestOutcome } from '../../src/core/suite-result.js';
import { compareSuites } from '../../src/testgate/compare.js';
import { maskedId, pairTests } from '../../src/testgate/pair-tests.js';
import { prRepo } from '../helpers/git-repo.js';
import { gateTests, sandboxCacheDir, testsSection } from './fixtures.js';

const suite = (tests: TestOutcome[]): SuiteResult => ({
  runner: 'pytest',
  command: 'pytest',
  status: 'ok',
  exitCode: 1,
  tests,
  units: [],
  durationMs: 1,
  outputTail: '',
  sha: 'a',
});
const t = (id: string, status: TestOutcome['status'] = 'passed'): TestOutcome => ({ id, status, unit: 'py:t.py' });

describe('a parametrized test whose id changes from run to run is still the same test', () => {
  it('masks addresses, uuids and temporary paths, and puts a set’s elements in one order', () => {
    expect(maskedId('py:t.py::test_v[<function f at 0x7fa1280b6160>]')).toBe('py:t.py::test_v[<function f at 0x…>]');
    expect(maskedId("py:t.py::test_s[{1, b'3', '2'}]")).toBe(maskedId("py:t.py::test_s[{'2', 1, b'3'}]"));
    expect(maskedId('py:t.py::test_u[3f1c2a9e-1b2c-4d5e-8f90-123456789abc]')).toBe('py:t.py::test_u[<uuid>]');
    expect(maskedId('py:t.py::test_p[/tmp/pytest-of-u/pytest-3/x0]')).toBe('py:t.py::test_p[<tmp>]');
    expect(maskedId('py:t.py::test_plain[1-2]')).toBe('py:t.py::test_plain[1-2]');
  });

  it('a list built from a set (its words in another order) is the same test, when it is the only one that reads so', () => {
    const base = [t("py:t.py::test_any[{1, '2', b'3'}-IsList('2', 1, '3')]", 'failed'), t('py:t.py::test_any[x-y]')];
    const head = [t("py:t.py::test_any[{b'3', 1, '2'}-IsList(1, '3', '2')]", 'failed'), t('py:t.py::test_any[x-y]')];
    const cmp = compareSuites(suite(base), suite(head));
    expect([cmp.newlyFailing, cmp.removed]).toEqual([[], []]);
  });

  it('pairs exactly first, then by the masked id when it is one test on each side; two that mask alike stay unpaired', () => {
    const base = [t('a'), t('b[<X at 0x000055b12f02a400>]', 'failed'), t('c[<Y at 0x7f0000000001>]'), t('c[<Y at 0x7f0000000002>]')];
    const head = [t('a'), t('b[<X at 0x000055c00000aaaa>]', 'failed'), t('c[<Y at 0x7f00000000aa>]'), t('c[<Y at 0x7f00000000bb>]')];
    const pairs = pairTests(base, head);
    expect(pairs.get('a')?.id).toBe('a');
    expect(pairs.get('b[<X at 0x000055c00000aaaa>]')?.id).toBe('b[<X at 0x000055b12f02a400>]');
    expect(pairs.has('c[<Y at 0x7f00000000aa>]')).toBe(false);
    const cmp = compareSuites(suite(base), suite(head));
    // b failed on both sides: not a regression, and not removed
    expect(cmp.newlyFailing.map((x) => x.id)).toEqual([]);
    expect(cmp.removed.map((x) => x.id).sort()).toEqual(['c[<Y at 0x7f0000000001>]', 'c[<Y at 0x7f0000000002>]']);
  });
});

describe('through the real gate: pytest ids that hold an address (pydantic#13614’s shape)', () => {
  const cache = sandboxCacheDir();
  afterAll(() => cache.remove());
  const TEST = (body: string) =>
    `import pytest\n\nfrom app import value\n\n\nclass Box:\n    pass\n\n\n@pytest.mark.parametrize("box", [Box()], ids=repr)\ndef test_box(box):\n    ${body}\n\n\ndef test_value():\n    assert value() == 1\n`;

  it('a test failing at the base and at the head under a new address is not a regression; one the PR breaks is', async () => {
    const repo = prRepo(
      {
        'pytest.ini': '[pytest]\ntestpaths = tests\n',
        'tests/__init__.py': '',
        'app.py': 'def value():\n    return 1\n',
        'tests/test_app.py': TEST('assert False, "fails on both sides"'),
      },
      { 'app.py': 'def value():\n    return 2\n' },
    );
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0, install: 'off' } });
    const s = testsSection(report);
    expect(s.candidate?.failing, JSON.stringify(s.candidate)).toBe(2);
    expect(s.regressions).toEqual(['py:tests/test_app.py::test_value']);
    expect(s.removed).toEqual([]);
  });
});
