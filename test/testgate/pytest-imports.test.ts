import { afterAll, describe, expect, it } from 'vitest';
import { prRepo } from '../helpers/git-repo.js';
import { g8Status, gateTests, sandboxCacheDir, testsSection } from './fixtures.js';

/**
 * G8 tests the PR's own code, imported as the project's CI imports it. Real pytest runs in the
 * sandbox on throwaway repositories.
 */
const cache = sandboxCacheDir();
afterAll(() => cache.remove());

/** tests.setup that copies `stale/<pkg>` into the sandbox user's site-packages: an installed copy outside the tree. */
const installStale = (pkg: string) =>
  `python3 -c "import os, shutil, site; d = site.getusersitepackages(); os.makedirs(d, exist_ok=True); shutil.copytree('stale/${pkg}', os.path.join(d, '${pkg}'))"`;

const GREET = 'def greet(name):\n    return f"hello, {name}"\n';
const GREET_TEST =
  'from shinyapp import greet\n\n\ndef test_greet():\n    assert greet("ada") == "hello, ada"\n\n\ndef test_greet_other():\n    assert greet("bob").startswith("hello")\n';
const SRC_LAYOUT = {
  'pyproject.toml':
    '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "shinyapp"\nversion = "1.0.0"\n',
  'src/shinyapp/__init__.py': 'from shinyapp.core import greet\n',
  'src/shinyapp/core.py': GREET,
  'tests/test_greet.py': GREET_TEST,
  // What an earlier release looked like, installed on the machine (here: copied into the user site by tests.setup).
  'stale/shinyapp/__init__.py': GREET,
};

describe('G8 imports the code under test as CI does', () => {
  it('src layout with an older copy installed outside the tree: the PR’s code is tested, and a change to it is caught', async () => {
    const repo = prRepo(SRC_LAYOUT, { 'src/shinyapp/core.py': 'def greet(name):\n    return f"Hello {name}!"\n' });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { setup: installStale('shinyapp'), reruns: 0, install: 'off' } });
    const s = testsSection(report) as ReturnType<typeof testsSection> & { notes?: string[] };
    // With the installed copy imported, both tests would pass on both sides and nothing would be seen.
    expect(s.regressions.sort()).toEqual(['py:tests/test_greet.py::test_greet', 'py:tests/test_greet.py::test_greet_other']);
    // People see the plain command; the exact one (import path, plugin, report) stays in the JSON report.
    expect(s.command).toBe('pytest');
    expect(s.internalCommand).toContain('python3 -P -m pytest');
    expect(s.internalCommand).toContain('$PWD/src');
    expect(s.notes?.join('\n')).toMatch(/`src` is first on the import path.*`shinyapp`/);
    expect(s.notes?.join('\n')).toMatch(
      /another copy of `shinyapp` is installed outside the repository \(\S*site-packages\/shinyapp\/__init__\.py\); the tests imported this tree's/,
    );
  }, 240_000);

  it('an installable flat layout: its package is importable as an install makes it, so the tree’s code is tested, not the installed copy', async () => {
    const files = {
      'pyproject.toml': '[project]\nname = "flatpkg"\nversion = "1.0.0"\n',
      'flatpkg/__init__.py': GREET,
      'tests/test_flat.py': 'from flatpkg import greet\n\n\ndef test_greet():\n    assert greet("ada") == "hello, ada"\n',
      'stale/flatpkg/__init__.py': GREET,
    };
    const repo = prRepo(files, { 'flatpkg/__init__.py': 'def greet(name):\n    return name\n' });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { setup: installStale('flatpkg'), reruns: 0, install: 'off' } });
    const s = testsSection(report) as ReturnType<typeof testsSection> & { notes?: string[] };
    expect(s.regressions).toEqual(['py:tests/test_flat.py::test_greet']);
    expect(s.notes?.join('\n')).toMatch(
      /package `flatpkg` is importable as an install makes it \(the repository root itself is not on the import path\)/,
    );
    expect(s.notes?.join('\n')).toMatch(/another copy of `flatpkg` is installed outside the repository/);
    // slopgate's own link to the tree's package (under the run's out dir) is not another copy
    expect(s.notes?.join('\n')).not.toMatch(/out\/site\/flatpkg/);
  }, 240_000);

  it('tests that import an installed copy instead of the tree are skipped, naming the package and where it came from', async () => {
    // Not installable (no [project]), no pythonpath: nothing makes the tree's flatpkg importable.
    const files = {
      'pytest.ini': '[pytest]\n',
      'flatpkg/__init__.py': GREET,
      'tests/test_flat.py': 'from flatpkg import greet\n\n\ndef test_greet():\n    assert greet("ada") == "hello, ada"\n',
      'stale/flatpkg/__init__.py': GREET,
    };
    const repo = prRepo(files, { 'flatpkg/__init__.py': 'def greet(name):\n    return name\n' });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { setup: installStale('flatpkg'), reruns: 0, install: 'off' } });
    expect(report.findings).toEqual([]);
    const g8 = g8Status(report);
    expect(g8.status).toBe('skipped');
    expect(g8.reason).toMatch(
      /pytest imported the project's own package `flatpkg` from \S*site-packages\/flatpkg\/__init__\.py, outside the repository/,
    );
    expect(g8.reason).toMatch(/tests\.setup/);
  }, 240_000);

  const CORE = {
    'pyproject.toml': '[project]\nname = "svc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\npythonpath = ["."]\n',
    'core/__init__.py': 'def answer():\n    return 42\n',
    'tests/test_core.py': 'from core import answer\n\n\ndef test_answer():\n    assert answer() == 42\n',
  };
  const NO_PYTHONPATH = { 'pyproject.toml': '[project]\nname = "svc"\nversion = "0.1.0"\n' };

  it('a PR that drops `pythonpath = ["."]` breaks `import core` as the `pytest` console script would: build-broken', async () => {
    const repo = prRepo(CORE, NO_PYTHONPATH);
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    const broken = report.findings.filter((f) => f.category === 'build-broken');
    expect(broken).toHaveLength(1);
    expect(broken[0]).toMatchObject({ severity: 'fail', path: 'tests/test_core.py' });
    expect(broken[0]!.message).toContain("No module named 'core'");
    expect(report.decision.outcome).not.toBe('PASS');
  }, 240_000);

  it('the CI command is taken from the workflow: `python -m pytest -m "not slow"` keeps the root on sys.path and skips slow tests', async () => {
    const workflow = `name: CI
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pip install -e . pytest-cov
      - name: Tests
        run: |
          python -m pytest -m "not slow" --cov=core -x tests
`;
    const base = {
      ...CORE,
      '.github/workflows/ci.yml': workflow,
      'pyproject.toml': CORE['pyproject.toml'] + 'markers = ["slow: long tests"]\n',
      'tests/test_slow.py': 'import pytest\n\n\n@pytest.mark.slow\ndef test_slow():\n    assert True\n',
    };
    // The PR drops pythonpath (CI's `python -m pytest` still finds `core`) and breaks a slow test CI never runs.
    const repo = prRepo(base, {
      'pyproject.toml': NO_PYTHONPATH['pyproject.toml'] + '\n[tool.pytest.ini_options]\nmarkers = ["slow: long tests"]\n',
      'tests/test_slow.py': 'import pytest\n\n\n@pytest.mark.slow\ndef test_slow():\n    assert False\n',
    });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    expect(report.findings).toEqual([]);
    const s = testsSection(report) as ReturnType<typeof testsSection> & { notes?: string[] };
    expect(s.internalCommand).toContain("python3 -m pytest -m 'not slow' tests -p _slopgate_origins");
    expect(s.internalCommand).not.toContain('--cov');
    expect(s.internalCommand).not.toMatch(/ -x /);
    // What the report shows is the project's own CI command, as written.
    expect(s.command).toBe('python -m pytest -m "not slow" --cov=core -x tests');
    expect(s.baseline).toMatchObject({ failing: 0, total: 1 });
    expect(s.notes?.join('\n')).toContain(
      'test command taken from CI: `python -m pytest -m "not slow" --cov=core -x tests` (.github/workflows/ci.yml)',
    );
  }, 240_000);

  it('every test module failing on a dependency the sandbox lacks is a skip that names it and how to provide it', async () => {
    const base = {
      'pyproject.toml': '[project]\nname = "cal"\nversion = "0.1.0"\ndependencies = ["pendulum"]\n',
      'conftest.py': '',
      'cal.py': 'import pendulum\n\n\ndef today():\n    return pendulum.today()\n',
      'tests/test_cal.py': 'from cal import today\n\n\ndef test_today():\n    assert today()\n',
      'tests/test_more.py': 'import pendulum\n\n\ndef test_tz():\n    assert pendulum.timezone("UTC")\n',
    };
    const repo = prRepo(base, { 'cal.py': 'import pendulum\n\n\ndef today():\n    return None\n' });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0, install: 'off' } });
    expect(report.findings).toEqual([]);
    const g8 = g8Status(report);
    expect(g8.status).toBe('skipped');
    expect(g8.reason).toMatch(
      /^at the base, every test module fails to import `pendulum` \(ModuleNotFoundError\), a declared dependency that is not part of the repository/,
    );
    expect(g8.reason).toMatch(/tests\.setup.*tests\.network: true/);
    // With the dependency install on (the default), pendulum is installed and the broken `today()` is caught.
    const installed = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    expect(testsSection(installed).regressions).toEqual(['py:tests/test_cal.py::test_today']);
  }, 600_000);

  it('an import of a module declared nowhere (hallucinated) that breaks every test module is build-broken, not a missing dependency', async () => {
    const base = {
      'pyproject.toml': '[project]\nname = "cal"\nversion = "0.1.0"\n',
      'conftest.py': '',
      'cal.py': 'import json\n\n\ndef dump(x):\n    return json.dumps(x)\n',
      'tests/test_cal.py': 'from cal import dump\n\n\ndef test_dump():\n    assert dump(1) == "1"\n',
      'tests/test_more.py': 'from cal import dump\n\n\ndef test_list():\n    assert dump([]) == "[]"\n',
    };
    const repo = prRepo(base, { 'cal.py': 'import json_helpers\n\n\ndef dump(x):\n    return json_helpers.dumps(x)\n' });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    expect(g8Status(report).status).toBe('fail');
    const broken = report.findings.filter((f) => f.category === 'build-broken');
    expect(broken.map((f) => f.path).sort()).toEqual(['tests/test_cal.py', 'tests/test_more.py']);
    expect(broken[0]!.message).toContain("No module named 'json_helpers'");
  }, 240_000);
});
