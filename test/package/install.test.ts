import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sloppyPr } from '../helpers/sloppy-pr.js';

/**
 * The package as a user gets it: `npm pack` (whose prepack builds dist/), the tarball installed
 * globally into a temporary prefix, and the installed `slopgate` command run on a real repository.
 * npm installs the bin as a symlink into <prefix>/bin, which is what this test is about: the
 * entry point must notice it is the main module when started through that link.
 *
 * The pack runs in a copy of the source tree so that this test never deletes or rebuilds the dist/
 * that other suites (the App's end-to-end tests) may be using at the same time. Dependencies come
 * from npm's cache (`--prefer-offline`): `npm ci` has put every one of them there.
 */
const ROOT = process.cwd();
const PACKAGE_FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'README.md',
  'app.yml',
  'build',
  'src',
  'schemas',
];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let work: string;
let bin: string;
let tarball: string;
let packedFiles: string[];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'slopgate-pack-'));
  const src = join(work, 'src-copy');
  mkdirSync(src);
  for (const f of PACKAGE_FILES) cpSync(join(ROOT, f), join(src, f), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(src, 'node_modules'), 'dir');
  const out = execFileSync(npm, ['pack', '--json', '--pack-destination', work], {
    cwd: src,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const packed = JSON.parse(out.slice(out.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  tarball = join(work, packed[0]!.filename);
  packedFiles = packed[0]!.files.map((f) => f.path);
  const prefix = join(work, 'prefix');
  execFileSync(npm, ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], {
    cwd: work,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  bin = join(prefix, 'bin', 'slopgate');
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function slopgate(args: string[], cwd = work) {
  return spawnSync(bin, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 300_000 });
}

describe('the installed package', () => {
  it('ships the built entry points and schemas, not the sources or tests', () => {
    // The command is one bundle (build/cli.mjs) with its guard thread's entry beside it.
    expect(packedFiles).toContain('dist/bin/slopgate.js');
    expect(packedFiles).toContain('dist/bin/guard-worker.js');
    expect(packedFiles).toContain('dist/app-server.js');
    expect(packedFiles).toContain('schemas/slopgate.schema.json');
    expect(packedFiles.filter((f) => f.startsWith('src/') || f.startsWith('test/') || f.endsWith('.map'))).toEqual([]);

    // The benchmarks (src/bench, built only by `npm run build:bench`) are for a checkout, not for users.
    expect(packedFiles.filter((f) => f.includes('bench'))).toEqual([]);
  });

  it('resolves as tested: pglite at the version CI tests (pinned; the lockfile also ships as npm-shrinkwrap.json), and npm ls of the global install is clean', () => {
    // A global install reads no package-lock.json: without the shrinkwrap it took newer releases than CI tested.
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
    const installed = JSON.parse(
      readFileSync(
        join(work, 'prefix', 'lib', 'node_modules', 'slopgate', 'node_modules', '@electric-sql', 'pglite', 'package.json'),
        'utf8',
      ),
    ) as { version: string };
    expect(installed.version).toBe(lock.packages['node_modules/@electric-sql/pglite']!.version);
    const r = spawnSync(npm, ['ls', '-g', '--prefix', join(work, 'prefix'), '--all'], { cwd: work, encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/\binvalid\b|\bmissing\b|UNMET DEPENDENCY|ELSPROBLEMS/);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/content-type@/);
  });

  it('is installed as a symlink to the bundle and prints its version', () => {
    expect(lstatSync(bin).isSymbolicLink()).toBe(true);
    expect(realpathSync(bin)).toBe(realpathSync(join(work, 'prefix', 'lib', 'node_modules', 'slopgate', 'dist', 'bin', 'slopgate.js')));
    const r = slopgate(['--version']);
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(r.stdout.trim()).toBe(version);
    expect(r.status).toBe(0);
  });

  it('answers --help for every command', () => {
    for (const command of ['check', 'init', 'demo', 'schema', 'worker']) {
      const r = slopgate([command, '--help']);
      expect(r.status, `${command} --help: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: slopgate ${command}`));
    }
  });

  it('gates a sloppy pull request: prints the findings and exits 1', () => {
    const repo = sloppyPr();
    const r = slopgate(['check', '--base', 'main', '--head', 'pr', '--no-tests'], repo.dir);
    // Not a terminal: stderr carries only the progress, one plain line per stage (issue 32).
    expect(r.stderr).toBe('slopgate: gating main..pr: running the guards\n');
    expect(r.stdout).toMatch(/REFINE/);
    expect(r.stdout).toMatch(/init_schema/);
    expect(r.stdout).toMatch(/config\.json/);
    expect(r.status).toBe(1);
  });

  it('keeps its runs in an embedded database with --db (PGlite, loaded from node_modules beside the bundle)', () => {
    const repo = sloppyPr();
    const db = join(work, 'runs-db');
    const r = slopgate(['check', '--base', 'main', '--head', 'pr', '--no-tests', '--db', db, '-f', 'json', '--quiet'], repo.dir);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(1);
    expect((JSON.parse(r.stdout) as { decision: { outcome: string } }).decision.outcome).toBe('REFINE');
    expect(readdirSync(db).length).toBeGreaterThan(0);
  });

  it('finds its bundled schemas from the install location (G10 loads them)', () => {
    const r = slopgate(['schema']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('properties.tests');
    expect(readdirSync(join(work, 'prefix', 'lib', 'node_modules', 'slopgate', 'schemas'))).toContain('NOTICE.md');
  });
});
