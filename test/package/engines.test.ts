import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import semver from 'semver';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = process.cwd();

/**
 * The one locked package whose engines field asks for more than our range: content-type 3 (through
 * @octokit/request) says Node >= 22 but runs on 20 (plain ESM, no newer API); CI's Node 20 job runs the
 * whole suite on it. It is not held back with `overrides`, which npm ignores when the package is
 * installed (globally or as a dependency): the tree people install is the tree that is tested.
 */
const ENGINES_EXCEPTIONS = new Set(['node_modules/content-type']);

describe('the installed tree is the tested tree', () => {
  it('has no overrides, which npm ignores outside this repository', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.overrides).toBeUndefined();
    expect(pkg.resolutions).toBeUndefined();
  });
});

describe('engines and dependencies agree', () => {
  const dir = mkdtempSync(join(tmpdir(), 'slopgate-engines-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('npm ci on this Node reports no EBADENGINE beyond the named exception (dry run of the lockfile)', () => {
    cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    cpSync(join(ROOT, 'package-lock.json'), join(dir, 'package-lock.json'));
    // npm prints its warnings on stderr
    const r = spawnSync('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel', 'warn'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    const out = `${r.stdout}\n${r.stderr}`;
    const packages = [...out.matchAll(/EBADENGINE\s+package: '((?:@[^/']+\/)?[^@']+)@/g)].map((m) => `node_modules/${m[1]!}`);
    expect(packages.filter((p) => !ENGINES_EXCEPTIONS.has(p))).toEqual([]);
  });

  it('every runtime dependency runs on the oldest Node of each line our engines range allows', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { engines?: { node?: string }; dev?: boolean; optional?: boolean }>;
    };
    const oldest = ['20.18.1', '22.0.0'];
    for (const v of oldest) expect(semver.satisfies(v, pkg.engines.node)).toBe(true);
    // Dev-only tools (vitest's bundler) may need a newer 20.x: they are not installed with the package.
    const tooNew = Object.entries(lock.packages)
      .filter(([name, p]) => name && !p.dev && !p.optional && p.engines?.node && !ENGINES_EXCEPTIONS.has(name))
      .filter(([, p]) => oldest.some((v) => !semver.satisfies(v, p.engines!.node!)))
      .map(([name, p]) => `${name} (${p.engines!.node})`);
    expect(tooNew).toEqual([]);
  });
});
