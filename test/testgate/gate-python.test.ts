import { afterAll, expect, it } from 'vitest';
import { prRepo } from '../helpers/git-repo.js';
import { MemoryBaselineCache } from '../../src/testgate/baseline-cache.js';
import { g8Status, gateTests, sandboxCacheDir, testsSection } from './fixtures.js';
import { needs } from '../helpers/toolchains.js';

const cache = sandboxCacheDir();
afterAll(() => cache.remove());

const DB = `import sqlite3


def connect(path=":memory:"):
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    conn.execute("CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    return conn


def add_user(conn, name):
    conn.execute("INSERT INTO users (name) VALUES (?)", (name,))
    return conn.execute("SELECT id, name FROM users WHERE name = ?", (name,)).fetchone()
`;

const TESTS = `from app.db import connect, add_user


def test_row_factory():
    conn = connect()
    row = add_user(conn, "ada")
    assert row["name"] == "ada"


def test_schema_accepts_names():
    conn = connect()
    add_user(conn, "grace")
    assert conn.execute("SELECT count(*) FROM users").fetchone()[0] == 1
`;

const BASE = {
  'pyproject.toml': '[project]\nname = "app"\nversion = "0.1.0"\n',
  'app/__init__.py': '',
  'app/db.py': DB,
  'tests/test_db.py': TESTS,
  'tests/__init__.py': '',
};

needs('pytest')('G8 on pytest repositories', () => {
  it('a project with no config at all, only pytest-named test files, is run with pytest (its regression found)', async () => {
    const bare = {
      'calc/__init__.py': 'def add(a, b):\n    return a + b\n',
      'tests/test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
    };
    const repo = prRepo(bare, { 'calc/__init__.py': 'def add(a, b):\n    return a - b\n' });
    const report = await gateTests(repo, { cacheDir: cache.dir });
    expect(testsSection(report)).toMatchObject({ runner: 'pytest', regressions: ['py:tests/test_calc.py::test_add'] });
    expect(report.findings.filter((f) => f.category === 'test-regression')).toHaveLength(1);
  }, 240_000);

  it('a dropped `conn.row_factory = sqlite3.Row` is a test regression at the test definition line', async () => {
    const repo = prRepo(BASE, { 'app/db.py': DB.replace('    conn.row_factory = sqlite3.Row\n', '') });
    const report = await gateTests(repo, { cacheDir: cache.dir });
    const f = report.findings.filter((x) => x.category === 'test-regression');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ severity: 'fail', path: 'tests/test_db.py', line: 4 });
    expect(f[0]!.message).toContain('tests/test_db.py::test_row_factory');
    expect(f[0]!.message).toMatch(/on all 3 runs/);
    const s = testsSection(report);
    expect(s).toMatchObject({ runner: 'pytest', regressions: ['py:tests/test_db.py::test_row_factory'], removed: [], flaky: [] });
    expect(s.baseline).toMatchObject({ failing: 0, total: 2, cached: false });
    expect(s.candidate).toMatchObject({ failing: 1, total: 2 });
  }, 240_000);

  it('a stray `>` inside the SQL DDL string breaks every test that touches the table', async () => {
    const repo = prRepo(BASE, { 'app/db.py': DB.replace('name TEXT NOT NULL)', 'name TEXT NOT NULL>)') });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    expect(testsSection(report).regressions.sort()).toEqual([
      'py:tests/test_db.py::test_row_factory',
      'py:tests/test_db.py::test_schema_accepts_names',
    ]);
    expect(report.findings.find((f) => f.category === 'test-regression')!.message).toMatch(/syntax error/i);
    expect(report.decision.outcome).not.toBe('PASS');
  }, 240_000);

  it('a PR that fixes a failing test passes, and the fix is listed', async () => {
    const broken = DB.replace('    conn.row_factory = sqlite3.Row\n', '');
    const repo = prRepo({ ...BASE, 'app/db.py': broken }, { 'app/db.py': DB });
    const report = await gateTests(repo, { cacheDir: cache.dir });
    expect(report.findings).toEqual([]);
    expect(g8Status(report).status).toBe('pass');
    expect(testsSection(report).fixed).toEqual(['py:tests/test_db.py::test_row_factory']);
  }, 240_000);

  it('a test that fails once and passes on re-run is flaky-test (nit), not a regression', async () => {
    const flaky = `import os


def test_eventually():
    marker = os.path.join(os.getcwd(), ".flaky-marker")
    if not os.path.exists(marker):
        open(marker, "w").close()
        assert False, "first run fails"
`;
    const repo = prRepo(BASE, { 'tests/test_flaky.py': flaky });
    const report = await gateTests(repo, { cacheDir: cache.dir });
    expect(report.findings.map((f) => [f.category, f.severity])).toEqual([['flaky-test', 'nit']]);
    expect(report.findings[0]).toMatchObject({ path: 'tests/test_flaky.py', line: 4 });
    expect(testsSection(report).flaky).toEqual(['py:tests/test_flaky.py::test_eventually']);
  }, 240_000);

  it('deleting a test is tests-removed (risk); an import error in a test module is build-broken', async () => {
    const repo = prRepo(BASE, {
      'tests/test_db.py': TESTS.slice(0, TESTS.indexOf('\n\ndef test_schema_accepts_names')) + '\n',
      'tests/test_other.py': 'import not_a_real_module\n\n\ndef test_x():\n    pass\n',
    });
    const base2 = { ...BASE, 'tests/test_other.py': 'def test_x():\n    pass\n' };
    const repo2 = prRepo(base2, { 'tests/test_other.py': 'import not_a_real_module\n\n\ndef test_x():\n    pass\n' });
    const removed = await gateTests(repo, { cacheDir: cache.dir });
    expect(removed.findings.find((f) => f.category === 'tests-removed')).toMatchObject({ severity: 'risk', path: 'tests/test_db.py' });
    expect(testsSection(removed).removed).toEqual(['py:tests/test_db.py::test_schema_accepts_names']);
    const broken = await gateTests(repo2, { cacheDir: cache.dir });
    const b = broken.findings.filter((f) => f.category === 'build-broken');
    expect(b).toHaveLength(1);
    expect(b[0]).toMatchObject({ path: 'tests/test_other.py', severity: 'fail' });
    expect(b[0]!.message).toContain('not_a_real_module');
    // the module's test is reported with the unit, not as removed
    expect(broken.findings.some((f) => f.category === 'tests-removed')).toBe(false);
  }, 240_000);

  it('a Python repo without tests is skipped with a reason, never a fake "unparsed failure" regression', async () => {
    const repo = prRepo({ 'pyproject.toml': '[project]\nname = "x"\n', 'x.py': 'X = 1\n' }, { 'x.py': 'X = 2\n' });
    const report = await gateTests(repo, { cacheDir: cache.dir });
    expect(report.findings).toEqual([]);
    expect(g8Status(report)).toMatchObject({ status: 'skipped', reason: 'no tests found at the base' });
  }, 240_000);

  it('a command that fails without parseable results on both sides is skipped, not a regression', async () => {
    // The original embedded volatile output ("no tests ran in 0.57s") in a sentinel id, so every run differed.
    const repo = prRepo(
      { 'run.sh': 'echo "no tests ran in $(date +%N)s"; exit 3\n' },
      { 'run.sh': 'echo "still nothing at $(date +%N)"; exit 4\n' },
    );
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { command: 'sh run.sh' } });
    expect(report.findings).toEqual([]);
    expect(g8Status(report).status).toBe('skipped');
    // Not a bare exit code: what the command printed last is quoted.
    expect(g8Status(report).reason).toMatch(
      /^no test results at the base: the command fails \(exit 3\) and reports only its exit code — its output ends with `no tests ran in \d+s`\./,
    );
  }, 240_000);

  it('the second PR on the same base reuses the cached baseline', async () => {
    const shared = new MemoryBaselineCache();
    const a = prRepo(BASE, { 'app/db.py': DB + '\n' });
    const first = await gateTests(a, { cacheDir: cache.dir, cache: shared, tests: { reruns: 0 } });
    expect(testsSection(first).baseline!.cached).toBe(false);
    expect(shared.size).toBe(1);
    a.git('checkout', '-q', 'main');
    a.git('checkout', '-q', '-b', 'pr2');
    a.write({ 'app/db.py': DB.replace('    conn.row_factory = sqlite3.Row\n', '') }).commit('pr2');
    const second = await gateTests(a, { cacheDir: cache.dir, cache: shared, head: 'pr2', tests: { reruns: 0 } });
    expect(testsSection(second).baseline).toMatchObject({ cached: true, total: 2, failing: 0 });
    expect(testsSection(second).regressions).toEqual(['py:tests/test_db.py::test_row_factory']);
  }, 240_000);

  it('many tests already failing at the base make a warning in the report, naming the most common error', async () => {
    const cases = Array.from({ length: 12 }, (_, i) => `def test_query_${i}():\n    assert connect()\n`).join('\n\n');
    const envTests = `import os\n\n\ndef connect():\n    return os.environ["SERVICE_DSN"]\n\n\n${cases}`;
    const repo = prRepo({ ...BASE, 'tests/test_service.py': envTests }, { 'app/db.py': DB + '\n' });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    const s = testsSection(report) as ReturnType<typeof testsSection> & { notes?: string[] };
    expect(s.baseline).toMatchObject({ failing: 12, total: 14 });
    expect(report.findings).toEqual([]);
    const warning = s.notes?.find((n) => n.includes('already fail'));
    expect(warning).toMatch(
      /^12 of 14 tests already fail at the base: the sandbox probably lacks something CI has .*Most common error \(12×\): KeyError: 'SERVICE_DSN'/,
    );
  }, 240_000);

  it('the --no-tests service flag and tests.enabled: false skip G8 without running anything', async () => {
    const repo = prRepo(BASE, { 'app/db.py': DB.replace('    conn.row_factory = sqlite3.Row\n', '') });
    const off = await gateTests(repo, { cacheDir: cache.dir, tests: { enabled: false } });
    expect(g8Status(off)).toMatchObject({ status: 'skipped', reason: 'disabled in config (tests.enabled: false)' });
    expect(off.findings).toEqual([]);
  }, 240_000);
});
