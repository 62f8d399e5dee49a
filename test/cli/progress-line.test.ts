import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/cli/check.js';
import { progressLine } from '../../src/cli/progress-line.js';
import { prRepo } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';

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
