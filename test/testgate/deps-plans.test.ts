import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Revision } from '../../src/core/revision.js';
import { DepCache, type CacheScope } from '../../src/testgate/deps/dep-cache.js';
import { detectPackageManager, planNpm } from '../../src/testgate/deps/npm-deps.js';
import { poetryRequirement } from '../../src/testgate/deps/poetry-constraint.js';
import { lockConstraints, readPythonRequirements, testGroups } from '../../src/testgate/deps/python-requirements.js';
import { readPythonSelf } from '../../src/testgate/deps/python-self.js';
import { CARGO_VENDOR, matchToolchain, pinnedRustToolchain, vendoredSourceConfig } from '../../src/testgate/deps/cargo-deps.js';
import { pickPython, satisfiesPep440, type PythonInterpreter } from '../../src/testgate/deps/toolchains.js';
import { resolveAsOf } from '../../src/testgate/deps/as-of.js';
import { removeTestRepos, TestRepo } from '../helpers/git-repo.js';

/** The dependency planners read trees without running anything: what they decide to install, and the cache's rules. */

afterAll(() => removeTestRepos());

function rev(files: Record<string, string>): Revision {
  const repo = TestRepo.create();
  repo.write(files).commit('base');
  return new Revision(repo.dir, repo.git('rev-parse', 'HEAD').trim());
}

describe('Python requirements', () => {
  it('reads PEP 621 dependencies, test extras, dependency groups (with include-group), CI requirements files and tox deps; never the project itself', async () => {
    const r = await readPythonRequirements(
      rev({
        'pyproject.toml': [
          '[project]',
          'name = "Shop_App"',
          'requires-python = ">=3.9"',
          'dependencies = ["httpx>=0.27"]',
          '[project.optional-dependencies]',
          'test = ["pytest>=8", "shop-app[fast]"]',
          'fast = ["orjson"]',
          'docs = ["mkdocs"]',
          '[dependency-groups]',
          'lint = ["ruff"]',
          'dev = ["coverage", {include-group = "lint"}]',
        ].join('\n'),
        '.github/workflows/ci.yml': 'jobs:\n  t:\n    steps:\n      - run: pip install -r requirements/ci.txt -r docs/requirements.txt\n',
        'requirements/ci.txt': '-e .[test]\n--index-url https://mirror.example/simple\nfreezegun==1.5 --hash=sha256:abc\n-r extra.txt\n',
        'requirements/extra.txt': 'respx\n',
        'docs/requirements.txt': 'sphinx\n',
        'tox.ini': '[testenv]\ndeps =\n    pytest-asyncio\n    {env:X}\n',
        'shop_app/__init__.py': '',
      }),
    );
    expect(r.name).toBe('shop-app');
    expect(r.requiresPython).toBe('>=3.9');
    expect(r.dynamic).toBe(false);
    expect(r.requirements).toEqual(
      expect.arrayContaining(['httpx>=0.27', 'pytest>=8', 'orjson', 'coverage', 'ruff', 'freezegun==1.5', 'respx', 'pytest-asyncio']),
    );
    expect(r.requirements).not.toContain('mkdocs');
    expect(r.requirements).not.toContain('sphinx');
    expect(r.requirements.some((x) => x.startsWith('shop-app') || x.startsWith('-e'))).toBe(false);
    expect(r.notes.join('\n')).toMatch(/sets its own package index/);
    expect(r.inputs).toEqual(expect.arrayContaining(['pyproject.toml', 'requirements/ci.txt', 'requirements/extra.txt', 'tox.ini']));
  });

  it('Poetry groups become pip requirements; a lockfile gives pins as constraints; setup.py alone means the project must be built', async () => {
    const poetry = await readPythonRequirements(
      rev({
        'pyproject.toml':
          '[tool.poetry]\nname = "svc"\n[tool.poetry.dependencies]\npython = "^3.10"\nrequests = "^2.31"\nlocal = {path = "../local"}\n[tool.poetry.group.test.dependencies]\npytest = "~8.2"\n',
        'poetry.lock':
          '[[package]]\nname = "requests"\nversion = "2.32.3"\n[[package]]\nname = "Pytest"\nversion = "8.2.2"\n[[package]]\nname = "svc"\nversion = "0.1.0"\n',
      }),
    );
    expect(poetry.requirements).toEqual(['requests>=2.31,<3', 'pytest>=8.2,<8.3']);
    expect(poetry.requiresPython).toBe('>=3.10,<4');
    expect(poetry.constraints).toEqual(['pytest==8.2.2', 'requests==2.32.3']);
    expect(poetry.lockfile).toBe('poetry.lock');
    const setupPy = await readPythonRequirements(rev({ 'setup.py': 'from setuptools import setup\nsetup(name="x")\n' }));
    expect(setupPy.dynamic).toBe(true);
  });

  it('lock constraints skip packages locked at several versions and uv sources that are not an index', () => {
    const uv =
      '[[package]]\nname = "a"\nversion = "1.0"\nsource = { registry = "https://pypi.org/simple" }\n[[package]]\nname = "a"\nversion = "2.0"\nsource = { registry = "https://pypi.org/simple" }\n[[package]]\nname = "me"\nversion = "0.1"\nsource = { editable = "." }\n[[package]]\nname = "b_c"\nversion = "3.0"\nsource = { registry = "https://pypi.org/simple" }\n';
    expect(lockConstraints('uv.lock', uv)).toEqual(['b-c==3.0']);
  });

  it('Poetry constraints in PEP 440', () => {
    expect(poetryRequirement('x', '^1.2.3')).toBe('x>=1.2.3,<2');
    expect(poetryRequirement('x', '^0.2.3')).toBe('x>=0.2.3,<0.3');
    expect(poetryRequirement('x', '~1.2')).toBe('x>=1.2,<1.3');
    expect(poetryRequirement('x', '1.2.3')).toBe('x==1.2.3');
    expect(poetryRequirement('x', '*')).toBe('x');
    expect(poetryRequirement('x', '>=1,<2')).toBe('x>=1,<2');
    expect(poetryRequirement('x', '^1 || ^2')).toBe('x');
    expect(poetryRequirement('x', { version: '^1', extras: ['a'], markers: 'sys_platform == "linux"' })).toBe(
      'x[a]>=1,<2; sys_platform == "linux"',
    );
    expect(poetryRequirement('x', { git: 'https://example.org/x.git' })).toBeNull();
    expect(poetryRequirement('x', { version: '^1', optional: true })).toBeNull();
  });
});

describe('interpreters and toolchains', () => {
  it('PEP 440 specifiers of requires-python', () => {
    expect(satisfiesPep440('3.11.7', '>=3.9')).toBe(true);
    expect(satisfiesPep440('3.11.7', '>=3.9,<3.11')).toBe(false);
    expect(satisfiesPep440('3.11.7', '~=3.10')).toBe(true);
    expect(satisfiesPep440('3.11.7', '~=3.10.0')).toBe(false);
    expect(satisfiesPep440('3.11.7', '==3.11.*')).toBe(true);
    expect(satisfiesPep440('3.11.7', '!=3.11.*')).toBe(false);
  });

  it('picks an interpreter that satisfies the project, PATH’s first when it does, and says when none does', () => {
    const py = (version: string, venv = true): PythonInterpreter => ({ path: `/py/${version}`, version, prefix: `/py/${version}`, venv });
    const all = [py('3.11.7'), py('3.12.1'), py('3.9.2'), py('3.13.0', false)];
    expect(pickPython(all, '>=3.9', null).python?.version).toBe('3.11.7');
    expect(pickPython(all, '>=3.12', null).python?.version).toBe('3.12.1');
    expect(pickPython(all, '<3.10', null).python?.version).toBe('3.9.2');
    const none = pickPython(all, '>=3.14', null);
    expect(none.python?.version).toBe('3.12.1');
    expect(none.notes.join()).toMatch(/needs Python >=3\.14; none of this machine's interpreters/);
    expect(pickPython(all, null, '3.12').python?.version).toBe('3.12.1');
  });

  it("finds pyenv's versions without running its python3.X shims, and PATH's python3 first", async () => {
    const root = mkdtempSync(join(tmpdir(), 'slopgate-pyenv-'));
    try {
      const ran = join(root, 'ran');
      // A fake interpreter answers the probe: version, prefix, venv support, executable.
      const fake = (path: string, version: string) => {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, `#!/bin/sh\necho ${path} >> ${ran}\nprintf '%s\\n' ${version} ${dirname(dirname(path))} True ${path}\n`, {
          mode: 0o755,
        });
      };
      fake(join(root, 'versions/3.12.1/bin/python3'), '3.12.1');
      fake(join(root, 'versions/3.10.13/bin/python3'), '3.10.13');
      fake(join(root, 'shims/python3'), '3.12.1');
      fake(join(root, 'shims/python3.10'), '3.10.13');
      fake(join(root, 'shims/python3.12'), '3.12.1');
      vi.resetModules();
      const { findPythons } = await import('../../src/testgate/deps/toolchains.js');
      const found = await findPythons({ PATH: join(root, 'shims'), PYENV_ROOT: root }, null);
      const versions = found.map((p) => p.version);
      expect(versions[0]).toBe('3.12.1');
      expect(versions).toContain('3.10.13');
      const probed = readFileSync(ran, 'utf8');
      expect(probed).toContain(join(root, 'shims/python3\n'));
      expect(probed).not.toContain('shims/python3.1');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("keeps a binary interpreter's probe on the machine, and probes it again once the binary changes", async () => {
    const root = mkdtempSync(join(tmpdir(), 'slopgate-pyprobe-'));
    try {
      // A copy of this machine's python3 (a real binary) that only this test uses.
      const python = join(root, 'bin', 'python3');
      mkdirSync(dirname(python), { recursive: true });
      copyFileSync(realpathSync('/usr/bin/python3'), python);
      const cacheFile = join(root, 'cache', 'python-probes.json');
      const env = { PATH: join(root, 'bin'), PYENV_ROOT: join(root, 'no-pyenv') };
      const find = async () => {
        vi.resetModules();
        const { findPythons } = await import('../../src/testgate/deps/toolchains.js');
        return (await findPythons(env, cacheFile)).find((p) => p.path === python);
      };
      expect((await find())?.venv).toBe(true);
      // The kept answer is what the next run uses: altered on disk, the run reports the alteration.
      const kept = JSON.parse(readFileSync(cacheFile, 'utf8')) as { entries: Record<string, { answer: PythonInterpreter }> };
      expect(kept.entries[python]?.answer.path).toBe(python);
      kept.entries[python]!.answer.venv = false;
      writeFileSync(cacheFile, JSON.stringify(kept));
      expect((await find())?.venv).toBe(false);
      // A binary that is not the one probed (new times) is probed again.
      utimesSync(python, new Date(), new Date(Date.now() - 60_000));
      expect((await find())?.venv).toBe(true);
      // An unreadable cache file is an empty cache, not an error.
      writeFileSync(cacheFile, '{not json');
      expect((await find())?.venv).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("keeps pyenv's shim probe only while the version file that picks its interpreter is unchanged", async () => {
    const root = mkdtempSync(join(tmpdir(), 'slopgate-pyenv-'));
    try {
      const ran = join(root, 'ran');
      const fake = (path: string, version: string, exe = path) => {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, `#!/bin/sh\n# pyenv\necho ${path} >> ${ran}\nprintf '%s\\n' ${version} ${root} True ${exe}\n`, { mode: 0o755 });
      };
      const exe = join(root, 'versions/3.12.1/bin/python3');
      fake(exe, '3.12.1');
      fake(join(root, 'shims/python3'), '3.12.1', exe);
      writeFileSync(join(root, 'version'), '3.12.1\n');
      const cacheFile = join(root, 'cache', 'python-probes.json');
      const shimRuns = async () => {
        vi.resetModules();
        const { findPythons } = await import('../../src/testgate/deps/toolchains.js');
        const found = await findPythons({ PATH: join(root, 'shims'), PYENV_ROOT: root }, cacheFile);
        expect(found[0]?.version).toBe('3.12.1');
        return readFileSync(ran, 'utf8')
          .split('\n')
          .filter((l) => l.endsWith('shims/python3')).length;
      };
      expect(await shimRuns()).toBe(1);
      expect(await shimRuns()).toBe(1);
      // Another global version: the shim may now run another interpreter, so it is asked again.
      writeFileSync(join(root, 'version'), '3.10.13\n');
      expect(await shimRuns()).toBe(2);
      // A script that is not a pyenv shim is never kept (what it runs cannot be told from files).
      expect(
        readFileSync(ran, 'utf8')
          .split('\n')
          .filter((l) => l === exe),
      ).toHaveLength(3);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a rust-toolchain pin is matched against the installed toolchains', () => {
    expect(pinnedRustToolchain('[toolchain]\nchannel = "1.80"\ncomponents = ["clippy"]\n')).toBe('1.80');
    expect(pinnedRustToolchain('nightly-2024-01-01\n')).toBe('nightly-2024-01-01');
    const installed = ['stable-x86_64-unknown-linux-gnu (default)', '1.80.1-x86_64-unknown-linux-gnu'];
    expect(matchToolchain('1.80', installed)).toBe('1.80.1-x86_64-unknown-linux-gnu');
    expect(matchToolchain('stable', installed)).toBe('stable-x86_64-unknown-linux-gnu');
    expect(matchToolchain('1.70', installed)).toBeNull();
  });
});

describe('npm, pnpm and yarn', () => {
  it('the package manager comes from packageManager, else the lockfile; bun falls back to npm', () => {
    expect(detectPackageManager({ packageManager: 'pnpm@9.1.0+sha512.x' }, new Set(['package-lock.json']))).toMatchObject({
      pm: 'pnpm',
      version: '9.1.0',
    });
    expect(detectPackageManager({}, new Set(['yarn.lock']))).toMatchObject({ pm: 'yarn', lockfile: 'yarn.lock' });
    expect(detectPackageManager({}, new Set(['package-lock.json']))).toMatchObject({ pm: 'npm', lockfile: 'package-lock.json' });
    expect(detectPackageManager({}, new Set(['bun.lock']))).toMatchObject({ pm: 'npm', bunLock: 'bun.lock' });
  });

  it('the key follows what the install reads (workspace manifests included) and not what it does not (a version bump of the package itself is in, a test edit is out)', async () => {
    const base = {
      'package.json': JSON.stringify({
        name: 'root',
        private: true,
        workspaces: ['packages/*'],
        devDependencies: { vitest: '3.2.4' },
        scripts: { test: 'vitest' },
      }),
      'packages/a/package.json': JSON.stringify({ name: 'a', dependencies: { 'is-number': '7.0.0' } }),
      'package-lock.json': '{"lockfileVersion":3}',
      'test/x.test.js': '',
    };
    const planA = await planNpm(rev(base), '20.20.2');
    const planB = await planNpm(
      rev({ ...base, 'test/x.test.js': 'changed', 'package.json': base['package.json'].replace('"test":"vitest"', '"test":"vitest run"') }),
      '20.20.2',
    );
    const planC = await planNpm(
      rev({ ...base, 'packages/a/package.json': base['packages/a/package.json'].replace('7.0.0', '7.0.1') }),
      '20.20.2',
    );
    if (!planA || !('ecosystem' in planA) || !planB || !('ecosystem' in planB) || !planC || !('ecosystem' in planC))
      throw new Error('expected install plans');
    expect(planA.script).toBe('npm ci --no-audit --no-fund');
    expect(planA.inputs).toEqual(['package.json', 'package-lock.json', 'packages/a/package.json']);
    expect(planB.keyMaterial).toBe(planA.keyMaterial);
    expect(planC.keyMaterial).not.toBe(planA.keyMaterial);
    expect(await planNpm(rev({ 'package.json': '{"name":"x","scripts":{"test":"node --test"}}' }), '20.20.2')).toMatchObject({
      none: 'package.json declares no dependencies',
    });
  });
});

describe("installs that run the tree's own code", () => {
  const npm = async (files: Record<string, string>) => {
    const plan = await planNpm(rev({ 'package-lock.json': '{"lockfileVersion":3}', ...files }), '20.20.2');
    if (!plan || !('ecosystem' in plan)) throw new Error('expected an install plan');
    return plan.projectCode;
  };
  const pkg = (extra: Record<string, unknown>) => JSON.stringify({ name: 'x', dependencies: { 'is-number': '7.0.0' }, ...extra });

  it('npm: lifecycle scripts, folder packages, native addons, pnpm hooks, yarn releases and .npmrc settings that run code', async () => {
    expect(await npm({ 'package.json': pkg({ scripts: { test: 'vitest' } }) })).toBeUndefined();
    expect(await npm({ 'package.json': pkg({ scripts: { postinstall: 'prisma generate' } }) })).toBe(
      'package.json has a postinstall script',
    );
    expect(await npm({ 'package.json': pkg({ devDependencies: { local: 'file:./libs/local' } }) })).toMatch(/takes local from a folder/);
    expect(await npm({ 'package.json': pkg({}), 'binding.gyp': '{}' })).toMatch(/native addon/);
    expect(await npm({ 'package.json': pkg({}), '.npmrc': 'engine-strict=true\n@acme:registry=https://npm.acme.test/\n' })).toBeUndefined();
    expect(await npm({ 'package.json': pkg({}), '.npmrc': 'node-options=--require ./hook.js\n' })).toBe('.npmrc sets node-options');
    expect(
      await npm({
        'package.json': pkg({ workspaces: ['packages/*'] }),
        'packages/a/package.json': JSON.stringify({ name: 'a', scripts: { prepare: 'tsc' } }),
      }),
    ).toBe('packages/a/package.json has a prepare script');
  });

  it("cargo: a config that can name programs makes the install the tree's code; what cargo vendor printed is rewritten, and anything but a source replacement refused", () => {
    const vendored = `[source.crates-io]\nreplace-with = "vendored-sources"\n\n[source.vendored-sources]\ndirectory = "${CARGO_VENDOR}"\n`;
    expect(vendoredSourceConfig(vendored)).toContain(`directory = "${CARGO_VENDOR}"`);
    expect(vendoredSourceConfig('  \n')).toBeUndefined();
    expect(() => vendoredSourceConfig(`${vendored}\n[target.x86_64-unknown-linux-gnu]\nrunner = "/bin/true"\n`)).toThrow(
      /more than a source replacement/,
    );
    expect(() => vendoredSourceConfig(vendored.replace(CARGO_VENDOR, '/root/.cargo'))).toThrow(/not at the vendored crates/);
    expect(() => vendoredSourceConfig(`${vendored}[source.x]\nlocal-registry = "/x"\n`)).toThrow(/not a source setting/);
  });

  it("Python: the build backend is installed with the dependencies; a generated version file or a package reading its own metadata asks for the project's install", async () => {
    const hatch = await readPythonSelf(
      rev({
        'pyproject.toml':
          '[build-system]\nrequires = ["hatchling>=1.29", "hatch-vcs>=0.5"]\nbuild-backend = "hatchling.build"\n[project]\nname = "lockish"\ndynamic = ["version"]\n[tool.hatch]\nbuild.hooks.vcs.version-file = "src/lockish/version.py"\n',
        'src/lockish/__init__.py': 'from .version import version\n',
      }),
    );
    expect(hatch).toEqual({
      buildRequires: ['hatchling>=1.29', 'hatch-vcs>=0.5', 'editables'],
      install: 'its build writes src/lockish/version.py, which the tree does not hold',
    });
    const scm = await readPythonSelf(
      rev({
        'pyproject.toml':
          '[build-system]\nrequires = ["setuptools>=65", "setuptools-scm>=8"]\n[project]\nname = "plug-in"\ndynamic = ["version"]\n',
        'src/plug_in/__init__.py': 'def __getattr__(name):\n    from importlib.metadata import version\n\n    return version("plug-in")\n',
      }),
    );
    expect(scm).toEqual({
      buildRequires: ['setuptools>=65', 'setuptools-scm>=8', 'wheel'],
      install: "src/plug_in/__init__.py reads the installed package's own metadata",
    });
    const plain = await readPythonSelf(
      rev({ 'pyproject.toml': '[build-system]\nrequires = ["flit_core>=3.4"]\n[project]\nname = "plain"\nversion = "1.0"\n' }),
    );
    expect(plain).toEqual({ buildRequires: ['flit_core>=3.4'], install: null });
  });

  it('Python: test groups before dev, and tox lines for some environments only are left out', async () => {
    expect(testGroups(['dev', 'docs', 'test'])).toEqual(['test']);
    expect(testGroups(['dev', 'docs'])).toEqual(['dev']);
    const req = await readPythonRequirements(
      rev({
        'pyproject.toml': '[project]\nname = "p"\nversion = "1"\n[dependency-groups]\ndev = ["sphinx>=9.1"]\ntest = ["pytest"]\n',
        'tox.ini': '[testenv]\ndeps =\n  coverage: coverage\n  mock\n',
      }),
    );
    expect(req.requirements).toContain('pytest');
    expect(req.requirements).toContain('mock');
    expect(req.requirements.join(' ')).not.toMatch(/sphinx|coverage/);
  });
});

describe('the dependency cache', () => {
  const roots: string[] = [];
  afterAll(() => {
    for (const r of roots) {
      spawnSync('chmod', ['-R', 'u+w', r]);
      rmSync(r, { recursive: true, force: true });
    }
  });
  const cacheAt = (maxBytes: number) => {
    const root = mkdtempSync(join(tmpdir(), 'slopgate-depcache-'));
    roots.push(root);
    return new DepCache({ root, maxBytes, protectMs: 0 });
  };
  const entries = (cache: DepCache, scope: CacheScope) => readdirSync(join(cache.opts.root, scope));
  /** A builder whose install writes `bytes` into a folder of its own (and whatever `plant` adds). */
  const builder = (calls: { n: number }, bytes = 1024, plant?: (content: string) => void) => ({
    ecosystem: 'npm' as const,
    build: async () => {
      calls.n++;
      await new Promise((r) => setTimeout(r, 50));
      const content = mkdtempSync(join(tmpdir(), 'slopgate-depcache-built-'));
      roots.push(content);
      writeFileSync(join(content, 'blob'), Buffer.alloc(bytes));
      plant?.(content);
      return {
        built: { ok: true as const, content, outputs: [], notes: [], toolchain: {} },
        release: () => {
          rmSync(content, { recursive: true, force: true });
          return Promise.resolve();
        },
      };
    },
  });

  it('concurrent workers build one entry once; the others wait and use it, and none calls it cached', async () => {
    const cache = cacheAt(1e9);
    const calls = { n: 0 };
    const results = await Promise.all([1, 2, 3, 4].map(() => cache.getOrBuild('shared', 'npm-k', builder(calls))));
    expect(calls.n).toBe(1);
    // Every one of them waited for the install: none found the entry complete when it asked.
    expect(results.map((r) => r.ok && r.cached)).toEqual([false, false, false, false]);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(await cache.getOrBuild('shared', 'npm-k', builder(calls))).toMatchObject({ ok: true, cached: true });
    expect(calls.n).toBe(1);
    expect(entries(cache, 'shared')).toEqual(['npm-k']);
  });

  it('a scope never serves the other: a tree entry is not found as a shared one, nor the reverse', async () => {
    const cache = cacheAt(1e9);
    await cache.getOrBuild('tree', 'npm-t', builder({ n: 0 }));
    expect(await cache.lookup('shared', 'npm-t')).toBeNull();
    expect(await cache.lookup('tree', 'npm-t')).not.toBeNull();
  });

  it('past its size the least recently used entries go, never the one just built; a failed build leaves nothing', async () => {
    const cache = cacheAt(150 * 1024);
    const calls = { n: 0 };
    await cache.getOrBuild('shared', 'npm-old', builder(calls, 100 * 1024));
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(join(cache.opts.root, '.used', 'shared-npm-old'), past, past);
    await cache.getOrBuild('tree', 'npm-new', builder(calls, 100 * 1024));
    expect(entries(cache, 'shared')).toEqual([]);
    expect(entries(cache, 'tree')).toEqual(['npm-new']);
    const failed = await cache.getOrBuild('shared', 'npm-bad', {
      ecosystem: 'npm',
      build: () => Promise.resolve({ built: { ok: false as const, error: 'no', tail: '' }, release: () => Promise.resolve() }),
    });
    expect(failed).toMatchObject({ ok: false, error: 'no' });
    expect(entries(cache, 'shared')).toEqual([]);
    expect(readdirSync(join(cache.opts.root, '.staging'))).toEqual([]);
  });

  it('a lock left by a process that is gone is taken over', async () => {
    const cache = cacheAt(1e9);
    mkdirSync(join(cache.opts.root, '.locks', 'shared-npm-stale'), { recursive: true });
    writeFileSync(join(cache.opts.root, '.locks', 'shared-npm-stale', 'owner'), `${hostname()} 999999`);
    const r = await cache.getOrBuild('shared', 'npm-stale', builder({ n: 0 }));
    expect(r).toMatchObject({ ok: true, cached: false });
  });

  it("an install's planted links are kept as links: the metadata and the use marker never write through them", async () => {
    const cache = cacheAt(1e9);
    const victim = join(cache.opts.root, '..', `slopgate-depcache-victim-${process.pid}`);
    writeFileSync(victim, 'authorized keys\n');
    roots.push(victim);
    const r = await cache.getOrBuild(
      'shared',
      'npm-links',
      builder({ n: 0 }, 16, (content) => {
        symlinkSync(victim, join(content, 'meta.json'));
        symlinkSync(victim, join(content, '.used'));
        linkSync(victim, join(content, 'hard'));
      }),
    );
    expect(r.ok).toBe(true);
    expect(readFileSync(victim, 'utf8')).toBe('authorized keys\n');
    const dir = cache.entryDir('shared', 'npm-links');
    expect(lstatSync(join(dir, 'deps', 'meta.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8'))).toMatchObject({ key: 'npm-links', scope: 'shared' });
    // Once in place the content is read-only.
    expect(statSync(join(dir, 'deps', 'blob')).mode & 0o222).toBe(0);
  });

  it('an entry is used only when it is what it says: its own key and scope, a real folder, metadata a regular file', async () => {
    const cache = cacheAt(1e9);
    await cache.getOrBuild('shared', 'npm-a', builder({ n: 0 }));
    await cache.getOrBuild('shared', 'npm-b', builder({ n: 0 }));
    const a = cache.entryDir('shared', 'npm-a');
    const b = cache.entryDir('shared', 'npm-b');
    // A copy of entry a under b's name: its metadata names a.
    spawnSync('chmod', ['-R', 'u+w', b]);
    rmSync(b, { recursive: true, force: true });
    spawnSync('cp', ['-a', a, b]);
    expect(await cache.lookup('shared', 'npm-b')).toBeNull();
    // A link in place of an entry, and a link in place of its metadata.
    rmSync(b, { recursive: true, force: true });
    symlinkSync(a, b);
    expect(await cache.lookup('shared', 'npm-b')).toBeNull();
    rmSync(b);
    mkdirSync(join(b, 'deps'), { recursive: true });
    symlinkSync(join(a, 'meta.json'), join(b, 'meta.json'));
    expect(await cache.lookup('shared', 'npm-b')).toBeNull();
    expect(await cache.lookup('shared', 'npm-a')).not.toBeNull();
  });
});

describe('the date unpinned dependencies resolve at', () => {
  const daysAgo = (d: number): string => new Date(Date.now() - d * 86_400_000).toISOString();

  it('a recent commit resolves today; an old one its own day; a back-dated head never older than its base', async () => {
    const repo = TestRepo.create();
    const at = (d: number, name: string): Revision => {
      process.env.GIT_AUTHOR_DATE = process.env.GIT_COMMITTER_DATE = daysAgo(d);
      try {
        return new Revision(repo.dir, repo.write({ [`${name}.txt`]: name }).commit(name));
      } finally {
        delete process.env.GIT_AUTHOR_DATE;
        delete process.env.GIT_COMMITTER_DATE;
      }
    };
    const old = at(400, 'old');
    const base = at(100, 'base');
    const backdated = at(900, 'backdated');
    const recent = at(1, 'recent');
    expect(await resolveAsOf(recent)).toBeNull();
    expect(await resolveAsOf(old)).toBe(`${daysAgo(400).slice(0, 10)}T23:59:59Z`);
    expect(await resolveAsOf(backdated)).toBe(`${daysAgo(900).slice(0, 10)}T23:59:59Z`);
    expect(await resolveAsOf(backdated, base)).toBe(`${daysAgo(100).slice(0, 10)}T23:59:59Z`);
    expect(await resolveAsOf(recent, base)).toBeNull();
  });
});
