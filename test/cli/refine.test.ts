import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { REFINE_EXIT, runRefine, type RefineArgs } from '../../src/cli/refine.js';
import { InputError } from '../../src/core/errors.js';
import type { Recipe } from '../../src/refiner/types.js';
import { prRepo, removeTestRepos, type TestRepo } from '../helpers/git-repo.js';
import { DB_PY } from '../refiner/fixtures.js';
import { ScriptedModel } from '../refiner/scripted-model.js';

const BROKEN = DB_PY.replace('def add_user(conn, name):', 'def add_user(conn, name)');
const DROPPED = DB_PY.replace(/def format_row[\s\S]*$/, '# format_row and count_users remain unchanged\n');

const restore: Recipe = {
  id: 'test-restore',
  handles: (f) => f.guard === 'G7',
  async fix(f, ctx) {
    const base = await ctx.readBase(f.path!);
    if (base === null) return null;
    return { recipe: 'test-restore', findingIds: [f.id], files: [{ path: f.path!, content: base }], summary: `restored ${f.path}` };
  },
};

const saved = { base: process.env.SLOPGATE_LLM_BASE_URL, model: process.env.SLOPGATE_LLM_MODEL };
beforeAll(() => {
  delete process.env.SLOPGATE_LLM_BASE_URL;
  delete process.env.SLOPGATE_LLM_MODEL;
});
afterAll(() => {
  if (saved.base !== undefined) process.env.SLOPGATE_LLM_BASE_URL = saved.base;
  if (saved.model !== undefined) process.env.SLOPGATE_LLM_MODEL = saved.model;
  removeTestRepos();
});

const args = (repo: TestRepo, extra: Partial<RefineArgs> = {}): RefineArgs => ({
  repo: repo.dir,
  base: 'main',
  head: 'pr',
  apply: false,
  format: 'text',
  noTests: true,
  ...extra,
});

/** A first reply that fixes the colon but drops two helpers (G7 reverts it), then the right one. */
const replies = () => [
  { files: [{ path: 'app/db.py', content: DROPPED.replace('(conn, name)\n', '(conn, name):\n') }] },
  { files: [{ path: 'app/db.py', content: DB_PY }] },
];

async function run(a: RefineArgs, deps: Parameters<typeof runRefine>[2]) {
  let out = '';
  const code = await runRefine(a, (s) => (out += s), deps);
  return { code, out };
}

describe('slopgate refine', () => {
  it('without a model runs the recipes only, says so, and prints the patch with every guard verdict', async () => {
    const repo = prRepo({ 'app/db.py': DB_PY }, { 'app/db.py': DROPPED });
    const { code, out } = await run(args(repo), { model: null, recipes: [restore] });
    expect(code).toBe(REFINE_EXIT.ok);
    expect(out).toContain('model: none — recipes only');
    expect(out).toContain('attempt 1: test-restore → KEPT (app/db.py)');
    expect(out).toMatch(/^ {2}G7 +pass$/m);
    expect(out).toMatch(/^ {2}G8 +skipped/m);
    expect(out).toContain('proposed patch (apply with --apply)');
    expect(out).toContain('+def format_row(row):');
    // Without --apply nothing changes.
    expect(readFileSync(join(repo.dir, 'app/db.py'), 'utf8')).toBe(DROPPED);
  }, 120_000);

  it('--apply commits the kept model patch on the current branch; json shows the attempts and the commit', async () => {
    const repo = prRepo({ 'app/db.py': DB_PY }, { 'app/db.py': BROKEN });
    const before = repo.git('rev-parse', 'HEAD').trim();
    const model = new ScriptedModel(replies());
    const { code, out } = await run(args(repo, { apply: true, format: 'json' }), { model, recipes: [] });
    expect(code).toBe(REFINE_EXIT.ok);
    const json = JSON.parse(out) as { applied: string; attempts: { outcome: string; source: string }[]; model: string; diff: string };
    expect(json.attempts.map((a) => a.outcome)).toEqual(['reverted', 'kept']);
    expect(json.attempts[1]!.source).toBe('model:scripted-model');
    expect(json.applied).toBe(repo.git('rev-parse', 'HEAD').trim());
    expect(repo.git('rev-parse', 'HEAD~1').trim()).toBe(before);
    expect(repo.git('rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('pr');
    expect(repo.git('log', '-1', '--format=%s%n%an').trim()).toBe('slopgate refine: fix 1 finding\nDev');
    expect(readFileSync(join(repo.dir, 'app/db.py'), 'utf8')).toBe(DB_PY);
    expect(repo.git('status', '--porcelain')).toBe('');
  }, 120_000);

  it('--apply refuses a dirty tree and a HEAD that is not --head, before any work', async () => {
    const repo = prRepo({ 'app/db.py': DB_PY }, { 'app/db.py': BROKEN });
    repo.write({ 'app/db.py': 'x = 1\n' });
    await expect(run(args(repo, { apply: true }), { model: null, recipes: [] })).rejects.toThrow(/dirty work tree/);
    repo.git('checkout', '--', 'app/db.py');
    repo.git('checkout', '-q', 'main');
    await expect(run(args(repo, { apply: true }), { model: null, recipes: [] })).rejects.toThrow(InputError);
    await expect(run(args(repo, { apply: true }), { model: null, recipes: [] })).rejects.toThrow(/is not --head pr/);
  }, 120_000);

  it('exits 1 when blocking findings remain and nothing could be fixed (main, environment without a model)', async () => {
    const repo = prRepo({ 'app/db.py': DB_PY }, { 'app/db.py': BROKEN });
    let out = '';
    const code = await main(['refine', '--repo', repo.dir, '--base', 'main', '--head', 'pr', '--no-tests'], (s) => (out += s));
    expect(code).toBe(REFINE_EXIT.notFixed);
    expect(out).toContain('no patch kept');
    expect(out).toContain('only the recipes ran');
  }, 120_000);

  it('--db records every attempt; the next check of the refined head shows them in a refine section', async () => {
    // The PR also adds a note, so the refined head still changes a file and G9 (which adds the section) runs.
    const repo = prRepo({ 'app/db.py': DB_PY }, { 'app/db.py': BROKEN, 'NOTES.md': '# Notes\n\nA short note.\n' });
    const db = mkdtempSync(join(tmpdir(), 'slopgate-refine-db-'));
    try {
      const model = new ScriptedModel(replies());
      const { code } = await run(args(repo, { apply: true, db }), { model, recipes: [] });
      expect(code).toBe(REFINE_EXIT.ok);
      let out = '';
      await main(['check', '--repo', repo.dir, '--base', 'main', '--head', 'HEAD', '--no-tests', '--db', db], (s) => (out += s));
      expect(out).toContain('Refine attempts: 1 kept, 1 reverted');
      expect(out).toMatch(/#1 \(round 1\) model:scripted-model → reverted app\/db\.py — G7 failed/);
      let md = '';
      const checkArgs = ['check', '--repo', repo.dir, '--base', 'main', '--head', 'HEAD', '--no-tests', '--db', db];
      await main([...checkArgs, '--format', 'markdown'], (s) => (md += s));
      expect(md).toContain('| 2 | model:scripted-model | kept | app/db.py |');
    } finally {
      rmSync(db, { recursive: true, force: true });
    }
  }, 180_000);

  /** `slopgate refine` as a user runs it (a child process), with these model variables and no others. */
  function refineWithModelEnv(repo: TestRepo, modelEnv: Record<string, string>) {
    const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', ...modelEnv };
    for (const name of ['SLOPGATE_LLM_BASE_URL', 'SLOPGATE_LLM_MODEL', 'SLOPGATE_LLM_API_KEY']) if (!(name in modelEnv)) delete env[name];
    const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
    return spawnSync(tsx, [join(process.cwd(), 'src', 'cli.ts'), 'refine', '--base', 'main', '--head', 'pr'], {
      cwd: repo.dir,
      encoding: 'utf8',
      env,
    });
  }

  it('a half-set model configuration exits 2 naming the missing variable, without a stack trace, before any work', () => {
    const repo = prRepo({ 'app/db.py': DB_PY }, { 'app/db.py': BROKEN });
    const r = refineWithModelEnv(repo, { SLOPGATE_LLM_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^slopgate: model configuration: the model is half-configured: SLOPGATE_LLM_MODEL is not set/);
    expect(r.stderr).toMatch(/hint: fix the SLOPGATE_LLM_\* variables, or unset all of them/);
    expect(r.stderr).not.toMatch(/LlmError|internal error|\n\s+at /);
    expect(r.stdout).toBe('');
  }, 60_000);

  it('a base URL that is not a URL exits 2 naming SLOPGATE_LLM_BASE_URL (and not echoing the value)', () => {
    const repo = prRepo({ 'app/db.py': DB_PY }, { 'app/db.py': BROKEN });
    const r = refineWithModelEnv(repo, { SLOPGATE_LLM_BASE_URL: 'notaurl', SLOPGATE_LLM_MODEL: 'm' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^slopgate: model configuration: SLOPGATE_LLM_BASE_URL is not a valid URL/);
    expect(r.stderr).toMatch(/http:\/\/127\.0\.0\.1:8080\/v1/);
    expect(r.stderr).not.toMatch(/notaurl|LlmError|\n\s+at /);
    expect(r.stdout).toBe('');
  }, 60_000);

  it('has help and rejects an unknown format', async () => {
    let out = '';
    expect(await main(['refine', '--help'], (s) => (out += s))).toBe(0);
    expect(out).toContain('Exit code: 0 a patch was kept');
    await expect(main(['refine', '--format', 'sarif'])).rejects.toThrow(/unknown format 'sarif'/);
  });
});
