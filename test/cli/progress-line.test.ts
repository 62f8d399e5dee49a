import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/cli/check.js';
import { progressLine } from '../../src/cli/progress-line.js';
import { runRefine } from '../../src/cli/refine.js';
import { prRepo } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';
import { DB_PY } from '../refiner/fixtures.js';
import { ScriptedModel } from '../refiner/scripted-model.js';

const CLEAR = '\r\u001b[K';

function terminal(isTTY: boolean, columns = 80) {
  const writes: string[] = [];
  return { isTTY, columns, writes, write: (s: string) => writes.push(s) };
}

describe('the progress line', () => {
  it('draws in place on a terminal, cut to its width, and clears itself when done', () => {
    const tty = terminal(true, 40);
    const line = progressLine(tty, true);
    line.update('installing dependencies');
    line.update('running the suite at the base and at the head, which takes a while');
    line.done();
    // 39 columns: one fewer than the terminal, so the line never wraps.
    expect(tty.writes).toEqual([`${CLEAR}slopgate: installing dependencies`, `${CLEAR}slopgate: running the suite at the bas…`, CLEAR]);
  });

  it('draws a path with control characters inert (a file name comes from the pull request)', () => {
    const tty = terminal(true, 200);
    progressLine(tty, true).update('gating candidate 1 (a\u001b[2Jb\u0007.py)');
    expect(tty.writes).toEqual([`${CLEAR}slopgate: gating candidate 1 (ab.py)`]);
  });

  it('draws nothing on a pipe or when not wanted', () => {
    for (const [stream, wanted] of [
      [terminal(false), true],
      [terminal(true), false],
    ] as const) {
      const line = progressLine(stream, wanted);
      line.update('x');
      line.done();
      expect(stream.writes).toEqual([]);
    }
  });

  it('check shows it on a terminal for text, and stays quiet for --format json and on a pipe', async () => {
    const repo = prRepo({ 'a.txt': 'a\n' }, { 'a.txt': 'b\n' });
    const run = async (format: 'text' | 'json', isTTY: boolean) => {
      const stderr = terminal(isTTY);
      await runCheck({ repo: repo.dir, base: 'main', head: 'pr', format, strict: false, noTests: true }, () => undefined, {}, { stderr });
      return stderr.writes;
    };
    const shown = await run('text', true);
    expect(shown[0]).toBe(`${CLEAR}slopgate: gating main..pr: running the guards`);
    expect(shown.at(-1)).toBe(CLEAR);
    expect(await run('json', true)).toEqual([]);
    expect(await run('text', false)).toEqual([]);
  });
});

describe('the progress line of refine', () => {
  it('shows the gate, then each model call and each candidate it gates, on a terminal; quiet for --format json and on a pipe', async () => {
    const repo = prRepo({ 'app/db.py': DB_PY }, { 'app/db.py': DB_PY.replace('def add_user(conn, name):', 'def add_user(conn, name)') });
    const run = async (format: 'text' | 'json', isTTY: boolean) => {
      const stderr = terminal(isTTY, 200);
      const model = new ScriptedModel([{ files: [{ path: 'app/db.py', content: DB_PY }] }]);
      const args = { repo: repo.dir, base: 'main', head: 'pr', apply: false, format, noTests: true };
      expect(await runRefine(args, () => undefined, { model, recipes: [] }, { stderr })).toBe(0);
      return stderr.writes;
    };
    const shown = await run('text', true);
    const lines = shown.map((w) => w.replace(CLEAR, ''));
    expect(lines[0]).toBe('slopgate: gating main..pr: running the guards');
    expect(lines).toContain('slopgate: refining: trying the known fixes');
    expect(lines).toContainEqual(
      expect.stringMatching(/^slopgate: refining: asking scripted-model for a patch of 1 file \(try 1 of \d+\)$/),
    );
    expect(lines).toContain('slopgate: refining: gating candidate 1 (app/db.py)');
    expect(shown.at(-1)).toBe(CLEAR);
    expect(await run('json', true)).toEqual([]);
    expect(await run('text', false)).toEqual([]);
  }, 120_000);
});

const PROJECT = {
  'pyproject.toml': '[project]\nname = "shop"\nversion = "0.1.0"\ndependencies = []\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
  'shop/__init__.py': 'def total(prices):\n    return sum(prices)\n',
  'tests/test_total.py': 'from shop import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n',
};

needs('pytest', 'bwrap')('the progress line of the test gate', () => {
  it('says when the dependencies are prepared and the suite runs at base and head', async () => {
    const repo = prRepo(PROJECT, { 'shop/__init__.py': 'def total(prices):\n    return sum(prices) + 0\n' });
    const stderr = terminal(true, 200);
    await runCheck(
      { repo: repo.dir, base: 'main', head: 'pr', format: 'text', strict: false, only: ['G8'] },
      () => undefined,
      {},
      { stderr },
    );
    const lines = stderr.writes.map((w) => w.replace(CLEAR, ''));
    expect(lines).toContain('slopgate: tests (pytest): preparing the dependencies (the same at the base and the head)');
    expect(lines).toContain('slopgate: tests (pytest): running the suite at the base and at the head');
    expect(stderr.writes.at(-1)).toBe(CLEAR);
  }, 240_000);
});
