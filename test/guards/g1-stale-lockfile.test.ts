import { describe, expect, it } from 'vitest';
import { g1 } from '../../src/guards/g1-manifest-safety/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, type TestRepo } from '../helpers/git-repo.js';

/**
 * A manifest whose dependencies change while its committed lockfile does not: the installer in
 * frozen mode refuses it. `fail` where the project's CI installs that way, else `risk`.
 */

const pkg = (deps: Record<string, string>, name = 'app') => JSON.stringify({ name, version: '1.0.0', dependencies: deps }, null, 2) + '\n';

/** A package-lock.json (v3) that pins `deps` (name → version) for the root, or for workspace `member`. */
function npmLock(deps: Record<string, string>, member = '') {
  const ranges = Object.fromEntries(Object.keys(deps).map((n) => [n, `^${deps[n]}`]));
  const packages: Record<string, unknown> = { '': member ? { name: 'root', workspaces: [member] } : { name: 'app', dependencies: ranges } };
  if (member) packages[member] = { name: 'member', dependencies: ranges };
  for (const [n, v] of Object.entries(deps)) packages[`node_modules/${n}`] = { version: v };
  return JSON.stringify({ name: 'app', lockfileVersion: 3, requires: true, packages }, null, 2) + '\n';
}

const NPM_CI = '.github/workflows/ci.yml';
const ciWith = (cmd: string) => `on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: ${cmd}\n`;

async function stale(repo: TestRepo) {
  const report = await gate(repo, [g1]);
  return { report, findings: findingsOf(report, 'G1').filter((f) => f.category === 'lockfile-stale') };
}

describe('G1 stale lockfile', () => {
  it('npm: a dependency added to package.json but not to package-lock.json fails where CI runs npm ci', async () => {
    const repo = prRepo(
      { 'package.json': pkg({ react: '^18.2.0' }), 'package-lock.json': npmLock({ react: '18.2.0' }), [NPM_CI]: ciWith('npm ci') },
      { 'package.json': pkg({ react: '^18.2.0', rwsdk: '^0.1.0' }) },
    );
    const { report, findings } = await stale(repo);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: 'fail', path: 'package.json' });
    expect(findings[0]!.message).toContain('adds `rwsdk` ^0.1.0');
    expect(findings[0]!.message).toContain('`npm ci` refuses it');
    expect(findings[0]!.message).toContain('.github/workflows/ci.yml');
    expect(findings[0]!.remediation).toContain('npm install');
    expect(report.decision.outcome).toBe('ASK_AUTHOR');
  });

  it('npm: a sanction of the manifest (manifests.allow) allows the edit, not the stale lockfile', async () => {
    const repo = prRepo(
      { 'package.json': pkg({ react: '^18.2.0' }), 'package-lock.json': npmLock({ react: '18.2.0' }), [NPM_CI]: ciWith('npm ci') },
      { 'package.json': pkg({ react: '^18.2.0', rwsdk: '^0.1.0' }) },
    );
    const report = await gate(repo, [g1], { config: { manifests: { allow: ['package.json'] } } });
    expect(findingsOf(report, 'G1').map((f) => f.category)).toEqual(['lockfile-stale']);
  });

  it('npm: the same without a frozen install in CI is a risk', async () => {
    const repo = prRepo(
      { 'package.json': pkg({ react: '^18.2.0' }), 'package-lock.json': npmLock({ react: '18.2.0' }), [NPM_CI]: ciWith('npm install') },
      { 'package.json': pkg({ react: '^18.2.0', rwsdk: '^0.1.0' }) },
    );
    const { findings } = await stale(repo);
    expect(findings.map((f) => f.severity)).toEqual(['risk']);
  });

  it('npm: a removed dependency the lockfile still pins, and a range the locked version misses, are stale', async () => {
    const repo = prRepo(
      { 'package.json': pkg({ react: '^18.2.0', next: '^14.0.0' }), 'package-lock.json': npmLock({ react: '18.2.0', next: '14.1.0' }) },
      { 'package.json': pkg({ react: '^19.0.0' }) },
    );
    const { findings } = await stale(repo);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toContain('changes `react` from ^18.2.0 to ^19.0.0');
    expect(findings[0]!.message).toContain('removes `next`');
  });

  it('npm negatives: a range the locked version still satisfies, a lockfile the PR updates, no lockfile at all', async () => {
    const satisfied = prRepo(
      { 'package.json': pkg({ react: '^18.2.0' }), 'package-lock.json': npmLock({ react: '18.3.1' }), [NPM_CI]: ciWith('npm ci') },
      { 'package.json': pkg({ react: '^18.3.0' }) },
    );
    expect((await stale(satisfied)).findings).toEqual([]);
    const updated = prRepo(
      { 'package.json': pkg({ react: '^18.2.0' }), 'package-lock.json': npmLock({ react: '18.2.0' }) },
      { 'package.json': pkg({ react: '^18.2.0', rwsdk: '^0.1.0' }), 'package-lock.json': npmLock({ react: '18.2.0', rwsdk: '0.1.0' }) },
    );
    expect((await stale(updated)).findings).toEqual([]);
    const noLock = prRepo(
      { 'package.json': pkg({ react: '^18.2.0' }), [NPM_CI]: ciWith('npm ci') },
      { 'package.json': pkg({ rwsdk: '^0.1.0' }) },
    );
    expect((await stale(noLock)).findings).toEqual([]);
  });

  it('npm workspace: the root lockfile covers the manifest of a member package', async () => {
    const base = {
      'package.json': JSON.stringify({ name: 'root', workspaces: ['packages/api'] }) + '\n',
      'packages/api/package.json': pkg({ react: '^18.2.0' }, 'member'),
      'package-lock.json': npmLock({ react: '18.2.0' }, 'packages/api'),
    };
    const repo = prRepo(base, { 'packages/api/package.json': pkg({ react: '^18.2.0', zod: '^3.0.0' }, 'member') });
    const { findings } = await stale(repo);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toContain('`package-lock.json` is not part of the PR');
    expect(findings[0]!.remediation).toBe('Run `npm install` and commit the updated `package-lock.json` with the manifest.');
  });

  it('pnpm: a changed specifier fails where CI runs pnpm install (frozen on CI by default)', async () => {
    const lock =
      "lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      react:\n        specifier: ^18.2.0\n        version: 18.3.1\n";
    const repo = prRepo(
      { 'package.json': pkg({ react: '^18.2.0' }), 'pnpm-lock.yaml': lock, [NPM_CI]: ciWith('pnpm install') },
      { 'package.json': pkg({ react: '^18.3.0' }) },
    );
    const { findings } = await stale(repo);
    expect(findings.map((f) => f.severity)).toEqual(['fail']);
    expect(findings[0]!.message).toContain('pnpm install --frozen-lockfile');
  });

  it('uv: a raised lower bound that uv.lock does not record fails where CI runs uv sync --locked (autogen#6563)', async () => {
    const pyproject = (spec: string) => `[project]\nname = "autogen-ext"\nversion = "0.1.0"\ndependencies = ["graphrag${spec}"]\n`;
    const lock = [
      'version = 1',
      '',
      '[[package]]',
      'name = "autogen-ext"',
      'version = "0.1.0"',
      'source = { editable = "." }',
      '',
      '[package.metadata]',
      'requires-dist = [{ name = "graphrag", specifier = ">=1.0.1" }]',
      '',
    ].join('\n');
    const repo = prRepo(
      { 'pyproject.toml': pyproject('>=1.0.1'), 'uv.lock': lock, [NPM_CI]: ciWith('uv sync --locked') },
      { 'pyproject.toml': pyproject('>=2.2.1') },
    );
    const { findings } = await stale(repo);
    expect(findings.map((f) => f.severity)).toEqual(['fail']);
    expect(findings[0]!.message).toContain('changes `graphrag` from >=1.0.1 to >=2.2.1');
    expect(findings[0]!.remediation).toContain('uv lock');
  });

  it('Cargo: a new crate Cargo.lock does not hold is a risk without --locked in CI; a satisfied requirement is none', async () => {
    const toml = (deps: string) => `[package]\nname = "app"\nversion = "0.1.0"\n\n[dependencies]\n${deps}`;
    const lock = 'version = 3\n\n[[package]]\nname = "app"\nversion = "0.1.0"\n\n[[package]]\nname = "serde"\nversion = "1.0.200"\n';
    const added = prRepo(
      { 'Cargo.toml': toml('serde = "1.0"\n'), 'Cargo.lock': lock },
      { 'Cargo.toml': toml('serde = "1.0"\nfs4 = "0.8"\n') },
    );
    expect((await stale(added)).findings.map((f) => f.severity)).toEqual(['risk']);
    const satisfied = prRepo({ 'Cargo.toml': toml('serde = "1.0"\n'), 'Cargo.lock': lock }, { 'Cargo.toml': toml('serde = "1.0.190"\n') });
    expect((await stale(satisfied)).findings).toEqual([]);
  });

  it('go: a required version go.sum has no entry for fails on every machine', async () => {
    const mod = (v: string) => `module example.com/app\n\ngo 1.22\n\nrequire github.com/pkg/errors ${v}\n`;
    const sum = 'github.com/pkg/errors v0.9.0 h1:abc=\ngithub.com/pkg/errors v0.9.0/go.mod h1:def=\n';
    const repo = prRepo({ 'go.mod': mod('v0.9.0'), 'go.sum': sum }, { 'go.mod': mod('v0.9.1') });
    const { findings } = await stale(repo);
    expect(findings.map((f) => f.severity)).toEqual(['fail']);
    expect(findings[0]!.message).toContain('missing go.sum entry');
  });
});
