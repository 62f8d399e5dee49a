import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/core/finding.js';
import type { Report } from '../../src/core/report.js';
import { prRepo, removeTestRepos } from '../helpers/git-repo.js';

/**
 * Issue 18, item 1, through the real CLI (tests off, as by default): a PR that disables existing tests
 * or deletes their assertions gets one `tests-weakened` risk per test, on the changed line, naming the
 * test and what was added or removed; an old skip, a platform skip on a new test and a skip outside the
 * test paths are not weakening, and a `slopgate-ignore` in the PR cannot dismiss it.
 */
const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const CLI = join(process.cwd(), 'src', 'cli.ts');

afterAll(() => removeTestRepos());

const PY_BASE = `import sys

import pytest

from calc import add


def test_add():
    assert add(2, 3) == 5


def test_add_negative():
    assert add(-1, -1) == -2
    assert add(-1, 1) == 0


def test_add_zero():
    assert add(0, 0) == 0


@pytest.mark.skipif(sys.platform == "win32", reason="posix paths")
def test_old_skip():
    assert add(1, 1) == 2


class TestAddMore:
    def test_big(self):
        assert add(10**9, 1) == 10**9 + 1
`;

const PY_HEAD = `import sys

import pytest

from calc import add


# slopgate-ignore tests-weakened: flaky on CI
@pytest.mark.skip(reason="flaky")
def test_add():
    assert add(2, 3) == 5


def test_add_negative():
    assert add(-1, -1) == -2


def test_add_zero():
    assert add(0, 0) == 0 and add(1, 0) == 1


@pytest.mark.skipif(sys.platform.startswith("win"), reason="posix paths only")
def test_old_skip():
    assert add(1, 1) == 2


@pytest.mark.skipif(sys.platform == "darwin", reason="linux only")
def test_new_platform_only():
    assert add(3, 3) == 6


@pytest.mark.skip(reason="written ahead of the fix")
def test_new_born_skipped():
    assert add(3, 4) == 7


class TestAddMore:
    def test_big(self):
        self.skipTest("slow")
        assert add(10**9, 1) == 10**9 + 1
`;

const GO_BASE = `package calc

import (
\t"runtime"
\t"testing"
)

func TestAdd(t *testing.T) {
\tif Add(1, 2) != 3 {
\t\tt.Fatal("1 + 2 is not 3")
\t}
}

func TestSub(t *testing.T) {
\tif Sub(3, 2) != 1 {
\t\tt.Fatal("3 - 2 is not 1")
\t}
}

var _ = runtime.GOOS
`;

const GO_HEAD = GO_BASE.replace(
  'func TestAdd(t *testing.T) {\n',
  'func TestAdd(t *testing.T) {\n\tt.Skip("requires special handling")\n',
).replace(
  'var _ = runtime.GOOS\n',
  'var _ = runtime.GOOS\n\nfunc TestWindowsPaths(t *testing.T) {\n\tif runtime.GOOS != "windows" {\n\t\tt.Skip("windows only")\n\t}\n\tif Sub(2, 2) != 0 {\n\t\tt.Fatal("no")\n\t}\n}\n',
);

const GINKGO_BASE = `package calc_test

import (
\t. "github.com/onsi/ginkgo/v2"
\t. "github.com/onsi/gomega"
)

var _ = Describe("Calc", func() {
\tIt("adds", func() {
\t\tExpect(Add(1, 2)).To(Equal(3))
\t})
\tIt("subtracts", func() {
\t\tExpect(Sub(3, 2)).To(Equal(1))
\t})
})
`;

const GINKGO_HEAD = GINKGO_BASE.replace('\tIt("adds"', '\tXIt("adds"').replace(
  '\tIt("subtracts", func() {\n',
  '\tIt("subtracts", func() {\n\t\tSkip("requires special handling")\n',
);

/** Issue 31: a Skip(...) in a container's BeforeEach switches off every spec of the container. */
const GINKGO_SETUP_BASE = GINKGO_BASE.replace(
  'var _ = Describe("Calc", func() {\n',
  'var _ = Describe("Calc", func() {\n\tBeforeEach(func() {\n\t\tReset()\n\t})\n',
);
const GINKGO_SETUP_HEAD = GINKGO_SETUP_BASE.replace('\t\tReset()\n', '\t\tSkip("flaky on CI")\n\t\tReset()\n');

const JS_BASE = `import { describe, expect, it } from 'vitest';
import { add } from '../src/calc.js';

describe('calc', () => {
  it('adds', () => {
    expect(add(1, 2)).toBe(3);
  });
  it('adds negatives', () => {
    expect(add(-1, -2)).toBe(-3);
  });
});
`;
const JS_HEAD = JS_BASE.replace("it('adds',", "it.skip('adds',");

/** A whole file switched off (pytest module mark) and a whole describe block (describe.skip). */
const PY_MODULE_BASE = 'from calc import add\n\n\ndef test_one():\n    assert add(1, 0) == 1\n';
const PY_MODULE_HEAD = `import pytest\n\npytestmark = pytest.mark.skip(reason="broken")\n${PY_MODULE_BASE.slice(PY_MODULE_BASE.indexOf('\n') + 1)}`;
const JS_GROUP_BASE = "describe('parse', () => {\n  it('reads', () => {\n    expect(parse('a')).toEqual(['a']);\n  });\n});\n";
const JS_GROUP_HEAD = JS_GROUP_BASE.replace("describe('parse'", "describe.skip('parse'");
const PW_BASE =
  "test.describe('login', () => {\n  test('works', async ({ page }) => {\n    await expect(page).toHaveTitle('x');\n  });\n});\n";
const PW_HEAD = PW_BASE.replace('test.describe(', 'test.describe.skip(');

const RS_BASE = `pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 3);
    }
}
`;
const RS_HEAD = RS_BASE.replace('    #[test]\n    fn adds', '    #[test]\n    #[ignore]\n    fn adds');

const JAVA_BASE = `package calc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CalcTest {
    @Test
    void adds() {
        assertEquals(3, Calc.add(1, 2));
    }
}
`;
const JAVA_HEAD = JAVA_BASE.replace(
  'import org.junit.jupiter.api.Test;',
  'import org.junit.jupiter.api.Disabled;\nimport org.junit.jupiter.api.Test;',
).replace('    @Test\n    void adds', '    @Test\n    @Disabled("later")\n    void adds');

/** Test-looking code outside the test paths: a helper script and a source file. */
const SCRIPT_BASE = 'import pytest\n\n\ndef test_smoke():\n    assert True\n';
const SCRIPT_HEAD = 'import pytest\n\n\ndef test_smoke():\n    pytest.skip("off")\n    assert True\n';
const SRC_JS_BASE = "export function register(it) {\n  it('works', () => {\n    expect(1).toBe(1);\n  });\n}\n";
const SRC_JS_HEAD = SRC_JS_BASE.replace("it('works'", "it.skip('works'");

let report: Report;
let status: number | null;
const weakened = () => report.findings.filter((f) => f.category === 'tests-weakened');
const find = (path: string, test: string): Finding | undefined =>
  weakened().find((f) => f.path === path && (f.evidence as { test?: string } | undefined)?.test === test);

beforeAll(() => {
  const repo = prRepo(
    {
      'tests/test_calc.py': PY_BASE,
      'calc/calc_test.go': GO_BASE,
      'calc/suite_test.go': GINKGO_BASE,
      'calc/setup_test.go': GINKGO_SETUP_BASE,
      'test/calc.test.ts': JS_BASE,
      'src/lib.rs': RS_BASE,
      'src/test/java/calc/CalcTest.java': JAVA_BASE,
      'scripts/smoke.py': SCRIPT_BASE,
      'src/register.js': SRC_JS_BASE,
      'tests/test_module.py': PY_MODULE_BASE,
      'test/parse.spec.js': JS_GROUP_BASE,
      'e2e/login.spec.ts': PW_BASE,
    },
    {
      'tests/test_calc.py': PY_HEAD,
      'calc/calc_test.go': GO_HEAD,
      'calc/suite_test.go': GINKGO_HEAD,
      'calc/setup_test.go': GINKGO_SETUP_HEAD,
      'test/calc.test.ts': JS_HEAD,
      'src/lib.rs': RS_HEAD,
      'src/test/java/calc/CalcTest.java': JAVA_HEAD,
      'scripts/smoke.py': SCRIPT_HEAD,
      'src/register.js': SRC_JS_HEAD,
      'tests/test_module.py': PY_MODULE_HEAD,
      'test/parse.spec.js': JS_GROUP_HEAD,
      'e2e/login.spec.ts': PW_HEAD,
    },
  );
  const r = spawnSync(TSX, [CLI, 'check', '--base', 'main', '--head', 'pr', '--no-tests', '--only', 'G15', '--format', 'json'], {
    cwd: repo.dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  expect(r.stderr).not.toMatch(/Error/);
  status = r.status;
  report = JSON.parse(r.stdout) as Report;
}, 120_000);

describe('tests-weakened: skips added to existing tests and deleted assertions (real CLI, tests off)', () => {
  it('pytest skip marker added to an existing test: risk on the marker line, naming the test and the marker', () => {
    const f = find('tests/test_calc.py', 'test_add');
    expect(f).toMatchObject({ guard: 'G15', severity: 'risk', line: 9 });
    expect(f!.message).toContain('The test `test_add` runs at the base, and this PR disables it with `@pytest.mark.skip(reason="flaky")`');
    expect(f!.evidence).toMatchObject({ weakened: 'skip', added: ['@pytest.mark.skip(reason="flaky")'] });
  });

  it('unittest self.skipTest added inside an existing method', () => {
    const f = find('tests/test_calc.py', 'TestAddMore.test_big');
    expect(f).toMatchObject({ severity: 'risk', line: 39 });
    expect(f!.message).toContain('`self.skipTest("slow")`');
  });

  it('assertions deleted from an existing test without new ones: risk naming the deleted assertion', () => {
    const f = find('tests/test_calc.py', 'test_add_negative');
    expect(f).toMatchObject({ severity: 'risk', line: 15 });
    expect(f!.message).toContain('deletes one of its assertions without adding any: `assert add(-1, 1) == 0`');
    expect(f!.evidence).toMatchObject({ weakened: 'assertions', removed: ['assert add(-1, 1) == 0'] });
  });

  it('not weakening: a rewritten assertion, an old skipif whose condition changed, a platform skipif or a skip on a new test', () => {
    for (const test of ['test_add_zero', 'test_old_skip', 'test_new_platform_only', 'test_new_born_skipped'])
      expect(find('tests/test_calc.py', test)).toBeUndefined();
  });

  it('Go t.Skip added to an existing test; a GOOS-conditional skip in a new test is not', () => {
    const f = find('calc/calc_test.go', 'TestAdd');
    expect(f).toMatchObject({ severity: 'risk', line: 9 });
    expect(f!.message).toContain('`t.Skip("requires special handling")`');
    expect(find('calc/calc_test.go', 'TestWindowsPaths')).toBeUndefined();
    expect(find('calc/calc_test.go', 'TestSub')).toBeUndefined();
  });

  it('Ginkgo It → XIt, and Skip(...) added to a spec', () => {
    const x = find('calc/suite_test.go', 'Describe Calc > It adds');
    expect(x).toMatchObject({ severity: 'risk', line: 9 });
    expect(x!.message).toContain('`XIt("adds", func() {`');
    const s = find('calc/suite_test.go', 'Describe Calc > It subtracts');
    expect(s).toMatchObject({ severity: 'risk', line: 13 });
    expect(s!.message).toContain('`Skip("requires special handling")`');
  });

  it('Ginkgo Skip(...) added to a container’s BeforeEach: one finding for the container', () => {
    const g = find('calc/setup_test.go', 'Describe Calc');
    expect(g).toMatchObject({ severity: 'risk', line: 10 });
    expect(g!.message).toContain('The Ginkgo container `Describe Calc` runs at the base, and this PR disables it, and every test in it,');
    expect(weakened().filter((f) => f.path === 'calc/setup_test.go')).toHaveLength(1);
  });

  it('JS it → it.skip', () => {
    const f = find('test/calc.test.ts', 'calc > adds');
    expect(f).toMatchObject({ severity: 'risk', line: 5 });
    expect(f!.message).toContain("`it.skip('adds', () => {`");
    expect(find('test/calc.test.ts', 'calc > adds negatives')).toBeUndefined();
  });

  it('Rust #[ignore] on an existing #[test]', () => {
    const f = find('src/lib.rs', 'tests::adds');
    expect(f).toMatchObject({ severity: 'risk', line: 10 });
    expect(f!.message).toContain('`#[ignore]`');
  });

  it('JUnit @Disabled on an existing @Test', () => {
    const f = find('src/test/java/calc/CalcTest.java', 'CalcTest#adds');
    expect(f).toMatchObject({ severity: 'risk', line: 10 });
    expect(f!.message).toContain('`@Disabled("later")`');
  });

  it('a whole file (pytestmark) or a describe.skip block: one finding for the group', () => {
    const m = find('tests/test_module.py', '<module>');
    expect(m).toMatchObject({ severity: 'risk', line: 3 });
    expect(m!.message).toContain('The test module `tests/test_module.py` runs at the base, and this PR disables it, and every test in it,');
    expect(find('tests/test_module.py', 'test_one')).toBeUndefined();
    const d = find('test/parse.spec.js', 'parse');
    expect(d).toMatchObject({ severity: 'risk', line: 1 });
    expect(d!.message).toContain(
      "The test group `parse` runs at the base, and this PR disables it, and every test in it, with `describe.skip('parse', () => {`",
    );
    expect(find('test/parse.spec.js', 'parse > reads')).toBeUndefined();
    const pw = find('e2e/login.spec.ts', 'login');
    expect(pw).toMatchObject({ severity: 'risk', line: 1 });
    expect(pw!.message).toContain('The test group `login` runs at the base, and this PR disables it, and every test in it,');
  });

  it('a skip outside the test paths is not reported, and nothing else is', () => {
    expect(weakened().filter((f) => f.path === 'scripts/smoke.py' || f.path === 'src/register.js')).toEqual([]);
    expect(weakened()).toHaveLength(13);
  });

  it('a slopgate-ignore marker in the PR does not dismiss it: only a maintainer can', () => {
    const f = find('tests/test_calc.py', 'test_add')!;
    expect(f.dismissed).toBeUndefined();
    expect(f.message).toContain(
      'inline dismissal ignored: tests-weakened findings need a maintainer — weakening tests is a maintainer decision',
    );
    expect(weakened().every((w) => !w.dismissed)).toBe(true);
    expect(report.decision.outcome).toBe('ADVISE');
    expect(status).toBe(0);
  });
});
