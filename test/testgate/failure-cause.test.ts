import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeNoResults, failureCause, lastLines, pythonModulesNamed, quoteCode } from '../../src/testgate/runners/failure-cause.js';
import { splitCodeSpans } from '../../src/report/markdown-escape.js';
import { needs } from '../helpers/toolchains.js';

/**
 * Every shape is read from the real tool's output: a tiny throwaway project per case, the tool run on
 * it as the gate would (offline), and the cause read from stdout + stderr as the runners keep them.
 */

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'slopgate-cause-'));
  roots.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Runs a command in `cwd` offline-ish (no proxy, no network for Go and cargo) and returns its exit code and output. */
function run(cwd: string, cmd: string, args: string[], env: Record<string, string> = {}): { code: number | null; output: string } {
  const scratch = mkdtempSync(join(tmpdir(), 'slopgate-cause-env-'));
  roots.push(scratch);
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: scratch,
      GOPROXY: 'off',
      GOTOOLCHAIN: 'local',
      GOFLAGS: '-mod=mod',
      GOPATH: join(scratch, 'gopath'),
      GOMODCACHE: join(scratch, 'gomod'),
      GOCACHE: join(scratch, 'gocache'),
      CARGO_HOME: join(scratch, 'cargo'),
      CARGO_NET_OFFLINE: 'true',
      RUSTUP_HOME: process.env.RUSTUP_HOME ?? join(homedir(), '.rustup'),
      ...(process.env.PYENV_ROOT ? { PYENV_ROOT: process.env.PYENV_ROOT } : {}),
      ...env,
    },
  });
  // The runners keep the output with the tree's own path removed (run-suite.ts scrubPaths): `conftest.py`, not `/tmp/…/conftest.py`.
  return { code: r.status, output: `${r.stdout}\n${r.stderr}`.trim().split(`${cwd}/`).join('') };
}

/** The interpreters with pytest on this machine, one per pytest version (pyenv's pytest 9, Debian's pytest 7, …). */
function pytestPythons(): { python: string; version: string }[] {
  const seen = new Map<string, string>();
  for (const python of ['python3', '/usr/bin/python3']) {
    const r = spawnSync(python, ['-c', 'import pytest; print(pytest.__version__)'], { encoding: 'utf8' });
    if (r.status === 0 && !seen.has(r.stdout.trim())) seen.set(r.stdout.trim(), python);
  }
  return [...seen].map(([version, python]) => ({ python, version }));
}

const PYTEST = ['-P', '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--continue-on-collection-errors'];
const TEST = { 'tests/test_a.py': 'def test_a():\n    assert True\n' };

needs('pytest')('failure causes: pytest', () => {
  const pythons = pytestPythons();

  describe.each(pythons)('pytest $version ($python)', ({ python }) => {
    it('a conftest.py that imports a module the sandbox lacks: the module, not installed, how to provide it', () => {
      const dir = project({ ...TEST, 'conftest.py': 'from absent_dependency.orm import Session\n' });
      const r = run(dir, python, PYTEST);
      expect(r.code).toBe(4);
      const text = describeNoResults(r.output, r.code);
      expect(text).toMatch(
        /^`conftest\.py` imports `absent_dependency`, which is not installed in the sandbox; declare it in the project.s test dependencies/,
      );
      expect(text).toMatch(/tests\.setup/);
      expect(pythonModulesNamed(r.output)).toEqual(['absent_dependency']);
    });

    it('a nested conftest.py names its own path; a module of the repository is said to be not importable, not "not installed"', () => {
      const dir = project({ ...TEST, 'tests/conftest.py': 'import myapp\n', 'myapp/__init__.py': '' });
      const r = run(dir, python, PYTEST);
      expect(failureCause(r.output)?.what).toMatch(/^`tests\/conftest\.py` imports `myapp`, which is not installed/);
      expect(failureCause(r.output, new Set(['myapp']))?.what).toMatch(/`myapp`, a package of this repository that is not importable/);
    });

    it('addopts with options of plugins that are not installed: the options, the ini file and the plugins', () => {
      const dir = project({ ...TEST, 'pytest.ini': '[pytest]\naddopts = --cov=app --timeout=10\n' });
      const r = run(dir, python, PYTEST);
      expect(r.code).toBe(4);
      expect(failureCause(r.output)?.what).toBe(
        'pytest rejects `--cov=app --timeout=10` (its `addopts` come from `pytest.ini`): options of `pytest-cov` and `pytest-timeout`, which are not installed in the sandbox',
      );
    });

    it('required_plugins, minversion, an unknown -p plugin and an unknown setting under --strict-config', () => {
      const required = run(project({ ...TEST, 'pytest.ini': '[pytest]\nrequired_plugins = pytest-xdist>=3\n' }), python, PYTEST);
      expect(failureCause(required.output)?.what).toBe(
        "pytest's `required_plugins` setting names `pytest-xdist>=3`, which the sandbox lacks",
      );
      const min = run(project({ ...TEST, 'pytest.ini': '[pytest]\nminversion = 99\n' }), python, PYTEST);
      expect(failureCause(min.output)?.what).toMatch(
        /^the project needs pytest 99 or newer \(`minversion`\) and the sandbox has pytest \d+\.\d+/,
      );
      const plugin = run(project({ ...TEST, 'pytest.ini': '[pytest]\naddopts = -p absent_plugin\n' }), python, PYTEST);
      expect(failureCause(plugin.output)?.what).toBe(
        'the pytest plugin `absent_plugin` (loaded with `-p`) is not installed in the sandbox',
      );
      const strict = run(project({ ...TEST, 'pytest.ini': '[pytest]\naddopts = --strict-config\nasyncio_mode = auto\n' }), python, PYTEST);
      expect(strict.code).toBe(4);
      expect(failureCause(strict.output)?.what).toMatch(
        /^pytest does not know the setting `asyncio_mode` \(it belongs to `pytest-asyncio`/,
      );
    });
  });
});

const NODE_TEST = 'const test = require("node:test");\ntest("a", () => {});\n';

describe('failure causes: node and the shell', () => {
  it('require() of a package that is not installed (CommonJS): the package and how to provide it', () => {
    const dir = project({ 'test/a.test.js': `const _ = require('absent-dep/fp');\n${NODE_TEST}` });
    const r = run(dir, 'node', ['test/a.test.js']);
    expect(r.output).toContain("Cannot find module 'absent-dep/fp'");
    expect(describeNoResults(r.output, r.code, { exitCodeOnly: true })).toMatch(
      /^`absent-dep` is not installed in the sandbox \(Cannot find module 'absent-dep\/fp'\); make sure `absent-dep` is in package\.json/,
    );
  });

  it('import of a package that is not installed (ESM, ERR_MODULE_NOT_FOUND), and of a file that does not exist', () => {
    const pkg = run(project({ 'a.test.mjs': "import x from '@scope/absent/sub';\nconsole.log(x);\n" }), 'node', ['a.test.mjs']);
    expect(pkg.output).toContain('ERR_MODULE_NOT_FOUND');
    expect(failureCause(pkg.output)?.what).toBe("`@scope/absent` is not installed in the sandbox (Cannot find module '@scope/absent')");
    const file = run(project({ 'a.test.mjs': "import x from './gone.js';\nconsole.log(x);\n" }), 'node', ['a.test.mjs']);
    expect(failureCause(file.output)?.what).toBe('Node cannot find the file `gone.js` (imported from `a.test.mjs`)');
    expect(failureCause(file.output)?.remedy).toBeUndefined();
  });

  it('a test script whose command is not installed (sh and bash): the command, not npm', () => {
    const dir = project({ 'package.json': JSON.stringify({ name: 'x', scripts: { test: 'mocha test' } }) });
    const npm = run(dir, 'npm', ['test', '--silent']);
    expect(npm.code).toBe(127);
    expect(failureCause(npm.output)?.what).toBe('the command `mocha` is not installed in the sandbox (`mocha: not found`)');
    const bash = run(dir, 'bash', ['-c', 'jest --ci']);
    expect(failureCause(bash.output)?.what).toBe('the command `jest` is not installed in the sandbox (`jest: not found`)');
  });
});

needs('go')('failure causes: go', () => {
  it('go.mod asks for a newer Go than the sandbox has', () => {
    const dir = project({ 'go.mod': 'module example.com/v\n\ngo 1.999\n', 'v.go': 'package v\n' });
    const r = run(dir, 'go', ['test', '-count=1', '-json', './...']);
    expect(r.code).toBe(1);
    expect(failureCause(r.output)).toEqual({
      what: expect.stringMatching(/^the project needs Go 1\.999 or newer \(go\.mod\) and the sandbox has go \d+\.\d+/) as string,
      remedy: expect.stringContaining('never downloads one') as string,
    });
  });

  it('a go.sum without the entry for an imported module', () => {
    const dir = project({
      'go.mod': 'module example.com/d\n\ngo 1.19\n\nrequire github.com/google/go-cmp v0.6.0\n',
      'd.go': 'package d\n\nimport "github.com/google/go-cmp/cmp"\n\nvar _ = cmp.Diff\n',
    });
    const r = run(dir, 'go', ['vet', './...'], { GOFLAGS: '-mod=readonly' });
    expect(failureCause(r.output)).toEqual({
      what: 'go.sum has no entry for the module providing `github.com/google/go-cmp/cmp`',
      remedy: 'run `go mod tidy` and commit go.sum',
    });
  });
});

needs('cargo')('failure causes: cargo', () => {
  const LIB = { 'src/lib.rs': 'pub fn a() -> u32 { 1 }\n' };
  const manifest = (extra: string) => `[package]\nname = "cause"\nversion = "0.1.0"\nedition = "2021"\n${extra}`;

  it('a rust-version newer than the sandbox’s rustc', () => {
    const r = run(project({ ...LIB, 'Cargo.toml': manifest('rust-version = "1.999"\n') }), 'cargo', ['test', '--no-fail-fast']);
    expect(r.code).toBe(101);
    expect(failureCause(r.output)?.what).toMatch(
      /^`cause@0\.1\.0` needs rustc 1\.999 or newer \(`rust-version`\) and the sandbox has rustc \d+\.\d+/,
    );
  });

  it('a crate the offline registry cache lacks, and a lock file this cargo cannot read', () => {
    const crate = run(project({ ...LIB, 'Cargo.toml': manifest('\n[dependencies]\nitoa = "1"\n') }), 'cargo', ['test']);
    expect(failureCause(crate.output)?.what).toBe(
      "cargo cannot resolve the crate `itoa` (no network in the sandbox, and cargo's registry cache lacks it)",
    );
    const lock = run(project({ ...LIB, 'Cargo.toml': manifest(''), 'Cargo.lock': 'version = 99\n' }), 'cargo', ['test']);
    expect(failureCause(lock.output)?.what).toMatch(
      /^cargo stops: `failed to parse lock file at: Cargo\.lock`, caused by ``lock file version `99` was found/,
    );
  });
});

const hasMaven = spawnSync('mvn', ['-v'], { stdio: 'ignore' }).status === 0;
if (!hasMaven) process.stderr.write('[toolchains] skipping the Maven case of failure-cause.test.ts: needs Maven (apt install maven)\n');

describe.skipIf(!hasMaven)('failure causes: maven', () => {
  it('offline with an empty local repository: the plugin Maven cannot resolve', () => {
    const dir = project({
      'pom.xml':
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><groupId>x</groupId><artifactId>cause</artifactId><version>1</version></project>\n',
    });
    const r = run(dir, 'mvn', ['-o', '-q', '-B', `-Dmaven.repo.local=${join(dir, 'm2')}`, 'test']);
    expect(r.code).toBe(1);
    expect(failureCause(r.output)?.what).toMatch(
      /^Maven cannot resolve the plugin `org\.apache\.maven\.plugins:maven-[\w-]+-plugin:[\d.]+`: it is not in the local repository and the sandbox has no network$/,
    );
  }, 120_000);

  it('the dependencies of the project, as Maven 3 prints them offline (captured with a warm plugin cache)', () => {
    const line =
      '\u001b[0m\u001b[0m[ERROR] Failed to execute goal on project mv1: Could not resolve dependencies for project x:mv1:jar:1: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode and the artifact org.junit.jupiter:junit-jupiter:jar:5.10.0 has not been downloaded from it before. -> [Help 1]';
    expect(failureCause(line)?.what).toBe(
      'Maven cannot resolve the dependencies of `x:mv1` (`org.junit.jupiter:junit-jupiter:jar:5.10.0`): it is not in the local repository and the sandbox has no network',
    );
  });
});

describe('failure causes: nothing telling', () => {
  it('quotes the last three non-empty lines, each as a safe code span, with the exit code beside them', () => {
    const out = 'starting\n\nstep 1\nstep 2 ``weird``\n\u001b[31mboom: it broke\u001b[0m\n\n';
    expect(lastLines(out)).toBe('`step 1` ⏎ ``` step 2 ``weird`` ``` ⏎ `boom: it broke`');
    expect(describeNoResults(out, 3)).toBe(
      'exit 3 without test results — its output ends with `step 1` ⏎ ``` step 2 ``weird`` ``` ⏎ `boom: it broke`',
    );
    expect(describeNoResults(out, 1, { exitCodeOnly: true })).toMatch(
      /^the command fails \(exit 1\) and reports only its exit code — its output ends with /,
    );
    expect(describeNoResults('', 2)).toBe('exit 2 without test results, and it printed nothing');
    // The quoted span survives the reporters' code-span reading intact.
    const spans = splitCodeSpans(describeNoResults(out, 3)).filter((p) => p.code);
    expect(spans.map((p) => p.text.trim())).toEqual(['step 1', 'step 2 ``weird``', 'boom: it broke']);
  });

  it('caps a quoted line and drops control characters', () => {
    expect(quoteCode(`${'x'.repeat(500)}\u0007`)).toHaveLength(202);
    expect(quoteCode('a\u0000b')).toBe('`ab`');
  });
});
