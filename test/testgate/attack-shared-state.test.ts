import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { GateInfraError } from '../../src/core/errors.js';
import type { Report } from '../../src/core/report.js';
import type { TestsSection } from '../../src/core/report-sections.js';
import { operatorRegistryEnv, registryEnvFor } from '../../src/testgate/deps/registry-env.js';
import { TestRepo, removeTestRepos, type FileContent } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';

/**
 * Hostile pull requests whose install is the attack, aimed at what later runs trust: the machine's
 * dependency cache, the folders slopgate writes and reads after an install, its disk. Each goes through
 * the real `slopgate check` with tests on, and the honest PR that comes after it must still be judged
 * on its own code: its regression blocks, the victim files keep their bytes, no canary shows.
 */

const dirs: string[] = [];
function fresh(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}
afterAll(() => {
  removeTestRepos();
  for (const d of dirs) {
    spawnSync('chmod', ['-R', 'u+w', d]);
    rmSync(d, { recursive: true, force: true });
  }
});

async function check(
  repo: TestRepo,
  head: string,
  cacheDir: string,
): Promise<{ code: number; report: Report; tests: TestsSection; out: string }> {
  const saved = process.env.SLOPGATE_DEPS_CACHE_DIR;
  process.env.SLOPGATE_DEPS_CACHE_DIR = cacheDir;
  let out = '';
  try {
    const code = await main(
      ['check', '--repo', repo.dir, '--base', 'main', '--head', head, '--only', 'G8', '--format', 'json'],
      (s) => (out += s),
    );
    const report = JSON.parse(out) as Report;
    return { code, report, tests: report.sections.tests!, out };
  } finally {
    if (saved === undefined) delete process.env.SLOPGATE_DEPS_CACHE_DIR;
    else process.env.SLOPGATE_DEPS_CACHE_DIR = saved;
  }
}

/** A branch `name` off `from` with `files` committed on it. */
function branch(repo: TestRepo, name: string, files: Record<string, FileContent>, from = 'main'): string {
  repo.checkout(from).branch(name).write(files).commit(name);
  repo.checkout('main');
  return name;
}

const regressions = (r: Report) => r.findings.filter((f) => f.guard === 'G8' && f.category === 'test-regression');

/** An npm project whose install runs its own postinstall and links a package from one of its folders (no registry needed). */
function npmProject(deps: Record<string, string>): Record<string, string> {
  const pkg = {
    name: 'victim',
    version: '1.0.0',
    scripts: { test: 'node --test', postinstall: 'node scripts/postinstall.js' },
    dependencies: deps,
  };
  const packages: Record<string, unknown> = {
    '': { name: 'victim', version: '1.0.0', hasInstallScript: true, dependencies: deps },
  };
  for (const [name, spec] of Object.entries(deps)) {
    const dir = spec.replace(/^file:/, '');
    packages[`node_modules/${name}`] = { resolved: dir, link: true };
    packages[dir] = { version: '1.0.0' };
  }
  const files: Record<string, string> = {
    'package.json': `${JSON.stringify(pkg, null, 2)}\n`,
    'package-lock.json': `${JSON.stringify({ name: 'victim', version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`,
    'scripts/postinstall.js': "console.log('postinstall: nothing to do');\n",
    'src/calc.js': "'use strict';\nconst double = require('dep');\nmodule.exports = { quad: (x) => double(double(x)) };\n",
    'test/calc.test.js':
      "'use strict';\nconst test = require('node:test');\nconst assert = require('node:assert');\nconst { quad } = require('../src/calc.js');\ntest('quad', () => { assert.strictEqual(quad(2), 8); });\n",
  };
  for (const [name, spec] of Object.entries(deps)) {
    const dir = spec.replace(/^file:/, '');
    files[`${dir}/package.json`] = JSON.stringify({ name, version: '1.0.0', main: 'index.js' }) + '\n';
    files[`${dir}/index.js`] = "'use strict';\nmodule.exports = (x) => x * 2;\n";
  }
  return files;
}

/** A postinstall that swaps node_modules/dep for a copy that turns node:assert off (every assertion passes). */
const POISON = `'use strict';
const fs = require('node:fs');
fs.rmSync('node_modules/dep', { recursive: true, force: true });
fs.mkdirSync('node_modules/dep', { recursive: true });
fs.writeFileSync('node_modules/dep/package.json', JSON.stringify({ name: 'dep', version: '1.0.0', main: 'index.js' }));
fs.writeFileSync('node_modules/dep/index.js', "const a = require('node:assert'); for (const k of Object.keys(a)) { try { a[k] = () => {}; } catch {} } module.exports = (x) => x * 2;\\n");
`;

const REGRESSION = { 'src/calc.js': "'use strict';\nconst double = require('dep');\nmodule.exports = { quad: (x) => double(x) + 1 };\n" };

needs('bwrap')('an install cannot decide another PR’s verdict (npm)', () => {
  it('a PR whose postinstall poisons the install: the next honest PR with the same manifests, and one after the merge, still block', async () => {
    const cache = fresh('slopgate-attack-cache-');
    const repo = TestRepo.create();
    repo.write(npmProject({ dep: 'file:vendor/dep' })).commit('base');
    const withDep2 = npmProject({ dep: 'file:vendor/dep', dep2: 'file:vendor/dep2' });
    const evil = branch(repo, 'evil', { ...withDep2, 'scripts/postinstall.js': POISON });
    const honest = branch(repo, 'honest', { ...withDep2, ...REGRESSION });

    const first = await check(repo, evil, cache);
    expect(first.tests.dependencies?.head.entry).toMatchObject({ scope: 'tree' });
    const later = await check(repo, honest, cache);
    expect(later.tests.dependencies?.head).toMatchObject({ status: 'installed', entry: { scope: 'tree' } });
    expect(later.tests.dependencies?.head.entry?.why).toMatch(/differ from the base's/);
    expect(regressions(later.report).map((f) => f.message)).toEqual([expect.stringContaining('quad')]);
    expect(later.code).toBe(1);

    // The dependency change merges honestly; the base's install is its own, never the PR's.
    repo.write(withDep2).commit('merge dep2');
    const next = branch(repo, 'next', REGRESSION);
    const after = await check(repo, next, cache);
    expect(after.tests.dependencies?.base).toMatchObject({ status: 'installed', entry: { scope: 'shared' } });
    expect(regressions(after.report)).toHaveLength(1);
    expect(after.code).toBe(1);
  }, 600_000);

  it('a change to a file the install reads runs on an install of its own tree, not the base’s', async () => {
    // The postinstall generates code from a data file, as `prisma generate` does from a schema.
    const base = {
      ...npmProject({ dep: 'file:vendor/dep' }),
      'scripts/postinstall.js':
        "'use strict';\nconst fs = require('node:fs');\nconst factor = JSON.parse(fs.readFileSync('schema.json', 'utf8')).factor;\nfs.mkdirSync('node_modules/.gen', { recursive: true });\nfs.writeFileSync('node_modules/.gen/factor.js', `module.exports = ${factor};\\n`);\n",
      'schema.json': '{ "factor": 3 }\n',
      'test/gen.test.js':
        "'use strict';\nconst test = require('node:test');\nconst assert = require('node:assert');\ntest('factor', () => { assert.strictEqual(require('../node_modules/.gen/factor.js'), 3); });\n",
    };
    const repo = TestRepo.create();
    repo.write(base).commit('base');
    const pr = branch(repo, 'pr', { 'schema.json': '{ "factor": 4 }\n' });
    const { report, tests, code } = await check(repo, pr, fresh('slopgate-attack-cache-'));
    expect(tests.dependencies?.base.key).not.toBe(tests.dependencies?.head.key);
    expect(tests.dependencies?.head.entry?.why).toMatch(/postinstall script/);
    expect(regressions(report).map((f) => f.message)).toEqual([expect.stringContaining('factor')]);
    expect(code).toBe(1);
  }, 600_000);

  it('links the install plants are never written or read through: victim files keep their bytes, no secret is mounted', async () => {
    const cache = fresh('slopgate-attack-cache-');
    const victims = fresh('slopgate-attack-victims-');
    const keys = join(victims, 'authorized_keys');
    const baseline = join(process.env.SLOPGATE_BASELINE_CACHE_DIR!, 'victim-baseline.json');
    const secret = join(victims, 'credentials.toml');
    writeFileSync(keys, 'ssh-ed25519 AAAA victim\n');
    writeFileSync(baseline, '{"kept":true}\n');
    writeFileSync(secret, 'token = "slopgate-canary-credential"\n');
    const before = [keys, baseline, secret].map((f) => readFileSync(f));

    const repo = TestRepo.create();
    repo.write(npmProject({ dep: 'file:vendor/dep' })).commit('base');
    const plant = `'use strict';
const fs = require('node:fs');
const at = (p, target) => { try { fs.rmSync(p, { force: true, recursive: true }); fs.symlinkSync(target, p); } catch (e) { console.log(String(e)); } };
at('/opt/slopgate/deps/meta.json', ${JSON.stringify(keys)});
at('/opt/slopgate/deps/.used', ${JSON.stringify(baseline)});
at('/opt/slopgate/deps/tree/.pnp.cjs', ${JSON.stringify(secret)});
at('/opt/slopgate/deps/tree/node_modules/.vite', ${JSON.stringify(victims)});
// Hard links reach only what the install's own mount holds: the host's files are not there to link.
for (const target of [${JSON.stringify(keys)}, '/etc/passwd']) { try { fs.linkSync(target, '/opt/slopgate/deps/hard-' + require('node:path').basename(target)); } catch (e) { console.log('link: ' + e.code); } }
`;
    const reader =
      "'use strict';\nconst test = require('node:test');\nconst fs = require('node:fs');\ntest('reads what was mounted', () => { let s = ''; try { s = fs.readFileSync('.pnp.cjs', 'utf8'); } catch (e) { s = e.code; } console.log('LOOT:' + s); });\n";
    const evil = branch(repo, 'evil', { 'scripts/postinstall.js': plant, 'test/loot.test.js': reader });
    const { out } = await check(repo, evil, cache);
    expect([keys, baseline, secret].map((f) => readFileSync(f))).toEqual(before);
    expect(readdirSync(victims).sort()).toEqual(['authorized_keys', 'credentials.toml']);
    expect(out).not.toContain('slopgate-canary-credential');
    // The entry the install made holds its links as links, and slopgate's metadata beside them.
    const tree = join(cache, 'tree');
    const [entry] = readdirSync(tree);
    expect(JSON.parse(readFileSync(join(tree, entry!, 'meta.json'), 'utf8'))).toMatchObject({ scope: 'tree', key: entry });
  }, 600_000);

  it('an install that writes past tests.installDiskMb is stopped and named; the cache and the disk keep nothing of it', async () => {
    const cache = fresh('slopgate-attack-cache-');
    const base = {
      ...npmProject({ dep: 'file:vendor/dep' }),
      '.github/slopgate.yml': 'tests:\n  installDiskMb: 64\n',
    };
    const repo = TestRepo.create();
    repo.write(base).commit('base');
    const fill =
      "'use strict';\nconst fs = require('node:fs');\nconst mb = Buffer.alloc(1024 * 1024, 1);\nfor (const dir of ['/opt/slopgate/deps', process.env.HOME, process.env.TMPDIR]) {\n  try { for (let i = 0; i < 100; i++) fs.appendFileSync(dir + '/fill.bin', mb); } catch (e) { console.log(dir + ': ' + e.code); }\n}\n";
    const evil = branch(repo, 'evil', { 'scripts/postinstall.js': fill });
    const tmpBefore = new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('slopgate-install-')));
    // Not a pass, not the code's fault: the gate stops (the CLI exits 3) and names the cap.
    const stopped = await check(repo, evil, cache).then(
      () => null,
      (err: unknown) => err,
    );
    expect(stopped).toBeInstanceOf(GateInfraError);
    expect((stopped as GateInfraError).message).toMatch(/tests\.installDiskMb, 64 MiB/);
    expect(existsSync(join(cache, 'tree')) ? readdirSync(join(cache, 'tree')) : []).toEqual([]);
    const du = spawnSync('du', ['-sm', cache], { encoding: 'utf8' });
    expect(Number(du.stdout.split('\t')[0])).toBeLessThan(64);
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith('slopgate-install-') && !tmpBefore.has(n))).toEqual([]);
  }, 600_000);
});

needs('python3', 'bwrap')('an install cannot decide another PR’s verdict (Python)', () => {
  /** A setup.py project (its dependencies computed by its build) whose build imports a helper of the tree. */
  const base: Record<string, string> = {
    'setup.py':
      'from setuptools import setup\nimport build_helpers\n\nsetup(name="calc", version="0.1.0", py_modules=["calc"], install_requires=build_helpers.requires())\n',
    'build_helpers.py': 'def requires():\n    return []\n',
    'calc.py': 'def add(a, b):\n    return a + b\n',
    'test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
  };
  /** The helper, poisoned: while the project builds, it installs a pytest plugin into the venv that reports every test passed. */
  const poison = `import glob, os

PLUGIN = '''import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
'''


def requires():
    for site in glob.glob("/opt/slopgate/deps/venv/lib/python*/site-packages"):
        with open(os.path.join(site, "zz_poison.py"), "w") as f:
            f.write(PLUGIN)
        info = os.path.join(site, "zz_poison-1.0.dist-info")
        os.makedirs(info, exist_ok=True)
        with open(os.path.join(info, "METADATA"), "w") as f:
            f.write("Metadata-Version: 2.1\\nName: zz-poison\\nVersion: 1.0\\n")
        with open(os.path.join(info, "entry_points.txt"), "w") as f:
            f.write("[pytest11]\\nzz_poison = zz_poison\\n")
        open(os.path.join(info, "RECORD"), "w").close()
    return ["iniconfig"]
`;

  it('a build helper that plants a pytest plugin in the venv: the next honest PR with the same setup.py still blocks', async () => {
    const cache = fresh('slopgate-attack-cache-');
    const repo = TestRepo.create();
    repo.write(base).commit('base');
    const setup = base['setup.py']!;
    const evil = branch(repo, 'evil', { 'build_helpers.py': poison, 'setup.py': setup.replace('0.1.0', '0.2.0') });
    const honest = branch(repo, 'honest', {
      'build_helpers.py': 'def requires():\n    return ["iniconfig"]\n',
      'setup.py': setup.replace('0.1.0', '0.2.0'),
      'calc.py': 'def add(a, b):\n    return a - b\n',
    });
    const first = await check(repo, evil, cache);
    expect(first.tests.dependencies?.head.entry?.scope).toBe('tree');
    const later = await check(repo, honest, cache);
    expect(later.tests.dependencies?.head.entry?.scope).toBe('tree');
    expect(regressions(later.report).map((f) => f.message)).toEqual([expect.stringContaining('test_add')]);
    expect(later.code).toBe(1);
  }, 900_000);
});

needs('cargo', 'bwrap')('an install cannot decide another PR’s verdict (cargo)', () => {
  const base: Record<string, string> = {
    'Cargo.toml': '[package]\nname = "victim"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nsub = { path = "sub" }\n',
    'sub/Cargo.toml': '[package]\nname = "sub"\nversion = "0.1.0"\nedition = "2021"\n',
    'sub/src/lib.rs': 'pub fn two() -> i32 {\n    2\n}\n',
    'src/lib.rs':
      'pub fn four() -> i32 {\n    sub::two() * 2\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn four() {\n        assert_eq!(super::four(), 4);\n    }\n}\n',
  };

  it("a rustc wrapper that swaps cargo's printed config for a link to a credentials file, or for a runner: refused, nothing leaks, main's entry unchanged", async () => {
    const cache = fresh('slopgate-attack-cache-');
    const victims = fresh('slopgate-attack-victims-');
    const secret = join(victims, 'credentials.toml');
    writeFileSync(secret, '[registry]\ntoken = "slopgate-canary-cargo-token"\n');
    const repo = TestRepo.create();
    repo.write(base).commit('base');
    // An honest PR first: main's entry is made, and its key is in the report for anyone to read.
    const warm = await check(repo, branch(repo, 'warm', { 'README.md': 'hello\n' }), cache);
    const mainKey = warm.tests.dependencies?.base.key;
    expect(warm.tests.dependencies?.base.entry?.scope).toBe('shared');
    const mainMeta = readFileSync(join(cache, 'shared', mainKey!, 'meta.json'));
    const wrapper = (body: string) => `#!/bin/sh\n${body}\nexec "$@"\n`;
    const printsHome =
      'pub fn four() -> i32 {\n    sub::two() * 2\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn home() {\n        let c = std::fs::read_to_string(std::path::Path::new(&std::env::var("CARGO_HOME").unwrap()).join("config.toml")).unwrap_or_default();\n        println!("LOOT:{c}");\n        assert!(!c.contains("token"));\n    }\n}\n';
    const evils = {
      link: wrapper(
        `ln -sf ${secret} /opt/slopgate/deps/cargo-config.toml.new && mv -f /opt/slopgate/deps/cargo-config.toml.new /opt/slopgate/deps/cargo-config.toml\nln -sf ${join(cache, 'shared', mainKey!, 'meta.json')} /opt/slopgate/deps/meta.json`,
      ),
      runner: wrapper('printf \'[target.x86_64-unknown-linux-gnu]\\nrunner = "/bin/true"\\n\' >> /opt/slopgate/deps/cargo-config.toml'),
    };
    for (const [name, script] of Object.entries(evils)) {
      const evil = branch(repo, `evil-${name}`, {
        '.cargo/config.toml': '[build]\nrustc-wrapper = "./wrap.sh"\n',
        'wrap.sh': script,
        'src/lib.rs': printsHome,
      });
      repo.checkout(evil).chmod('wrap.sh', 0o755).commit('executable');
      repo.checkout('main');
      const { out, code } = await check(repo, evil, cache);
      expect(out).not.toContain('slopgate-canary-cargo-token');
      expect(code).not.toBe(0);
    }
    expect(readFileSync(join(cache, 'shared', mainKey!, 'meta.json'))).toEqual(mainMeta);
    // Every later PR on main is judged on its own code.
    const honest = branch(repo, 'honest', { 'sub/src/lib.rs': 'pub fn two() -> i32 {\n    3\n}\n' });
    const later = await check(repo, honest, cache);
    expect(later.tests.dependencies?.base).toMatchObject({ status: 'cached', key: mainKey });
    expect(regressions(later.report)).toHaveLength(1);
    expect(later.code).toBe(1);
    expect(statSync(secret).size).toBeGreaterThan(0);
  }, 900_000);
});

describe('operator credentials never reach an install', () => {
  it('GOSUMDB with userinfo, or any @, is dropped; an install gets only its own ecosystem’s registry settings', () => {
    const env = operatorRegistryEnv(
      { GOSUMDB: 'sum.golang.org https://ops:slopgate-canary@sum.example.org', GOPROXY: 'https://proxy.golang.org' },
      '/nonexistent',
    );
    expect(JSON.stringify(env)).not.toContain('canary');
    expect(env.GOSUMDB).toBeUndefined();
    expect(
      operatorRegistryEnv({ GOSUMDB: 'sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ako3 https://sum.golang.org' }, '/nonexistent')
        .GOSUMDB,
    ).toBe('sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ako3 https://sum.golang.org');
    const all = operatorRegistryEnv({ GOSUMDB: 'sum.golang.org', PIP_INDEX_URL: 'https://pypi.example.org/simple' }, '/nonexistent');
    expect(Object.keys(registryEnvFor('npm', all)).sort()).toEqual(['YARN_NPM_REGISTRY_SERVER', 'npm_config_registry']);
    expect(Object.keys(registryEnvFor('go', all)).sort()).toEqual(['GOPROXY', 'GOSUMDB']);
    expect(registryEnvFor('cargo', all)).toEqual({});
  });
});
