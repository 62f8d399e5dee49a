import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import semver from 'semver';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = process.cwd();

describe('engines and dependencies agree', () => {
  const dir = mkdtempSync(join(tmpdir(), 'slopgate-engines-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('npm ci on this Node reports no EBADENGINE (dry run of the lockfile)', () => {
    cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    cpSync(join(ROOT, 'package-lock.json'), join(dir, 'package-lock.json'));
    const out = execFileSync('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel', 'warn'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(out).not.toMatch(/EBADENGINE/);
  });

  it('no locked package asks for a newer Node than our engines range allows on 20.x', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { engines?: { node?: string }; optional?: boolean }>;
    };
    // content-type 3 needs Node >= 22 and came in through @octokit/request; it is held at 2.x by overrides.
    const needs22 = Object.entries(lock.packages).filter(([, p]) => !p.optional && /^\s*>=\s*2[2-9]/.test(p.engines?.node ?? ''));
    expect(needs22.map(([name]) => name)).toEqual([]);
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
      .filter(([name, p]) => name && !p.dev && !p.optional && p.engines?.node)
      .filter(([, p]) => oldest.some((v) => !semver.satisfies(v, p.engines!.node!)))
      .map(([name, p]) => `${name} (${p.engines!.node})`);
    expect(tooNew).toEqual([]);
  });
});
