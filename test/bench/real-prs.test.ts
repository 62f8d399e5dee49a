import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Guard } from '../../src/core/guard.js';
import { agentPrs } from '../../src/bench/agent-prs-corpus.js';
import { mergedPrs, mirrorDir } from '../../src/bench/real-prs-corpus.js';
import { renderResults, runCorpus, verdictOf } from '../../src/bench/real-prs.js';
import { TestRepo } from '../helpers/git-repo.js';

const roots: string[] = [];
afterAll(() => roots.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A repo whose main has: a direct commit, a squash-merged PR #1, a merge commit of PR #2, a squash PR #3. */
function historyRepo() {
  const repo = TestRepo.create();
  repo.write({ 'README.md': '# demo\n' }).commit('initial');
  const squash1 = repo.write({ 'a.txt': 'one\n' }).commit('Add a (#1)');
  repo.branch('feature');
  const tip2 = repo.write({ 'bad.txt': 'nope\n' }).commit('work on feature');
  repo.checkout('main');
  repo.write({ 'c.txt': 'main moved on\n' }).commit('direct commit on main');
  const mainBefore2 = repo.git('rev-parse', 'HEAD').trim();
  repo.git('merge', '-q', '--no-ff', '-m', 'Merge pull request #2 from someone/feature', 'feature');
  const squash3 = repo.write({ 'd.txt': 'three\n' }).commit('fix: d (#3)');
  return { repo, squash1, tip2, mainBefore2, squash3 };
}

/** Fails on any changed file named bad.txt, so the runner's verdicts are predictable. */
const badFileGuard: Guard = {
  id: 'G99',
  name: 'bad file',
  appliesTo: (f) => f.path === 'bad.txt',
  checkFile: (f) => [
    { category: 'dead-link', severity: 'fail', path: f.path, line: 1, message: 'bad file added', remediation: 'remove it' },
  ],
};

describe('real-PR corpus', () => {
  it('reads squash and merge-commit PRs newest first, with the bases GitHub would use', async () => {
    const { repo, squash1, tip2, mainBefore2, squash3 } = historyRepo();
    const prs = await mergedPrs(repo.dir, { repo: 'o/n', language: 'txt' }, { count: 10, maxFiles: 300 });
    expect(prs.skipped).toEqual([]);
    expect(prs.prs.map((p) => [p.pr, p.kind, p.head, p.files])).toEqual([
      [3, 'squash', squash3, 1],
      [2, 'merge', tip2, 1],
      [1, 'squash', squash1, 1],
    ]);
    expect(prs.prs[1]!.base).toBe(mainBefore2);
    expect(prs.prs[0]!.title).toBe('fix: d (#3)');
  });

  it('skips PRs with more changed files than the limit and says why', async () => {
    const { repo } = historyRepo();
    const prs = await mergedPrs(repo.dir, { repo: 'o/n', language: 'txt' }, { count: 2, maxFiles: 0 });
    expect(prs.prs).toEqual([]);
    expect(prs.skipped[0]?.reason).toMatch(/1 changed files \(more than 0\)/);
  });

  it('gates every corpus PR on a bare mirror, sorts verdicts and reports missing mirrors', async () => {
    const { repo } = historyRepo();
    const root = mkdtempSync(join(tmpdir(), 'slopgate-mirrors-'));
    roots.push(root);
    execFileSync('git', ['clone', '-q', '--bare', repo.dir, join(root, 'o+n', 'repo')]);
    const dir = mirrorDir(root, 'o/n');
    expect(dir).toBe(join(root, 'o+n', 'repo'));
    expect(mirrorDir(root, 'gone/away')).toBeNull();

    const corpus = (await mergedPrs(dir!, { repo: 'o/n', language: 'txt' }, { count: 10, maxFiles: 300 })).prs;
    const res = await runCorpus({ corpus: [...corpus, { ...corpus[0]!, repo: 'gone/away' }], mirrors: root, guards: [badFileGuard] });
    expect(res.missing).toEqual(['gone/away']);
    expect(res.results.map((r) => [r.pr, r.verdict])).toEqual([
      [3, 'pass'],
      [2, 'blocking'],
      [1, 'pass'],
    ]);
    expect(res.total).toMatchObject({ prs: 3, pass: 2, advise: 0, blocking: 1, error: 0 });
    const text = renderResults(res);
    expect(text).toContain('o/n#2 REFINE');
    expect(text).toContain('G99 dead-link bad.txt:1 — bad file added');
    expect(text).toContain('skipped (no mirror under the mirror root; fetch them first): gone/away');
  });

  it('turns a run that throws into an error result instead of stopping the bench', async () => {
    const { repo } = historyRepo();
    const root = mkdtempSync(join(tmpdir(), 'slopgate-mirrors-'));
    roots.push(root);
    execFileSync('git', ['clone', '-q', '--bare', repo.dir, join(root, 'o+n')]);
    const res = await runCorpus({
      corpus: [{ repo: 'o/n', pr: 9, base: 'main', head: 'no-such-ref', language: 'txt', kind: 'squash', title: 'x', files: 1 }],
      mirrors: root,
      guards: [badFileGuard],
    });
    expect(res.results[0]).toMatchObject({ verdict: 'error', outcome: 'ERROR' });
    expect(res.results[0]!.error).toMatch(/no-such-ref/);
  });

  it('counts PASS and SKIPPED as passing, ADVISE apart, everything else as blocking', () => {
    expect(verdictOf('PASS')).toBe('pass');
    expect(verdictOf('ADVISE')).toBe('advise');
    for (const o of ['REFINE', 'RESEARCH', 'ASK_AUTHOR', 'ESCALATE', 'STUCK'] as const) expect(verdictOf(o)).toBe('blocking');
  });
});

describe('agent-written PRs', () => {
  it('finds PR refs whose tip an agent wrote and squash merges co-authored by one, with their fate', async () => {
    const repo = TestRepo.create();
    repo.write({ 'README.md': '# demo\n' }).commit('initial');
    const forkPoint = repo.git('rev-parse', 'HEAD').trim();
    // An agent's PR that was never merged: only a refs/pull ref points at it.
    repo.branch('agent');
    repo.write({ 'spam.md': 'hello\n' });
    repo.git('add', '-A');
    repo.git('-c', 'user.name=Claude', '-c', 'user.email=noreply@anthropic.com', 'commit', '-q', '-m', 'docs: add spam');
    repo.git('update-ref', 'refs/pull/7/head', 'HEAD');
    repo.checkout('main');
    // A squash merge co-authored by the Copilot agent, later reverted; and one by a human only.
    const merged = repo
      .write({ 'a.txt': 'a\n' })
      .commit('fix: a (#8)\n\nCo-authored-by: copilot-swe-agent[bot] <198982749+Copilot@users.noreply.github.com>');
    repo.write({ 'a.txt': null }).commit(`Revert "fix: a (#8)"\n\nThis reverts commit ${merged}.`);
    repo.write({ 'b.txt': 'b\n' }).commit('fix: b (#9)');
    const prs = await agentPrs(repo.dir, 'o/n', 'txt', { maxFiles: 300 });
    expect(prs.map((p) => [p.pr, p.agent, p.fate])).toEqual([
      [8, 'copilot-swe-agent', 'reverted'],
      [7, 'claude', 'unmerged'],
    ]);
    expect(prs[1]!.base).toBe(forkPoint);
    expect(prs[0]!.head).toBe(merged);
  });
});
