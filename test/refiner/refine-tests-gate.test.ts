import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBaselineCache } from '../../src/testgate/baseline-cache.js';
import { prRepo, removeTestRepos } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';
import { DB_PY, gateAndRefine } from './fixtures.js';
import { ScriptedModel, userTurn } from './scripted-model.js';

const TESTS = `from app.db import connect, add_user


def test_row_factory():
    conn = connect()
    row = add_user(conn, "ada")
    assert row["name"] == "ada"


def test_schema_accepts_names():
    conn = connect()
    add_user(conn, "grace")
    assert conn.execute("SELECT count(*) FROM users").fetchone()[0] == 1
`;

const BASE = {
  'pyproject.toml': '[project]\nname = "app"\nversion = "0.1.0"\n',
  'app/__init__.py': '',
  'app/db.py': DB_PY,
  'tests/test_db.py': TESTS,
  'tests/__init__.py': '',
};

let cacheDir = '';
const isolation = process.env.SLOPGATE_TESTS_ISOLATION;
beforeAll(() => {
  cacheDir = mkdtempSync(join(tmpdir(), 'slopgate-refine-g8-'));
  // Where bubblewrap cannot make a sandbox (containers), the operator switch lets the tests run anyway.
  process.env.SLOPGATE_TESTS_ISOLATION = 'best-effort';
});
afterAll(() => {
  rmSync(cacheDir, { recursive: true, force: true });
  if (isolation === undefined) delete process.env.SLOPGATE_TESTS_ISOLATION;
  else process.env.SLOPGATE_TESTS_ISOLATION = isolation;
  removeTestRepos();
});

needs('pytest')('refine: G8 judges candidates against the cached baseline', () => {
  it('a stray `>` inside an SQL string passes every static guard, only the tests catch it; reverted, and the retry is kept', async () => {
    // The PR dropped `conn.row_factory = sqlite3.Row`: a test regression whose cause is in app/db.py.
    const repo = prRepo(BASE, { 'app/db.py': DB_PY.replace('    conn.row_factory = sqlite3.Row\n', '') });
    const stray = DB_PY.replace('name TEXT NOT NULL)', 'name TEXT NOT NULL>)');
    const model = new ScriptedModel([
      { files: [{ path: 'app/db.py', content: stray }] },
      { files: [{ path: 'app/db.py', content: DB_PY }] },
    ]);
    const cache = new MemoryBaselineCache();
    const { report, result } = await gateAndRefine(repo, {
      model,
      config: { tests: { enabled: true, reruns: 0, timeoutSec: 120, isolation: 'best-effort' } },
      services: { baselineCache: cache, tests: { cacheDir, repo: 'fixture' } },
    });
    const regression = report.findings.find((f) => f.category === 'test-regression');
    expect(regression?.path).toBe('tests/test_db.py');
    // The test is the witness; the fence is the file the PR changed.
    expect(userTurn(model, 0)).toContain('FILES YOU MAY CHANGE: app/db.py');
    expect(userTurn(model, 0)).not.toContain('=== tests/test_db.py ===');
    expect(result.attempts.map((a) => a.outcome)).toEqual(['reverted', 'kept']);
    const first = result.attempts[0]!;
    expect(first.reason).toMatch(/^G8 failed/);
    for (const g of ['G1', 'G2', 'G4', 'G7']) expect(first.verdicts.find((v) => v.guard === g)?.status).not.toBe('fail');
    expect(first.verdicts.find((v) => v.guard === 'G8')?.status).toBe('fail');
    expect(userTurn(model, 1)).toContain('G8 failed');
    expect(result.fixed).toContain(regression!.id);
    expect(result.files).toEqual([{ path: 'app/db.py', content: DB_PY }]);
  }, 600_000);
});
