import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, reportError, runCheck, type CheckArgs } from '../../src/cli.js';
import type { Report } from '../../src/core/report.js';
import { prRepo } from '../helpers/git-repo.js';

const DISABLE = 'guards:\n  disable: [G8, G15]\n';

async function check(args: Partial<CheckArgs> & { repo: string }) {
  let out = '';
  let err = '';
  const code = await runCheck(
    { head: 'HEAD', format: 'json', strict: false, noTests: true, ...args },
    (s) => (out += s),
    {},
    { warn: (s) => (err += s) },
  );
  return { code, report: JSON.parse(out) as Report, err };
}

const statusOf = (report: Report, id: string) => report.guards.find((g) => g.id === id);

describe('slopgate check reads the committed config', () => {
  it('uses .github/slopgate.yml as committed at the base and names it in the report', async () => {
    const repo = prRepo({ '.github/slopgate.yml': DISABLE, 'a.py': 'x = 1\n' }, { 'a.py': 'x = 2\n' });
    const { report } = await check({ repo: repo.dir, base: 'main', noTests: false });
    expect(statusOf(report, 'G8')).toMatchObject({ status: 'skipped', reason: 'disabled in config (guards.disable)' });
    expect(statusOf(report, 'G15')).toMatchObject({ status: 'skipped', reason: 'disabled in config (guards.disable)' });
    expect(report.configSource).toMatch(/^\.github\/slopgate\.yml at main \([0-9a-f]{7}\)$/);
  });

  it('ignores a config the change itself adds or edits, as the App does', async () => {
    const repo = prRepo({ 'a.py': 'x = 1\n' }, { '.github/slopgate.yml': DISABLE, 'a.py': 'x = 2\n' });
    const { report } = await check({ repo: repo.dir, base: 'main' });
    expect(statusOf(report, 'G15')?.reason).not.toMatch(/disabled in config/);
    expect(report.configSource).toMatch(/^the embedded defaults \(no \.github\/slopgate\.yml at main/);
  });

  it('takes --config over the committed file', async () => {
    const repo = prRepo({ '.github/slopgate.yml': DISABLE, 'a.py': 'x = 1\n' }, { 'a.py': 'x = 2\n' });
    writeFileSync(join(repo.dir, 'other.yml'), 'strict: true\n');
    const { report } = await check({ repo: repo.dir, base: 'main', config: join(repo.dir, 'other.yml') });
    expect(statusOf(report, 'G15')?.reason).not.toMatch(/disabled in config/);
    expect(report.configSource).toBe(`${join(repo.dir, 'other.yml')} (--config)`);
  });

  it('a committed config with four mistakes: all four in one run, each with file:line:column, exit 2 and a hint the package has', async () => {
    const broken = 'strict: yes please\nguards:\n  disabel: [G11]\npsi:\n  threshold: high\ncomments:\n  budget: 500\n';
    const repo = prRepo({ '.github/slopgate.yml': broken, 'a.py': 'x = 1\n' }, { 'a.py': 'x = 2\n' });
    let err = '';
    const code = await main(['check', '--repo', repo.dir, '--base', 'main', '--head', 'pr', '--no-tests'], () => undefined).then(
      () => -1,
      (e: unknown) => reportError(e, (s) => (err += s)),
    );
    expect(code).toBe(2);
    const at = err.match(/\.github\/slopgate\.yml:\d+:\d+/g);
    expect(at).toEqual(['.github/slopgate.yml:1:9', '.github/slopgate.yml:3:3', '.github/slopgate.yml:5:14', '.github/slopgate.yml:7:11']);
    expect(err).toContain('4 problems');
    // The hint names a command every install has (the package does not ship docs/).
    expect(err).toContain('hint: fix the slopgate config; `slopgate schema --format markdown` lists every key');
    expect(err).not.toContain('docs/configuration-reference.md');
    // And that command is real: it prints the reference of the keys named above.
    let reference = '';
    expect(await main(['schema', '--format', 'markdown'], (s) => (reference += s))).toBe(0);
    for (const key of ['strict', 'psi.threshold', 'comments.budget']) expect(reference).toContain(key);
  });

  it('reads .github/slopgate.toml too, and refuses two config files at once', async () => {
    const toml = prRepo({ '.github/slopgate.toml': '[guards]\ndisable = ["G15"]\n', 'a.py': 'x = 1\n' }, { 'a.py': 'x = 2\n' });
    expect(statusOf((await check({ repo: toml.dir, base: 'main' })).report, 'G15')?.status).toBe('skipped');
    const both = prRepo({ '.github/slopgate.toml': '', '.github/slopgate.yml': '', 'a.py': 'x = 1\n' }, { 'a.py': 'x = 2\n' });
    await expect(check({ repo: both.dir, base: 'main' })).rejects.toThrow(/keep exactly one slopgate config file/);
  });

  it('shows the config file in the text and Markdown reports', async () => {
    const repo = prRepo({ '.github/slopgate.yml': DISABLE, 'a.py': 'x = 1\n' }, { 'a.py': 'x = 2\n' });
    for (const format of ['text', 'markdown'] as const) {
      let out = '';
      await runCheck(
        { repo: repo.dir, base: 'main', head: 'HEAD', format, strict: false, noTests: true },
        (s) => (out += s),
        {},
        { warn: () => undefined },
      );
      expect(out).toMatch(/config: \.github\/slopgate\.yml at main/i);
    }
  });
});

describe('slopgate check and uncommitted work', () => {
  it('warns with the count when the working tree has changes the check leaves out', async () => {
    const repo = prRepo({ 'a.py': 'x = 1\n' }, { 'a.py': 'x = 2\n' });
    repo.write({ 'a.py': 'x = 3\n', 'new.py': 'y = 1\n', 'lib/b.py': 'z = 1\n' });
    const { err, report } = await check({ repo: repo.dir, base: 'main' });
    expect(err).toMatch(/warning: 3 uncommitted changes in the working tree are not part of this check/);
    expect(err).toMatch(/--working-tree/);
    expect(report.files.map((f) => f.path)).toEqual(['a.py']);
  });

  it('does not warn on a clean tree, nor when --head is another commit', async () => {
    const repo = prRepo({ 'a.py': 'x = 1\n' }, { 'a.py': 'x = 2\n' });
    expect((await check({ repo: repo.dir, base: 'main' })).err).toBe('');
    repo.checkout('main');
    repo.write({ 'a.py': 'x = 3\n' });
    expect((await check({ repo: repo.dir, base: 'main', head: 'pr' })).err).toBe('');
  });

  it('--working-tree gates the uncommitted and untracked files against the base, leaving the index alone', async () => {
    const repo = prRepo({ 'a.py': 'x = 1\n', '.gitignore': 'build/\n' }, { 'a.py': 'x = 2\n' });
    repo.write({ 'a.py': 'x = 3\n', 'new.py': 'y = 1\n', 'build/out.txt': 'ignored\n' });
    repo.git('add', 'new.py');
    const before = repo.git('status', '--porcelain');
    const headBefore = repo.git('rev-parse', 'HEAD');
    const { err, report } = await check({ repo: repo.dir, base: 'main', workingTree: true });
    expect(err).toBe('');
    expect(report.files.map((f) => f.path).sort()).toEqual(['a.py', 'new.py']);
    expect(report.head.ref).toBe('working tree');
    expect(repo.git('status', '--porcelain')).toBe(before);
    expect(repo.git('rev-parse', 'HEAD')).toBe(headBefore);
  });

  it('a bare repository (a mirror) whose HEAD is the head: no working tree to warn about, the check runs', async () => {
    const repo = prRepo({ 'a.py': 'x = 1\n' }, { 'a.py': 'x = 2\n' });
    const bare = `${repo.dir}.git`;
    execFileSync('git', ['clone', '-q', '--bare', '--branch', 'pr', repo.dir, bare]);
    try {
      const { err, report } = await check({ repo: bare, base: 'main' });
      expect(err).toBe('');
      expect(report.files.map((f) => f.path)).toEqual(['a.py']);
      // --working-tree there has nothing to gate: a usage error that says so, not git's own words.
      await expect(check({ repo: bare, base: 'main', workingTree: true })).rejects.toThrow(/has no working tree \(a bare repository/);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  it('--working-tree with --head is a usage error', async () => {
    const repo = prRepo({ 'a.py': 'x = 1\n' }, { 'a.py': 'x = 2\n' });
    await expect(check({ repo: repo.dir, base: 'main', head: 'pr', workingTree: true })).rejects.toThrow(/cannot be combined with --head/);
  });
});

describe('--output and --trace', () => {
  it('both refuse a folder that does not exist, and create nothing', async () => {
    const repo = prRepo({ 'a.py': 'x = 1\n' }, { 'a.py': 'x = 2\n' });
    for (const flag of ['output', 'trace'] as const) {
      const target = join(repo.dir, `missing-${flag}`, 'file.txt');
      await expect(check({ repo: repo.dir, base: 'main', [flag]: target })).rejects.toThrow(
        new RegExp(`--${flag} .*: the folder .* does not exist`),
      );
      expect(existsSync(join(repo.dir, `missing-${flag}`))).toBe(false);
    }
  });
});
