import { afterAll, describe, expect, it } from 'vitest';
import type { Recipe } from '../../src/refiner/types.js';
import type { HistoryReader } from '../../src/core/ports.js';
import { prRepo, removeTestRepos } from '../helpers/git-repo.js';
import { makeFinding } from '../../src/core/finding.js';
import type { Report } from '../../src/core/report.js';
import { DB_PY, gateAndRefine, refineReport } from './fixtures.js';
import { ScriptedModel, userTurn } from './scripted-model.js';

afterAll(() => removeTestRepos());

/** The PR: `add_user` lost the colon of its def line (a G2 syntax failure), everything else intact. */
const BROKEN = DB_PY.replace('def add_user(conn, name):', 'def add_user(conn, name)');

/** A real failure: the fix is right, but two helpers vanish behind a "remains unchanged" comment. */
const DROPPED = DB_PY.replace(/def format_row[\s\S]*$/, '# format_row and count_users remain unchanged\n');

describe('refine: model patches through the refiner phase of the gate', () => {
  it('a rewrite dropping helpers behind "# X remains unchanged" is caught by G7, reverted and retried; the fix is kept', async () => {
    const repo = prRepo({ 'app/db.py': DB_PY, 'app/__init__.py': '' }, { 'app/db.py': BROKEN });
    const model = new ScriptedModel([
      { files: [{ path: 'app/db.py', content: DROPPED }] },
      { files: [{ path: 'app/db.py', content: DB_PY }], summary: 'restore the colon' },
    ]);
    const { report, result } = await gateAndRefine(repo, { model });
    const g2 = report.findings.find((f) => f.guard === 'G2');
    expect(g2?.severity).toBe('fail');
    expect(result.attempts.map((a) => a.outcome)).toEqual(['reverted', 'kept']);
    expect(result.attempts[0]!.reason).toMatch(/^G7 failed: .*format_row/);
    expect(result.attempts[0]!.verdicts.find((v) => v.guard === 'G7')?.status).toBe('fail');
    expect(result.attempts[0]!.verdicts.find((v) => v.guard === 'G2')?.status).toBe('pass');
    // The retry is a fresh conversation that carries the guard's message, not the rejected reply.
    const retry = userTurn(model, 1);
    expect(retry).toContain('YOUR PREVIOUS ANSWER WAS REJECTED');
    expect(retry).toContain('format_row');
    expect(retry).not.toContain(DROPPED);
    expect(retry.slice(retry.indexOf('The check said:')).length).toBeLessThan(1500 + 400);
    expect(userTurn(model, 0)).toContain('FILES YOU MAY CHANGE: app/db.py');
    expect(model.conversations[0]![0]!.content).toMatch(/WRONG[\s\S]*remains unchanged[\s\S]*RIGHT/);
    expect(result.fixed).toContain(g2!.id);
    expect(result.files).toEqual([{ path: 'app/db.py', content: DB_PY }]);
    expect(result.diff).toContain('+def add_user(conn, name):');
    expect(result.candidateSha).toMatch(/^[0-9a-f]{40}$/);
    expect(result.blockingAfter).toBeLessThan(result.blockingBefore);
    expect(result.tokens.calls).toBe(2);
    expect(result.tokens.promptTokens).toBeGreaterThan(0);
    // The user's checkout is untouched: the candidates were commits made with plumbing.
    expect(repo.git('status', '--porcelain')).toBe('');
    expect(repo.git('rev-parse', 'HEAD').trim()).toBe(report.head.sha);
  }, 120_000);

  it('a TOML value left unquoted by the model is a G2 failure on the candidate; the quoted retry is kept', async () => {
    const base = { 'config/app.toml': '[server]\nhost = "localhost"\nport = 8080\n' };
    const repo = prRepo(base, { 'config/app.toml': '[server]\nhost = "localhost"\nport = 8080\nmode = "fast\n' });
    const model = new ScriptedModel([
      { files: [{ path: 'config/app.toml', content: '[server]\nhost = "localhost"\nport = 8080\nmode = fast\n' }] },
      { files: [{ path: 'config/app.toml', content: '[server]\nhost = "localhost"\nport = 8080\nmode = "fast"\n' }] },
    ]);
    const { result } = await gateAndRefine(repo, { model });
    expect(result.attempts.map((a) => a.outcome)).toEqual(['reverted', 'kept']);
    expect(result.attempts[0]!.reason).toMatch(/G2|no strict improvement/);
    expect(userTurn(model, 1)).toContain('REJECTED');
    expect(result.files[0]!.content).toContain('mode = "fast"');
  }, 120_000);

  it('a reply that writes outside the fence (or a manifest) is refused by the schema before anything is applied', async () => {
    const repo = prRepo({ 'app/db.py': DB_PY, 'app/other.py': 'X = 1\n' }, { 'app/db.py': BROKEN });
    const model = new ScriptedModel([
      {
        files: [
          { path: 'app/db.py', content: DB_PY },
          { path: 'app/other.py', content: 'X = 2\n' },
        ],
      },
      { files: [{ path: 'app/db.py', content: DB_PY }] },
    ]);
    const { result } = await gateAndRefine(repo, { model });
    expect(result.attempts.map((a) => a.outcome)).toEqual(['refused', 'kept']);
    expect(result.attempts[0]!.reason).toContain("'app/other.py' is outside the fence");
    expect(result.attempts[0]!.candidateSha).toBeUndefined();
    expect(userTurn(model, 1)).toContain('outside the fence');
    expect(result.files.map((f) => f.path)).toEqual(['app/db.py']);
  }, 120_000);

  it('strict improvement: a reply that fixes the syntax but adds an ungrounded import is reverted, and nothing is kept', async () => {
    const repo = prRepo({ 'requirements.txt': 'attrs>=23\n', 'app/db.py': DB_PY }, { 'app/db.py': BROKEN });
    const withImport = DB_PY.replace('import sqlite3\n', 'import sqlite3\nimport requests_toolbelt_zz\n');
    const model = new ScriptedModel([{ files: [{ path: 'app/db.py', content: withImport }] }]);
    const { result } = await gateAndRefine(repo, { model, modelAttempts: 1 });
    expect(result.attempts).toHaveLength(1);
    expect(result.attempts[0]!.outcome).toBe('reverted');
    expect(result.attempts[0]!.reason).toMatch(/^G4 failed/);
    expect(result.attempts[0]!.verdicts.find((v) => v.guard === 'G2')?.status).toBe('pass');
    expect(result.candidateSha).toBeNull();
    expect(result.diff).toBe('');
    expect(result.fixed).toEqual([]);
  }, 120_000);

  it('without a model only the recipes run, each gated; the report says so', async () => {
    const repo = prRepo({ 'app/db.py': DB_PY }, { 'app/db.py': DROPPED });
    const restore: Recipe = {
      id: 'test-restore-from-base',
      handles: (f) => f.guard === 'G7',
      async fix(f, ctx) {
        const base = await ctx.readBase(f.path!);
        if (base === null) return null;
        const files = [{ path: f.path!, content: base }];
        return { recipe: 'test-restore-from-base', findingIds: [f.id], files, summary: `restored ${f.path} from the base` };
      },
    };
    const { report, result } = await gateAndRefine(repo, { recipes: [restore] });
    const g7 = report.findings.filter((f) => f.guard === 'G7');
    expect(g7.length).toBeGreaterThan(0);
    expect(result.model).toBeNull();
    expect(result.notes.join('\n')).toContain('only the recipes ran');
    expect(result.attempts[0]).toMatchObject({ source: 'test-restore-from-base', outcome: 'kept', tokens: { prompt: 0, completion: 0 } });
    expect(result.fixed).toEqual(expect.arrayContaining(g7.map((f) => f.id)));
    expect(result.commitMessage).toContain('test-restore-from-base: restored app/db.py from the base');
    expect(result.diff).toContain('+def format_row(row):');
  }, 120_000);

  it('a dismissed finding is left alone: no recipe is asked to fix it', async () => {
    const repo = prRepo({ 'app/db.py': DB_PY }, { 'app/db.py': DROPPED });
    const asked: string[] = [];
    const spy: Recipe = {
      id: 'test-spy',
      handles: (f) => f.guard === 'G7',
      fix: (f) => {
        asked.push(f.id);
        return Promise.resolve(null);
      },
    };
    const config = {
      ignore: { findings: [{ path: 'app/db.py', category: 'toplevel-dropped', reason: 'the helpers moved out on purpose' }] },
    };
    const { report, result } = await gateAndRefine(repo, { recipes: [spy], config });
    const g7 = report.findings.filter((f) => f.guard === 'G7');
    expect(g7.length).toBeGreaterThan(0);
    expect(g7.every((f) => f.dismissed?.source === 'config')).toBe(true);
    expect(asked).toEqual([]);
    expect(result.candidateSha).toBeNull();
  }, 120_000);

  it('a recipe that writes a path none of its findings name is refused, even a file the PR changed', async () => {
    const repo = prRepo({ 'app/db.py': DB_PY, 'app/other.py': 'X = 1\n' }, { 'app/db.py': DROPPED, 'app/other.py': 'X = 1\nY = 2\n' });
    const wild: Recipe = {
      id: 'test-wild',
      handles: (f) => f.guard === 'G7',
      fix: async (f) => ({
        recipe: 'test-wild',
        findingIds: [f.id],
        files: [{ path: 'app/other.py', content: 'X = 2\n' }],
        summary: 'edits another file',
      }),
    };
    const { result } = await gateAndRefine(repo, { recipes: [wild] });
    expect(result.attempts[0]).toMatchObject({ source: 'test-wild', outcome: 'refused' });
    expect(result.attempts[0]!.reason).toContain('not a path of the findings');
    expect(result.candidateSha).toBeNull();
  }, 120_000);

  it('a path the failure history shows failing again and again is left out of the fence; the model is not asked', async () => {
    const repo = prRepo({ 'app/db.py': DB_PY }, { 'app/db.py': BROKEN });
    const asked: string[][] = [];
    const history: HistoryReader = {
      async hotspots(_repo, paths) {
        asked.push(paths);
        const at = new Date().toISOString();
        if (!paths.includes('app/db.py')) return [];
        const spot = { path: 'app/db.py', runs: 3, failures: 3, guards: ['refiner'], categories: ['refine-reverted'] };
        return [{ ...spot, lastRuns: [], lastFailedAt: at }];
      },
    };
    const model = new ScriptedModel([{ files: [{ path: 'app/db.py', content: DB_PY }] }]);
    const { result } = await gateAndRefine(repo, { model, services: { history, run: { repo: 'acme/app' } } });
    expect(model.conversations).toHaveLength(0);
    expect(result.excluded).toEqual([{ path: 'app/db.py', reason: expect.stringContaining('failed in 3 separate runs') }]);
    expect(result.notes.join('\n')).toContain('the model was not asked');
    expect(asked.some((p) => p.includes('app/db.py'))).toBe(true);
    expect(result.candidateSha).toBeNull();
  }, 120_000);
});

describe('refine: only files the PR changed', () => {
  /**
   * A finding's path can come from the PR's own test output (a JUnit file attribute, a pytest node id):
   * here a `flaky-test` finding points at `app/secrets.py`, which the PR never touched.
   */
  function withStrayFinding(report: Report): Report {
    const stray = makeFinding({
      guard: 'G8',
      category: 'flaky-test',
      severity: 'fail',
      path: 'app/secrets.py',
      line: 1,
      message: 'Test `test_token` failed on the first run and passed on re-run 1.',
      remediation: 'make it repeatable',
    });
    return { ...report, findings: [...report.findings, stray] };
  }

  const BASE = { 'app/db.py': DB_PY, 'app/secrets.py': 'TOKEN = "keep-me"\n' };

  it('the model is never shown nor allowed a path outside the PR, whatever the finding says', async () => {
    const repo = prRepo(BASE, { 'app/db.py': BROKEN });
    const model = new ScriptedModel([
      { files: [{ path: 'app/secrets.py', content: 'TOKEN = "leaked"\n' }] },
      { files: [{ path: 'app/db.py', content: DB_PY }] },
    ]);
    const { result } = await refineReport(repo, withStrayFinding, { model });
    expect(result.excluded).toContainEqual({ path: 'app/secrets.py', reason: expect.stringContaining('not a file this PR changed') });
    expect(userTurn(model, 0)).toContain('FILES YOU MAY CHANGE: app/db.py');
    expect(userTurn(model, 0)).not.toContain('keep-me');
    expect(result.attempts[0]).toMatchObject({
      outcome: 'refused',
      reason: expect.stringContaining("'app/secrets.py' is outside the fence"),
    });
    expect(result.files.map((f) => f.path)).toEqual(['app/db.py']);
  }, 120_000);

  it('a recipe that fixes the stray finding by writing its path is refused, and nothing outside the PR is committed', async () => {
    const repo = prRepo(BASE, { 'app/db.py': DB_PY.replace('return conn\n', 'return conn  \n') });
    const rewrite: Recipe = {
      id: 'test-rewrite-flaky',
      handles: (f) => f.category === 'flaky-test',
      fix: async (f) => ({
        recipe: 'test-rewrite-flaky',
        findingIds: [f.id],
        files: [{ path: f.path!, content: 'TOKEN = "x"\n' }],
        summary: 'x',
      }),
    };
    const { result } = await refineReport(repo, withStrayFinding, { recipes: [rewrite] });
    expect(result.attempts[0]).toMatchObject({ source: 'test-rewrite-flaky', outcome: 'refused' });
    expect(result.attempts[0]!.reason).toContain("'app/secrets.py' is not a file this PR changed");
    expect(result.candidateSha).toBeNull();
    expect(result.files).toEqual([]);
  }, 120_000);
});
