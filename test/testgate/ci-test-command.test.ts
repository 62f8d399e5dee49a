import { describe, expect, it } from 'vitest';
import { Revision } from '../../src/core/revision.js';
import {
  findCiTestCommands,
  makefileTestCommands,
  parsePlainTestCommand,
  plainWords,
  toxTestCommands,
  workflowTestCommands,
} from '../../src/testgate/ci-test-command.js';
import { readPythonProject } from '../../src/testgate/python-project.js';
import { cargoCiArgs, goCiArgs, pytestCiArgs } from '../../src/testgate/runners/ci-args.js';
import { cargoMissingCrates, goMissingModules, goModuleOf, pythonMissingModule } from '../../src/testgate/runners/missing-dependency.js';
import { pytestCommand } from '../../src/testgate/runners/pytest.js';
import { baseFailingWarning } from '../../src/testgate/suite-notes.js';
import type { SuiteResult } from '../../src/core/suite-result.js';
import { TestRepo } from '../helpers/git-repo.js';

function revisionOf(files: Record<string, string>): Revision {
  const repo = TestRepo.create();
  const sha = repo.write(files).commit('base');
  return new Revision(repo.dir, sha);
}

describe('the repository’s CI test command', () => {
  it('takes plain commands only: quoting is fine, shell syntax, variables and expressions are not', () => {
    expect(plainWords(`pytest -m "not slow" -k 'db or api' tests/unit`)).toEqual([
      'pytest',
      '-m',
      'not slow',
      '-k',
      'db or api',
      'tests/unit',
    ]);
    for (const line of [
      'pytest | tee log',
      'pytest && echo ok',
      'pytest > out.txt',
      'pytest $ARGS',
      'pytest ${{ matrix.args }}',
      'pytest tests/*.py',
      'cd x; pytest',
      'pytest "a\\"b"',
      'pytest `ls`',
    ]) {
      expect(plainWords(line), line).toBeNull();
    }
    expect(parsePlainTestCommand('python -m pytest -q')).toEqual({ kind: 'python-m-pytest', args: ['-q'] });
    expect(parsePlainTestCommand('python3.12 -m pytest')).toEqual({ kind: 'python-m-pytest', args: [] });
    expect(parsePlainTestCommand('uv run pytest tests')).toEqual({ kind: 'pytest', args: ['tests'] });
    expect(parsePlainTestCommand('coverage run --branch -m pytest -x')).toEqual({ kind: 'python-m-pytest', args: ['-x'] });
    expect(parsePlainTestCommand('go test -race ./...')).toEqual({ kind: 'go', args: ['-race', './...'] });
    expect(parsePlainTestCommand('cargo test --all-features')).toEqual({ kind: 'cargo', args: ['--all-features'] });
    expect(parsePlainTestCommand('npm run test')).toEqual({ kind: 'npm-test', args: [] });
    expect(parsePlainTestCommand('npx vitest run')).toEqual({ kind: 'vitest', args: ['run'] });
    expect(parsePlainTestCommand('PYTHONPATH=. pytest')).toBeNull();
    expect(parsePlainTestCommand('pip install -e .')).toBeNull();
    expect(parsePlainTestCommand('npm test -- --coverage')).toBeNull();
  });

  it('reads workflow steps at the repository root; steps with another working directory or shell are ignored', () => {
    const wf = `on: push
jobs:
  docs:
    runs-on: ubuntu-latest
    defaults:
      run:
        working-directory: docs
    steps:
      - run: pytest docs_tests
  test:
    runs-on: ubuntu-latest
    steps:
      - run: pytest sub
        working-directory: sub
      - run: pytest -p no:x
        shell: pwsh
      - run: |
          pip install -e .[test]
          # the suite
          pytest \\
            --strict-markers tests
          pytest \${{ matrix.extra }}
`;
    expect(workflowTestCommands('.github/workflows/ci.yml', wf)).toEqual([
      { kind: 'pytest', args: ['--strict-markers', 'tests'], source: '.github/workflows/ci.yml', line: 'pytest --strict-markers tests' },
    ]);
    expect(workflowTestCommands('x.yml', 'not: [valid')).toEqual([]);
  });

  it('skips parsing only workflows that cannot name a test tool, whatever their spelling', () => {
    const on = (run: string) => `on: push\njobs:\n  ci:\n    runs-on: ubuntu-latest\n    steps:\n      - run: ${run}\n`;
    // `ubuntu-latest` alone is no test command; a release workflow gives nothing.
    expect(workflowTestCommands('release.yml', on('npm publish'))).toEqual([]);
    // Each of these is still read: the tool's name in plain words, `npm t`, and a YAML escape that spells `test`.
    expect(workflowTestCommands('ci.yml', on('go test ./...')).map((c) => c.kind)).toEqual(['go']);
    expect(workflowTestCommands('ci.yml', on('npm t')).map((c) => c.kind)).toEqual(['npm-test']);
    expect(workflowTestCommands('ci.yml', on('py.test -q')).map((c) => c.args)).toEqual([['-q']]);
    expect(workflowTestCommands('ci.yml', on('"cargo \\x74est --all"')).map((c) => [c.kind, c.args])).toEqual([['cargo', ['--all']]]);
  });

  it('reads tox.ini commands ({posargs} dropped or defaulted) and the Makefile test target', () => {
    expect(
      toxTestCommands('[tox]\nenvlist = py311\n\n[testenv]\ndeps = pytest\ncommands =\n    pytest {posargs:tests}\n').map((c) => [
        c.kind,
        c.args,
      ]),
    ).toEqual([['pytest', ['tests']]]);
    expect(toxTestCommands('[testenv]\ncommands = pytest {envsitepackagesdir}\n')).toEqual([]);
    expect(
      makefileTestCommands('lint:\n\truff check .\n\ntest:\n\t@go test -short ./...\n').map((c) => [c.kind, c.args, c.source]),
    ).toEqual([['go', ['-short', './...'], 'Makefile']]);
    expect(makefileTestCommands('test: build\n\t$(GO) test ./...\n')).toEqual([]);
  });

  it('prefers a workflow named for tests, then other workflows, tox.ini and the Makefile', async () => {
    const rev = revisionOf({
      '.github/workflows/release.yml': 'on: push\njobs:\n  r:\n    steps:\n      - run: pytest -m release\n',
      '.github/workflows/tests.yml': 'on: push\njobs:\n  t:\n    steps:\n      - run: python -m pytest -m "not slow"\n',
      'tox.ini': '[testenv]\ncommands = pytest\n',
    });
    const found = await findCiTestCommands(rev);
    expect(found.map((c) => c.source)).toEqual(['.github/workflows/tests.yml', '.github/workflows/release.yml', 'tox.ini']);
    expect(found[0]).toMatchObject({ kind: 'python-m-pytest', args: ['-m', 'not slow'] });
  });

  it('merges what selects tests and drops what changes the output or stops early', () => {
    expect(
      pytestCiArgs([
        '-x',
        '-n',
        'auto',
        '--cov',
        'pkg',
        '--cov-report=xml',
        '-m',
        'not slow',
        '-vv',
        '-ra',
        '--import-mode=importlib',
        '-p',
        'no:randomly',
        'tests',
      ]),
    ).toEqual({
      options: ['-m', 'not slow', '--import-mode=importlib', '-p', 'no:randomly'],
      positional: ['tests'],
    });
    // An unknown option that may take the next word cannot be merged safely.
    expect(pytestCiArgs(['--my-plugin-opt', 'value', 'tests'])).toBeNull();
    expect(pytestCiArgs(['--runslow'])).toEqual({ options: [], positional: [] });
    expect(goCiArgs(['-race', '-v', '-coverprofile=c.out', '-tags', 'integration', '-short', './pkg/...'])).toEqual({
      options: ['-tags', 'integration', '-short'],
      positional: ['./pkg/...'],
    });
    expect(goCiArgs(['-weird', 'x'])).toBeNull();
    expect(cargoCiArgs(['--all-features', '--workspace', '-j', '4', '--', '--test-threads=1'])).toEqual({
      options: ['--all-features', '--workspace'],
      positional: [],
    });
    expect(cargoCiArgs(['--manifest-path', 'sub/Cargo.toml'])).toBeNull();
  });
});

describe('the Python project under test', () => {
  it('a src layout: packages from src/, src as the install root, pytest pythonpath read from pyproject', async () => {
    const rev = revisionOf({
      'pyproject.toml': '[project]\nname = "Shiny-App"\nversion = "1"\n\n[tool.pytest.ini_options]\npythonpath = ["."]\n',
      'src/shiny_app/__init__.py': '',
      'src/shiny_app/core.py': '',
      'tests/__init__.py': '',
      'tests/test_x.py': '',
      'docs/conf.py': '',
    });
    expect(await readPythonProject(rev)).toEqual({
      packages: ['shiny_app'],
      flatPackages: [],
      packageRoots: ['src'],
      pytestPythonpath: ['.'],
      installable: true,
    });
  });

  it('setup.cfg package_dir and pytest.ini pythonpath; a flat layout has no install root', async () => {
    const cfg = await readPythonProject(
      revisionOf({
        'setup.cfg': '[metadata]\nname = lib\n\n[options]\npackage_dir =\n    = lib_src\npackages = find:\n',
        'lib_src/mylib/__init__.py': '',
        'pytest.ini': '[pytest]\npythonpath = lib_src helpers\n',
      }),
    );
    expect(cfg).toMatchObject({ packages: ['mylib'], packageRoots: ['lib_src'], pytestPythonpath: ['lib_src', 'helpers'] });
    const flat = await readPythonProject(
      revisionOf({ 'pyproject.toml': '[tool.poetry]\nname = "core"\n', 'core/__init__.py': '', 'tests/test_core.py': '' }),
    );
    expect(flat).toMatchObject({ packages: ['core'], flatPackages: ['core'], packageRoots: [], pytestPythonpath: null, installable: true });
  });

  it('the pytest command: safe path (-P) by default, src first on PYTHONPATH, CI options before the report flags', () => {
    const cmd = pytestCommand(
      { packageRoots: ['src'], packages: ['shiny'], ci: { options: ['-m', 'not slow'], positional: ['tests'] } },
      null,
    );
    expect(cmd).toBe(
      `PYTHONPATH="$PWD/src:$SLOPGATE_OUT/py" SLOPGATE_PY_PACKAGES='shiny' python3 -P -m pytest -m 'not slow' tests -p _slopgate_origins -q -p no:cacheprovider --continue-on-collection-errors -o junit_family=xunit1 --junitxml="$SLOPGATE_OUT/junit.xml"`,
    );
    // Re-runs select node ids instead of the CI's paths; old interpreters drop cwd from sys.path by hand.
    const rerun = pytestCommand({ style: 'console', ci: { options: [], positional: ['tests'] } }, ['tests/test_a.py::test_b'], true);
    expect(rerun).toContain(`python3 -c 'import sys; del sys.path[0]; import pytest;`);
    expect(rerun).toMatch(/'tests\/test_a.py::test_b'$/);
    expect(rerun).not.toContain(' tests -p');
    expect(pytestCommand({ style: 'module' }, null)).toContain(' python3 -m pytest -p _slopgate_origins');
    // A flat layout's packages are linked alone into a directory on the path, never the root.
    expect(pytestCommand({ linkedPackages: ['core'] }, null)).toMatch(
      /^mkdir -p "\$SLOPGATE_OUT\/site" && ln -sfn "\$PWD\/core" "\$SLOPGATE_OUT\/site\/core" && PYTHONPATH="\$SLOPGATE_OUT\/site:\$SLOPGATE_OUT\/py" python3 -P -m pytest /,
    );
  });
});

describe('missing dependencies named from toolchain errors', () => {
  it('Go: old (position only, with the download line) and new message shapes', () => {
    const go119 =
      'go: downloading github.com/google/go-cmp v0.6.0\n# example.com/d/p\np/p_test.go:2:20: module lookup disabled by GOPROXY=off\nFAIL\texample.com/d/p [setup failed]\n';
    expect(goMissingModules(go119)).toEqual(['github.com/google/go-cmp@v0.6.0']);
    expect(goMissingModules('p/p_test.go:2:20: module lookup disabled by GOPROXY=off\n', () => 'github.com/x/y/z')).toEqual([
      'github.com/x/y/z',
    ]);
    expect(goMissingModules('go: github.com/pkg/errors@v0.9.1: module lookup disabled by GOPROXY=off\n')).toEqual([
      'github.com/pkg/errors@v0.9.1',
    ]);
    expect(
      goMissingModules(
        'a.go:3:2: cannot find module providing package golang.org/x/sync/errgroup: module lookup disabled by GOPROXY=off\n',
      ),
    ).toEqual(['golang.org/x/sync/errgroup']);
    expect(
      goMissingModules(
        'go: github.com/!burnt!sushi/toml@v1.3.2: Get "https://proxy.golang.org/github.com/!burnt!sushi/toml/@v/v1.3.2.mod": dial tcp: lookup proxy.golang.org on 127.0.0.53:53: no such host\n',
      ),
    ).toEqual(['github.com/BurntSushi/toml@v1.3.2']);
    expect(goModuleOf('golang.org/x/sys/unix', 'module m\n\ngo 1.21\n\nrequire golang.org/x/sys v0.28.0\n')).toBe(
      'golang.org/x/sys@v0.28.0',
    );
    expect(
      goModuleOf('github.com/a/b/c', 'module m\n\nrequire (\n\tgithub.com/a/b v1.2.0 // indirect\n\tgithub.com/a/bc v0.1.0\n)\n'),
    ).toBe('github.com/a/b@v1.2.0');
    expect(goModuleOf('github.com/z/y', 'module m\n')).toBe('github.com/z/y');
    // An ordinary compile error is not a missing dependency.
    expect(goMissingModules('# example.com/d/p\np/p.go:4:2: undefined: nam\n')).toEqual([]);
  });

  it('Go: a module missing from a read-only shared module cache (go 1.26, in the sandbox)', () => {
    // An empty cache: go tries to create its `cache` directory; a warm one lacking the module: the module's download dir.
    const empty = '# example.com/diffs/diff\ndiff/diff.go:3:8: mkdir /root/go/pkg/mod/cache: read-only file system\n';
    const warm = '# example.com/diffs/diff\ndiff/diff.go:3:8: mkdir /srv/gomod/cache/download/github.com: read-only file system\n';
    const importAt = (file: string, line: number, col: number) =>
      file === 'diff/diff.go' && line === 3 && col === 8 ? 'github.com/google/go-cmp/cmp' : null;
    expect(goMissingModules(empty, importAt)).toEqual(['github.com/google/go-cmp/cmp']);
    expect(goMissingModules(`go: downloading github.com/google/go-cmp v0.6.0\n${warm}`)).toEqual(['github.com/google/go-cmp@v0.6.0']);
    // A test that writes to a read-only path of its own is not a missing module.
    expect(goMissingModules('x_test.go:9: open /etc/hosts: read-only file system\n')).toEqual([]);
  });

  it('cargo and Python', () => {
    expect(cargoMissingCrates('error: no matching package named `itoa` found\nlocation searched: crates.io index\n')).toEqual(['itoa']);
    expect(cargoMissingCrates('error: failed to get `serde` as a dependency of package `x v0.1.0`\n')).toEqual(['serde']);
    expect(cargoMissingCrates('error[E0308]: mismatched types\n')).toEqual([]);
    expect(pythonMissingModule("ImportError while importing test module\nModuleNotFoundError: No module named 'yaml.loader'")).toBe('yaml');
    expect(pythonMissingModule('NameError: x')).toBeNull();
  });
});

describe('many tests already failing at the base', () => {
  const suite = (failing: number, passing: number, message = "ModuleNotFoundError: No module named 'redis'"): SuiteResult => ({
    runner: 'pytest',
    command: 'pytest',
    status: 'ok',
    exitCode: 1,
    tests: [
      ...Array.from({ length: failing }, (_, i) => ({ id: `py:t.py::f${i}`, status: 'failed' as const, unit: 'py:t.py', message })),
      ...Array.from({ length: passing }, (_, i) => ({ id: `py:t.py::p${i}`, status: 'passed' as const, unit: 'py:t.py' })),
    ],
    units: [],
    durationMs: 1,
    outputTail: '',
    sha: 'abc',
  });

  it('warns above 10 failing tests or 20 %, with the most common error', () => {
    expect(baseFailingWarning(suite(11, 500))).toMatch(
      /^11 of 511 tests already fail at the base: the sandbox probably lacks something CI has.*Most common error \(11×\): ModuleNotFoundError: No module named 'redis'/,
    );
    expect(baseFailingWarning(suite(3, 7))).toMatch(/^3 of 10 tests already fail/);
    expect(baseFailingWarning(suite(2, 98))).toBeUndefined();
    expect(baseFailingWarning(undefined)).toBeUndefined();
  });
});
