import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TestRepo } from '../helpers/git-repo.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

interface Row {
  repo: string;
  pr: number;
  head?: string;
  decision: string;
  testsOff?: boolean;
  findings: { guard: string; category: string; path?: string }[];
  guardsNotRun?: { id: string; status: string; reason?: string }[];
}

/** Runs the tests-on bench runner from source, with the CLI from source, on a throwaway mirror root. */
function runBench(args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join('src', 'bench', 'real-prs-tests.ts'), '--cli', join(process.cwd(), 'src', 'cli.ts'), ...args],
    { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
  );
  return { status: r.status, stderr: r.stderr };
}

describe('bench:real:tests on a corpus with two revisions of one PR (the agent-rejected shape)', () => {
  it('gates each revision once, with --no-tests where the truth says so, and keeps every finding and the guards that did not run', () => {
    const repo = TestRepo.create();
    dirs.push(repo.dir);
    repo.write({ 'README.md': '# demo\n' }).commit('initial');
    const base = repo.git('rev-parse', 'HEAD').trim();
    repo.branch('feature');
    const broken = repo.write({ 'app.py': 'def f(:\n    return 1\n' }).commit('add app');
    const fixed = repo.write({ 'app.py': 'def f():\n    return 1\n' }).commit('fix app');

    const root = mkdtempSync(join(tmpdir(), 'slopgate-bench-mirrors-'));
    dirs.push(root);
    symlinkSync(repo.dir, join(root, 'o+n'));
    const entry = (head: string, tests: string) => ({
      repo: 'o/n',
      pr: 7,
      base,
      head,
      language: 'python',
      title: 'add app',
      truth: { decision: 'blocked', tests, defect: 'app.py does not parse' },
    });
    const corpus = join(root, 'corpus.json');
    writeFileSync(corpus, JSON.stringify([entry(broken, 'off'), entry(fixed, 'services')]));
    const out = join(root, 'out.json');
    const common = ['--corpus', corpus, '--mirrors', root, '--out', out, '--cache', join(root, 'cache'), '--runs-only'];

    const first = runBench(common);
    expect(first.stderr).toContain(`o/n#7@${broken.slice(0, 7)}`);
    expect(first.status).toBe(0);
    const rows = (JSON.parse(readFileSync(out, 'utf8')) as { rows: Row[] }).rows;
    expect(rows.map((r) => r.head)).toEqual([broken, fixed]);
    const [bad, good] = rows as [Row, Row];
    expect(bad.testsOff).toBe(true);
    expect(good.testsOff).toBe(true); // --runs-only: a suite that needs a service is not started
    expect(bad.findings.some((f) => f.guard === 'G2' && f.path === 'app.py')).toBe(true);
    expect(good.findings.some((f) => f.guard === 'G2')).toBe(false);
    expect(bad.guardsNotRun?.find((g) => g.id === 'G8')?.reason).toMatch(/--no-tests/);
    expect(bad.guardsNotRun?.some((g) => (g.reason ?? '').includes('no changed files in scope'))).toBe(false);

    // Selecting one revision regates that row only: still one row per head.
    const second = runBench([...common, '--pr', `o/n@${broken.slice(0, 12)}`]);
    expect(second.status).toBe(0);
    expect(second.stderr).not.toContain(fixed.slice(0, 7));
    const again = (JSON.parse(readFileSync(out, 'utf8')) as { rows: Row[] }).rows;
    expect(again.map((r) => r.head)).toEqual([broken, fixed]);
  }, 120_000);
});
