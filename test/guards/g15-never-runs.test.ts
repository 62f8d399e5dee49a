import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/cli.js';
import { g15 } from '../../src/guards/g15-weak-assertions/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';

async function g15Of(base: Record<string, FileContent>, head: Record<string, FileContent>) {
  return findingsOf(await gate(prRepo(base, head), [g15]), 'G15');
}

const brief = (found: { path?: string; category: string; severity: string; line?: number }[]) =>
  found.map((f) => [f.path, f.category, f.severity, f.line]);

const PY_TEST = 'from app import run\n\n\ndef test_run():\n    assert run() == 1\n';
const PYPROJECT = '[project]\nname = "app"\nversion = "1"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n';

describe('G15: test files the configured runner never collects', () => {
  describe('pytest (testpaths and python_files of the base)', () => {
    const base = { 'pyproject.toml': PYPROJECT, 'app/__init__.py': 'def run():\n    return 1\n', 'tests/test_app.py': PY_TEST };

    it('a scratch test at the repository root never runs: outside testpaths', async () => {
      const found = await g15Of(base, {
        'scratch_test.py': PY_TEST,
        'test_manual.py': 'from app import run\n\ntry:\n    print(run())\nexcept Exception as e:\n    print("failed", e)\n',
      });
      expect(brief(found)).toEqual([
        ['scratch_test.py', 'dead-code', 'risk', 1],
        ['test_manual.py', 'dead-code', 'risk', 1],
      ]);
      expect(found[0]!.message).toContain(
        'This test file never runs: pytest collects `tests/` (testpaths in pyproject.toml) and files named `test_*.py` or `*_test.py`; this file is `scratch_test.py` at the repository root',
      );
    });

    it('a file in tests/ whose name pytest does not open never runs; a test_*.py there does', async () => {
      const found = await g15Of(base, {
        'tests/check_api.py': PY_TEST,
        'tests/test_new.py': PY_TEST,
        'tests/helpers.py': 'def make():\n    return 1\n',
      });
      expect(brief(found)).toEqual([['tests/check_api.py', 'dead-code', 'risk', 1]]);
    });

    it('a subproject with its own pytest configuration is judged by it; one without any is not judged', async () => {
      const sub = {
        ...base,
        'core/pyproject.toml': '[project]\nname = "core"\nversion = "1"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        'lib/pyproject.toml': '[project]\nname = "lib"\nversion = "1"\n',
      };
      const found = await g15Of(sub, {
        'core/tests/serializers/test_a.py': PY_TEST,
        'core/test_scratch.py': PY_TEST,
        'lib/test_b.py': PY_TEST,
      });
      expect(brief(found)).toEqual([['core/test_scratch.py', 'dead-code', 'risk', 1]]);
      expect(found[0]!.message).toContain('pytest collects `core/tests/` (testpaths in core/pyproject.toml)');
    });

    it('says nothing without a pytest configuration, for files already there, or for a custom python_files', async () => {
      expect(await g15Of({ 'setup.py': 'x = 1\n', 'tests/test_a.py': PY_TEST }, { 'scratch_test.py': PY_TEST })).toEqual([]);
      expect(
        await g15Of({ ...base, 'scratch_test.py': PY_TEST }, { 'scratch_test.py': `${PY_TEST}\n\ndef test_two():\n    assert run()\n` }),
      ).toEqual([]);
      const custom = { ...base, 'pytest.ini': '[pytest]\ntestpaths = tests\npython_files = check_*.py test_*.py\n' };
      expect(await g15Of(custom, { 'tests/check_api.py': PY_TEST })).toEqual([]);
    });
  });

  describe('pytest paths on the CI command line (issue 31)', () => {
    const wf = (run: string) =>
      `name: ci\non: [pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: pip install -e .\n      - run: ${run}\n`;
    const SCRATCH =
      'from app import run\n\n\ndef test_fix():\n    try:\n        assert run() == 2\n    except Exception as e:\n        print("failed", e)\n';
    const base = { 'setup.py': 'x = 1\n', 'app/__init__.py': 'def run():\n    return 1\n', 'tests/test_app.py': PY_TEST };

    it('without a pytest configuration, `pytest tests/` in CI decides: a root-level scratch test that only prints never runs', async () => {
      let out = '';
      const repo = prRepo(
        { ...base, '.github/workflows/ci.yml': wf('python -m pytest tests/ -q') },
        { 'test_fix.py': SCRATCH, 'tests/test_more.py': PY_TEST },
      );
      await runCheck(
        { repo: repo.dir, base: 'main', head: 'pr', format: 'json', strict: false, noTests: true, only: ['G15'] },
        (t) => (out += t),
      );
      const found = (
        JSON.parse(out) as { findings: { path?: string; category: string; severity: string; line?: number; message: string }[] }
      ).findings;
      const never = found.filter((f) => f.category === 'dead-code');
      expect(brief(never)).toEqual([['test_fix.py', 'dead-code', 'risk', 1]]);
      expect(never[0]!.message).toContain(
        'This test file never runs: pytest collects `tests/` (`python -m pytest tests/ -q` in .github/workflows/ci.yml) and files named `test_*.py` or `*_test.py`; this file is `test_fix.py` at the repository root',
      );
      expect(never[0]!.message).toContain('it catches every error and only prints it');
    });

    it('a CI pytest command without paths, or one of two without paths, says nothing', async () => {
      expect(await g15Of({ ...base, '.github/workflows/ci.yml': wf('pytest') }, { 'test_fix.py': PY_TEST })).toEqual([]);
      const two = { ...base, '.github/workflows/ci.yml': wf('pytest tests'), 'tox.ini': '[testenv]\ncommands = pytest\n' };
      expect(await g15Of(two, { 'test_fix.py': PY_TEST })).toEqual([]);
      // The CI's paths replace testpaths: a folder CI names runs even when testpaths leaves it out.
      const both = { ...base, 'pyproject.toml': PYPROJECT, '.github/workflows/ci.yml': wf('pytest tests integration') };
      expect(await g15Of(both, { 'integration/test_api.py': PY_TEST })).toEqual([]);
    });

    it('another CI line runs pytest in a form that cannot be read (a matrix expression): it may collect anything, so nothing is said', async () => {
      const wfs = {
        ...base,
        '.github/workflows/ci.yml': wf('pytest tests'),
        '.github/workflows/integration.yml': wf('pytest integration --splits 2 --group ${{ matrix.split_index }}'),
      };
      expect(await g15Of(wfs, { 'integration/test_api.py': PY_TEST })).toEqual([]);
      // the readable line alone still decides
      expect(
        (await g15Of({ ...base, '.github/workflows/ci.yml': wf('pytest tests') }, { 'integration/test_api.py': PY_TEST })).length,
      ).toBe(1);
    });
  });

  describe('Vitest and Jest (include, testMatch, roots)', () => {
    const TEST = "import { it, expect } from 'vitest';\nit('works', () => expect(1).toBe(1));\n";
    const vitestPkg = JSON.stringify({ name: 'app', devDependencies: { vitest: '3' } });

    it('Vitest’s default include: a test named outside *.test.* / *.spec.* never runs', async () => {
      const found = await g15Of(
        { 'package.json': vitestPkg, 'test/e2e/vitest.config.ts': 'export default {};\n' },
        {
          'tests/api.check.ts': TEST,
          'src/a.test.ts': TEST,
          'test/helpers.ts': 'export const x = 1;\n',
          'test/fixtures/basic/math.ts': TEST,
          'test/e2e/run.ts': TEST,
        },
      );
      expect(brief(found)).toEqual([['tests/api.check.ts', 'dead-code', 'risk', 1]]);
      expect(found[0]!.message).toContain("Vitest collects `**/*.{test,spec}.?(c|m)[jt]s?(x)` (Vitest's default include)");
    });

    it('a literal test.include in vitest.config.ts; a computed one says nothing', async () => {
      const cfg =
        "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['test/**/*.spec.ts'] } });\n";
      const found = await g15Of({ 'package.json': vitestPkg, 'vitest.config.ts': cfg }, { 'src/a.test.ts': TEST, 'test/b.spec.ts': TEST });
      expect(brief(found)).toEqual([['src/a.test.ts', 'dead-code', 'risk', 1]]);
      expect(found[0]!.message).toContain('`test.include` in vitest.config.ts');
      const computed = cfg.replace("['test/**/*.spec.ts']", 'patterns');
      expect(await g15Of({ 'package.json': vitestPkg, 'vitest.config.ts': computed }, { 'src/a.test.ts': TEST })).toEqual([]);
    });

    it('Jest: testMatch from package.json; the default collects __tests__; two runners at once say nothing', async () => {
      const jestPkg = (jest?: object) => JSON.stringify({ name: 'app', devDependencies: { jest: '29' }, ...(jest ? { jest } : {}) });
      const JEST_TEST = "test('works', () => { expect(1).toBe(1); });\n";
      const found = await g15Of(
        { 'package.json': jestPkg({ testMatch: ['<rootDir>/test/**/*.test.js'] }) },
        { 'src/a.test.js': JEST_TEST },
      );
      expect(brief(found)).toEqual([['src/a.test.js', 'dead-code', 'risk', 1]]);
      expect(await g15Of({ 'package.json': jestPkg() }, { 'src/__tests__/a.js': JEST_TEST })).toEqual([]);
      const both = JSON.stringify({ name: 'app', devDependencies: { jest: '29', vitest: '3' } });
      expect(await g15Of({ 'package.json': both }, { 'tests/api.check.js': JEST_TEST })).toEqual([]);
    });
  });

  describe('Go and Rust', () => {
    const GO = (name: string) =>
      `package x\n\nimport "testing"\n\nfunc ${name}(t *testing.T) {\n\tif 1 != 1 {\n\t\tt.Fatal("no")\n\t}\n}\n`;

    it('go test ./... skips _ folders, non-_test.go files and TestXxx names with a lower-case Xxx; testdata is a fixture', async () => {
      const found = await g15Of(
        { 'go.mod': 'module example.com/x\n\ngo 1.22\n', 'x.go': 'package x\n' },
        {
          '_scratch/a_test.go': GO('TestA'),
          'x/testdata/b_test.go': GO('TestB'),
          'c_test.go': `${GO('TestC')}\n${GO('Testlower').split('\n').slice(4).join('\n')}`,
          'helpers_tests.go': GO('TestD'),
          'ok_test.go': GO('TestOK'),
        },
      );
      expect(brief(found).sort()).toEqual([
        ['_scratch/a_test.go', 'dead-code', 'risk', 1],
        ['c_test.go', 'dead-code', 'risk', 11],
        ['helpers_tests.go', 'dead-code', 'risk', 5],
      ]);
      expect(found.find((f) => f.path === 'c_test.go')!.message).toContain('`Testlower` is never run');
    });

    it('Rust: a module file with #[test] that no parent module declares is never built', async () => {
      const test = '#[cfg(test)]\nmod tests {\n    #[test]\n    fn works() {\n        assert_eq!(1, 1);\n    }\n}\n';
      const base = {
        'Cargo.toml': '[package]\nname = "x"\nversion = "0.1.0"\n',
        'src/lib.rs': 'pub mod net;\n',
        'src/net/mod.rs': 'pub mod http;\n',
        'src/net/http.rs': '',
      };
      const found = await g15Of(base, { 'src/net/retry.rs': test });
      expect(brief(found)).toEqual([['src/net/retry.rs', 'dead-code', 'risk', 1]]);
      expect(found[0]!.message).toContain('`src/net/mod.rs` has no `mod retry;`');
      expect(await g15Of(base, { 'src/net/retry.rs': test, 'src/net/mod.rs': 'pub mod http;\nmod retry;\n' })).toEqual([]);
      // A src/ folder without a Cargo.toml beside it (a book's snippets, test data) holds no modules.
      expect(await g15Of({ ...base, 'tests/book/src/main.rs': 'fn main() {}\n' }, { 'tests/book/src/snippet.rs': test })).toEqual([]);
    });
  });
});

describe('G15: a test that catches every exception and only prints or logs is a weak assertion', () => {
  it('Python: try … except Exception: print(…) and except: pass around the asserts', async () => {
    const head = `from app import run


def test_print():
    try:
        assert run() == 2
    except Exception as e:
        print("failed:", e)


def test_pass():
    try:
        value = run()
        assert value
    except:
        pass


def test_narrow():
    try:
        assert run() == 1
    except ValueError:
        print("bad value")


def test_reraise():
    try:
        assert run() == 1
    except Exception:
        print("failed")
        raise


def test_outside():
    try:
        value = run()
    except Exception as e:
        print(e)
        value = None
    assert value == 1
`;
    const found = await g15Of({ 'pyproject.toml': PYPROJECT, 'tests/test_app.py': PY_TEST }, { 'tests/test_more.py': head });
    expect(brief(found)).toEqual([
      ['tests/test_more.py', 'weak-assertion', 'risk', 4],
      ['tests/test_more.py', 'weak-assertion', 'risk', 11],
    ]);
    expect(found[0]!.message).toContain('`except Exception as e:` catches every exception and only prints or logs it');
  });

  it('JavaScript: try { expect(…) } catch (e) { console.log(e) } around the whole body', async () => {
    const head = `import { it, expect } from 'vitest';
import { run } from '../src/run';

it('swallows', async () => {
  try {
    expect(await run()).toBe(2);
  } catch (e) {
    console.log(e);
  }
});

it('rethrows', async () => {
  try {
    expect(await run()).toBe(2);
  } catch (e) {
    console.error(e);
    throw e;
  }
});
`;
    const found = await g15Of({ 'package.json': JSON.stringify({ devDependencies: { vitest: '3' } }) }, { 'test/run.test.ts': head });
    expect(brief(found)).toEqual([['test/run.test.ts', 'weak-assertion', 'risk', 4]]);
  });

  it('Go: if err != nil { t.Log(err) } with no failing call says so', async () => {
    const head =
      'package x\n\nimport "testing"\n\nfunc TestRun(t *testing.T) {\n\t_, err := Run()\n\tif err != nil {\n\t\tt.Log(err)\n\t}\n}\n';
    const found = await g15Of({ 'go.mod': 'module example.com/x\n\ngo 1.22\n', 'x.go': 'package x\n' }, { 'x_test.go': head });
    expect(brief(found)).toEqual([['x_test.go', 'weak-assertion', 'risk', 5]]);
    expect(found[0]!.message).toContain('logs its errors (`if err != nil { t.Log(err) }`) and never fails');
  });
});
