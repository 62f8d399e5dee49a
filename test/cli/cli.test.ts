import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
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
