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

/** A clock that moves only when told: `tick(ms)` advances it and fires the timers due. */
function fakeClock() {
  let t = 0;
  const timers: { every: number; next: number; fn: () => void; live: boolean }[] = [];
  return {
    now: () => t,
    every(ms: number, fn: () => void) {
      const timer = { every: ms, next: t + ms, fn, live: true };
      timers.push(timer);
      return () => {
        timer.live = false;
      };
    },
    tick(ms: number) {
      const end = t + ms;
      for (;;) {
        const due = timers.filter((x) => x.live && x.next <= end).sort((a, b) => a.next - b.next)[0];
        if (!due) break;
        t = due.next;
        due.next += due.every;
        due.fn();
      }
      t = end;
    },
    live: () => timers.filter((x) => x.live).length,
  };
}

describe('the progress line', () => {
  it('draws in place on a terminal, cut to its width, and clears itself when done', () => {
    const tty = terminal(true, 40);
    const line = progressLine(tty, true, fakeClock());
    line.update('installing dependencies');
    line.update('running the suite at the base and at the head, which takes a while');
    line.done();
    // 39 columns: one fewer than the terminal, so the line never wraps.
    expect(tty.writes).toEqual([`${CLEAR}slopgate: installing dependencies`, `${CLEAR}slopgate: running the suite at the bas…`, CLEAR]);
  });

  it('with no terminal width (columns undefined or 0) the line is drawn whole, not cut to nothing', () => {
    for (const columns of [undefined, 0]) {
      const tty = { isTTY: true, columns, writes: [] as string[], write: (s: string) => tty.writes.push(s) };
      progressLine(tty, true, fakeClock()).update('gating 02a1b3c..9f8e7d6: running the guards');
      expect(tty.writes).toEqual([`${CLEAR}slopgate: gating 02a1b3c..9f8e7d6: running the guards`]);
    }
  });

  it('on a terminal, names each stage really running with its time, and what still runs when one ends', () => {
    const clock = fakeClock();
    const tty = terminal(true, 200);
    const line = progressLine(tty, true, clock);
    line.update('running the guards');
    const endInstall = line.begin('install');
    clock.tick(12_000);
    endInstall();
    const endBase = line.begin('base suite');
    const endHead = line.begin('head suite');
    clock.tick(30_000);
    endBase();
    const endEslint = line.begin('eslint, prettier at the head');
    clock.tick(60_000);
    const last = tty.writes.at(-1)!.replace(CLEAR, '');
    expect(last).toBe('slopgate: head suite 1m30s · eslint, prettier at the head 1m00s');
    expect(tty.writes.map((w) => w.replace(CLEAR, ''))).toContain('slopgate: install 12s');
    expect(tty.writes.map((w) => w.replace(CLEAR, ''))).toContain('slopgate: base suite 30s · head suite 30s');
    endEslint();
    endHead();
    line.done();
    expect(tty.writes.at(-1)).toBe(CLEAR);
    expect(clock.live()).toBe(0);
  });

  it('without a terminal (a CI log): one plain line per stage, and a heartbeat at least every 30 s while one runs', () => {
    const clock = fakeClock();
    const log = terminal(false);
    const line = progressLine(log, true, clock);
    line.update('gating main..pr: running the guards');
    const endHead = line.begin('head suite');
    clock.tick(90_000);
    endHead();
    line.done();
    clock.tick(60_000);
    expect(log.writes).toEqual([
      'slopgate: gating main..pr: running the guards\n',
      'slopgate: head suite\n',
      'slopgate: head suite running, 30s\n',
      'slopgate: head suite running, 1m00s\n',
      'slopgate: head suite running, 1m30s\n',
      'slopgate: head suite done, 1m30s\n',
    ]);
    expect(log.writes.every((w) => !w.includes('\r') && !w.includes('\u001b'))).toBe(true);
    expect(clock.live()).toBe(0);
  });

  it('draws a path with control characters inert (a file name comes from the pull request)', () => {
    const tty = terminal(true, 200);
    progressLine(tty, true, fakeClock()).update('gating candidate 1 (a\u001b[2Jb\u0007.py)');
    expect(tty.writes).toEqual([`${CLEAR}slopgate: gating candidate 1 (ab.py)`]);
  });

  it('draws nothing when not wanted (--quiet), terminal or not', () => {
    for (const stream of [terminal(false), terminal(true)]) {
      const clock = fakeClock();
      const line = progressLine(stream, false, clock);
      line.update('x');
      line.begin('head suite')();
      clock.tick(60_000);
      line.done();
      expect(stream.writes).toEqual([]);
    }
  });

  it('check: a live line on a terminal, plain lines on a pipe (any format: it is stderr), nothing with --quiet', async () => {
    const repo = prRepo({ 'a.txt': 'a\n' }, { 'a.txt': 'b\n' });
    const run = async (format: 'text' | 'json', isTTY: boolean, quiet = false) => {
      const stderr = terminal(isTTY);
      const args = { repo: repo.dir, base: 'main', head: 'pr', format, strict: false, noTests: true, quiet };
      await runCheck(args, () => undefined, {}, { stderr, clock: fakeClock() });
      return stderr.writes;
    };
    const shown = await run('text', true);
    expect(shown[0]).toBe(`${CLEAR}slopgate: gating main..pr: running the guards`);
    expect(shown.at(-1)).toBe(CLEAR);
    expect(await run('json', false)).toEqual(['slopgate: gating main..pr: running the guards\n']);
    expect(await run('text', true, true)).toEqual([]);
    expect(await run('json', false, true)).toEqual([]);
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
  it('says when the dependencies are prepared, then names the install and each side’s suite as they run', async () => {
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
    // While the suites run, the line names them (the stages really running), not the last text.
    expect(lines).toContainEqual(expect.stringMatching(/^slopgate: install( \d+s)?$/));
    expect(lines).toContainEqual(expect.stringMatching(/^slopgate: head suite( \d+s)? · base suite( \d+s)?$/));
    expect(stderr.writes.at(-1)).toBe(CLEAR);
  }, 240_000);
});
