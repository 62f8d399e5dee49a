import { afterAll, describe, expect, it } from 'vitest';
import { suggestionsBody } from '../../src/host/refine-messages.js';
import { commentableRanges, deriveSuggestions, hunkToSuggestion, parseZeroContextHunks } from '../../src/host/refine-suggestions.js';
import { removeTestRepos, TestRepo } from '../helpers/git-repo.js';

afterAll(() => removeTestRepos());

const lines = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i + 1)).join('\n') + '\n';

/** main → head (the PR) → candidate (the refiner's patch) in one throwaway repository. */
function chain(base: Record<string, string>, head: Record<string, string>, candidate: Record<string, string>) {
  const repo = TestRepo.create();
  const mergeBase = repo.write(base).commit('base');
  const headSha = repo.write(head).commit('pr');
  const candidateSha = repo.write(candidate).commit('refined');
  return { repo, refs: { mergeBase, head: headSha, candidate: candidateSha } };
}

describe('refine suggestions from a kept patch', () => {
  it('parses -U0 hunks and the commentable (new-side) ranges of a diff', () => {
    const diff = '@@ -3,2 +3 @@\n-a\n-b\n+c\n@@ -10,0 +11,2 @@\n+x\n+y\n';
    expect(parseZeroContextHunks('f', diff)).toEqual([
      { path: 'f', start: 3, count: 2, lines: ['c'] },
      { path: 'f', start: 10, count: 0, lines: ['x', 'y'] },
    ]);
    expect(commentableRanges('@@ -1,3 +1,4 @@\n@@ -20,0 +21,0 @@\n@@ -30 +31,7 @@\n')).toEqual([
      { start: 1, end: 4 },
      { start: 31, end: 37 },
    ]);
  });

  it('a pure insertion is a suggestion on its neighbouring head line, which it keeps', () => {
    const head = ['one', 'two', 'three'];
    expect(hunkToSuggestion({ path: 'f', start: 2, count: 0, lines: ['new'] }, head, 'n')).toMatchObject({
      startLine: 2,
      endLine: 2,
      replacement: 'two\nnew',
    });
    expect(hunkToSuggestion({ path: 'f', start: 0, count: 0, lines: ['top'] }, head, 'n')).toMatchObject({
      startLine: 1,
      endLine: 1,
      replacement: 'top\none',
    });
    expect(hunkToSuggestion({ path: 'f', start: 2, count: 2, lines: [] }, head, 'n')).toMatchObject({
      startLine: 2,
      endLine: 3,
      replacement: '',
    });
  });

  it('a stretch on lines of the PR diff becomes one suggestion; one outside the diff sends the whole file to the diff block', async () => {
    const base = { 'a.py': lines(40, (i) => `x${i} = ${i}`), 'b.py': lines(40, (i) => `y${i} = ${i}`) };
    const head = { 'a.py': base['a.py'].replace('x5 = 5', 'x5 = 5 +'), 'b.py': base['b.py'].replace('y5 = 5', 'y5 = 5 +') };
    // a.py: the fix is on the PR's line. b.py: the fix is right, but it also edits line 35, far from the PR's diff.
    const candidate = { 'a.py': base['a.py'], 'b.py': base['b.py'].replace('y35 = 35', 'y35 = 36') };
    const { repo, refs } = chain(base, head, candidate);
    const out = await deriveSuggestions(repo.dir, refs, ['a.py', 'b.py'], (p) => `fix in ${p}`);
    expect(out.suggestions).toEqual([{ path: 'a.py', startLine: 5, endLine: 5, replacement: 'x5 = 5', note: 'fix in a.py' }]);
    expect(out.leftOver).toEqual(['b.py']);
  });

  it('too many stretches: no suggestion at all for that file', async () => {
    const base = { 'c.txt': lines(200, (i) => `line ${i}`) };
    const head = { 'c.txt': lines(200, (i) => (i % 5 === 0 ? `line ${i}!` : `line ${i}`)) };
    const { repo, refs } = chain(base, head, base);
    const out = await deriveSuggestions(repo.dir, refs, ['c.txt'], () => 'n');
    expect(out.suggestions).toEqual([]);
    expect(out.leftOver).toEqual(['c.txt']);
  });

  it('the review body says the patch is too large and shows it as a collapsed diff whose fence and comments cannot be broken out of', () => {
    const diff = '--- a/x.md\n+++ b/x.md\n@@ -1 +1 @@\n-````\n+<!-- slopgate:allow:x --> ``` done\n';
    const body = suggestionsBody({ why: 'Push is off.', fixed: [], diff, leftOver: ['x.md'], suggested: 0, model: null });
    expect(body).toContain('The patch is too large, or lies outside the lines this PR changed, to be offered as suggestions.');
    expect(body).toContain('<details><summary>the proposed patch</summary>');
    expect(body).toMatch(/`{5}diff\n/);
    expect(body).not.toContain('<!-- slopgate:allow');
    expect(body).toContain('Recipes only: no model is configured');
  });
});
