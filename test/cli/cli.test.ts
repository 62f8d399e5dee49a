import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, runCheck } from '../../src/cli.js';
import type { Report } from '../../src/core/report.js';
import { prRepo } from '../helpers/git-repo.js';

const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const CLI = join(process.cwd(), 'src', 'cli.ts');

function runBin(args: string[], cwd: string) {
  return spawnSync(TSX, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
}

describe('slopgate check', () => {
  it('prints the JSON report and exits 0 when nothing blocks', async () => {
    const repo = prRepo({ 'notes.txt': 'a\n' }, { 'notes.txt': 'a\nb\n' });
    let out = '';
    const code = await runCheck({ repo: repo.dir, base: 'main', head: 'pr', format: 'json', strict: false }, (s) => (out += s));
    const report = JSON.parse(out) as Report;
    expect(code).toBe(0);
    expect(report.version).toBe(1);
    expect(report.files.map((f) => f.path)).toEqual(['notes.txt']);
  });

  it('defaults --base to the default branch and --head to HEAD', async () => {
    const repo = prRepo({ 'a.txt': 'a\n' }, { 'a.txt': 'b\n' });
    let out = '';
    await runCheck({ repo: repo.dir, head: 'HEAD', format: 'json', strict: false }, (s) => (out += s));
    const report = JSON.parse(out) as Report;
    expect(report.base.ref).toBe('main');
    expect(report.head.sha).toBe(repo.git('rev-parse', 'pr').trim());
  });

  it('exits 2 with a clear message on an unknown ref', () => {
    const repo = prRepo({ 'a.txt': 'a\n' }, { 'a.txt': 'b\n' });
    const r = runBin(['check', '--base', 'no-such-branch'], repo.dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown git ref 'no-such-branch'/);
  });

  it('exits 2 on a malformed config file, naming the line', () => {
    const repo = prRepo({ 'a.txt': 'a\n' }, { 'a.txt': 'b\n' });
    writeFileSync(join(repo.dir, 'bad.yml'), 'strict: yes please\n');
    const r = runBin(['check', '--base', 'main', '--config', 'bad.yml'], repo.dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/bad\.yml:1/);
  });

  it('exits 2 on an unknown flag or format', async () => {
    await expect(main(['check', '--format', 'xml'])).rejects.toThrow(/unknown format 'xml'/);
    const r = runBin(['check', '--frobnicate'], process.cwd());
    expect(r.status).toBe(2);
  });

  it('exits 2 outside a git repository', () => {
    const dir = execFileSync('mktemp', ['-d'], { encoding: 'utf8' }).trim();
    const r = runBin(['check', '--base', 'main'], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/not a git repository/);
  });

  it('prints the config schema', () => {
    const r = runBin(['schema'], process.cwd());
    expect(r.status).toBe(0);
    const schema = JSON.parse(r.stdout) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toContain('tests');
  });
});

describe('slopgate --help', () => {
  it('prints the help of every command and exits 0', async () => {
    for (const command of ['check', 'init', 'demo', 'schema', 'worker']) {
      let out = '';
      expect(await main([command, '--help'], (s) => (out += s))).toBe(0);
      expect(out).toMatch(new RegExp(`^Usage: slopgate ${command}`));
      let viaHelp = '';
      await main(['help', command], (s) => (viaHelp += s));
      expect(viaHelp).toBe(out);
    }
  });

  it('documents every option check accepts', async () => {
    let out = '';
    await main(['check', '-h'], (s) => (out += s));
    for (const flag of [
      '--repo',
      '--base',
      '--head',
      '--format',
      '--config',
      '--only',
      '--skip',
      '--strict',
      '--no-tests',
      '--fail-level',
      '--output',
      '--trace',
      '--db',
    ]) {
      expect(out).toContain(flag);
    }
  });

  it('prints the version', async () => {
    let out = '';
    expect(await main(['--version'], (s) => (out += s))).toBe(0);
    expect(out).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('guard ids on the command line', () => {
  it('rejects an unknown id in --only or --skip and lists the known ones', async () => {
    const repo = prRepo({ 'a.txt': 'a\n' }, { 'a.txt': 'b\n' });
    const args = { repo: repo.dir, base: 'main', head: 'pr', format: 'json' as const, strict: false };
    await expect(runCheck({ ...args, only: ['G1', 'G99'] }, () => undefined)).rejects.toMatchObject({
      message: "--only: unknown guard id 'G99'",
      hint: expect.stringContaining('G1, G2, G4, G7'),
    });
    await expect(runCheck({ ...args, skip: ['psy'] }, () => undefined)).rejects.toThrow(/--skip: unknown guard id 'psy'/);
  });

  it('accepts ids in any case and skips what --skip names', async () => {
    const repo = prRepo({ 'a.json': '{}\n' }, { 'a.json': '{"a": 1}\n' });
    let out = '';
    await runCheck({ repo: repo.dir, base: 'main', head: 'pr', format: 'json', strict: false, skip: ['g1', 'PSI'] }, (s) => (out += s));
    const report = JSON.parse(out) as Report;
    expect(report.guards.find((g) => g.id === 'G1')).toMatchObject({ status: 'skipped', reason: 'skipped (--skip)' });
    expect(report.guards.find((g) => g.id === 'psi')).toMatchObject({ status: 'skipped', reason: 'skipped (--skip)' });
    expect(report.guards.find((g) => g.id === 'G2')?.status).not.toBe('skipped');
  });

  it('exits 2 without a stack trace on an unknown id', () => {
    const repo = prRepo({ 'a.txt': 'a\n' }, { 'a.txt': 'b\n' });
    const r = runBin(['check', '--base', 'main', '--only', 'G99'], repo.dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown guard id 'G99'/);
    expect(r.stderr).toMatch(/known ids: G1,/);
  });
});

describe('--output', () => {
  it('into a missing folder: a clear error, exit 2, no stack trace, and the gate does not run', () => {
    const repo = prRepo({ 'a.txt': 'a\n' }, { 'a.txt': 'b\n' });
    const r = runBin(['check', '--base', 'main', '--output', 'no/such/dir/report.json'], repo.dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--output no\/such\/dir\/report\.json: the folder .*no\/such\/dir does not exist/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('naming a folder is an error too', async () => {
    const repo = prRepo({ 'a.txt': 'a\n' }, { 'a.txt': 'b\n' });
    await expect(
      runCheck({ repo: repo.dir, base: 'main', head: 'pr', format: 'json', strict: false, output: repo.dir }, () => undefined),
    ).rejects.toThrow(/that is a folder/);
  });

  it('writes the report into an existing folder', async () => {
    const repo = prRepo({ 'a.txt': 'a\n' }, { 'a.txt': 'b\n' });
    const file = join(repo.dir, 'report.json');
    let out = '';
    expect(
      await runCheck({ repo: repo.dir, base: 'main', head: 'pr', format: 'json', strict: false, output: file }, (s) => (out += s)),
    ).toBe(0);
    expect(out).toBe('');
    expect((JSON.parse(readFileSync(file, 'utf8')) as Report).version).toBe(1);
  });
});
