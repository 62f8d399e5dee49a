import { afterAll, describe, expect, it } from 'vitest';
import { makeFinding, type Finding, type FindingInput } from '../../src/core/finding.js';
import { compareFindings, earlierIds, headShiftsFromDiff, sincePushSection, type HeadShifts } from '../../src/core/since-push.js';
import { prRepo, removeTestRepos, type TestRepo } from '../helpers/git-repo.js';

afterAll(() => removeTestRepos());

const link = (path: string, line: number, target: string, over: Partial<FindingInput> = {}): Finding =>
  makeFinding({
    guard: 'G14',
    category: 'dead-link',
    severity: 'fail',
    path,
    line,
    message: `The link to \`${target}\` leads nowhere.`,
    remediation: `Create ${target} or fix the link.`,
    ...over,
  });

/** The diff of two commits of a throwaway repository, as the App reads it from its mirror. */
function shiftsBetween(repo: TestRepo, from: string, to: string): HeadShifts {
  return headShiftsFromDiff(repo.git('diff', '-U0', '-M', '--src-prefix=a/', '--dst-prefix=b/', from, to));
}

const lines = (n: number, prefix = 'line') => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`).join('\n') + '\n';

describe('compareFindings', () => {
  it('keeps a finding whose line moved down as still open, even though its id changed', () => {
    const repo = prRepo({ 'README.md': lines(10) });
    const before = repo.git('rev-parse', 'HEAD').trim();
    repo.write({ 'README.md': `new 1\nnew 2\nnew 3\n${lines(10)}` });
    const after = repo.commit('three lines on top');
    const prev = link('README.md', 6, 'docs/b.md');
    const cur = link('README.md', 9, 'docs/b.md');
    expect(cur.id).not.toBe(prev.id);
    const cmp = compareFindings([prev], [cur], shiftsBetween(repo, before, after));
    expect(cmp.matched.map((m) => [m.previous.id, m.current.id])).toEqual([[prev.id, cur.id]]);
    expect(cmp.gone).toEqual([]);
    expect(cmp.added).toEqual([]);
  });

  it('one fixed, one new, one moved: 1 gone, 1 added, 1 matched', () => {
    const repo = prRepo({ 'README.md': lines(3) });
    repo.write({ 'README.md': `${lines(3)}[a](docs/a.md)\n[b](docs/b.md)\n` });
    const first = repo.commit('two links');
    repo.write({ 'README.md': `intro\n\n${lines(3)}[b](docs/b.md)\n[c](docs/c.md)\n` });
    const second = repo.commit('fix a, add c, intro');
    const a = link('README.md', 4, 'docs/a.md');
    const b = link('README.md', 5, 'docs/b.md');
    const b2 = link('README.md', 6, 'docs/b.md');
    const c = link('README.md', 7, 'docs/c.md');
    const cmp = compareFindings([a, b], [b2, c], shiftsBetween(repo, first, second));
    expect(cmp.matched.map((m) => m.current.id)).toEqual([b2.id]);
    expect(cmp.gone.map((f) => f.id)).toEqual([a.id]);
    expect(cmp.added.map((f) => f.id)).toEqual([c.id]);
  });

  it('a line rewritten in place that still has the problem is the same finding; one rewritten elsewhere is not', () => {
    const repo = prRepo({ 'a.md': lines(20) });
    const before = repo.git('rev-parse', 'HEAD').trim();
    const next = lines(20).split('\n');
    next[4] = 'line 5, reworded but still linking to docs/x.md';
    repo.write({ 'a.md': next.join('\n') });
    const after = repo.commit('reword line 5');
    const prev = link('a.md', 5, 'docs/x.md', { message: 'old wording' });
    const same = link('a.md', 5, 'docs/x.md', { message: 'new wording', cause: undefined });
    // The same problem on an untouched line far away is a different finding.
    const far = link('a.md', 17, 'docs/x.md');
    const shifts = shiftsBetween(repo, before, after);
    expect(compareFindings([prev], [same], shifts).matched).toHaveLength(1);
    const cmp = compareFindings([prev], [far], shifts);
    expect(cmp.matched).toEqual([]);
    expect(cmp.gone).toHaveLength(1);
    expect(cmp.added).toHaveLength(1);
  });

  it('follows a renamed file', () => {
    const repo = prRepo({ 'docs/old.md': lines(8) });
    const before = repo.git('rev-parse', 'HEAD').trim();
    repo.git('mv', 'docs/old.md', 'docs/new.md');
    const after = repo.commit('rename');
    const shifts = shiftsBetween(repo, before, after);
    expect(shifts.get('docs/old.md')).toMatchObject({ newPath: 'docs/new.md' });
    const cmp = compareFindings([link('docs/old.md', 3, 'x.md')], [link('docs/new.md', 3, 'x.md')], shifts);
    expect(cmp.matched).toHaveLength(1);
  });

  it('a finding in a deleted file is gone', () => {
    const repo = prRepo({ 'a.md': lines(3), 'b.md': lines(3) });
    const before = repo.git('rev-parse', 'HEAD').trim();
    repo.write({ 'a.md': null });
    const after = repo.commit('drop a');
    const cmp = compareFindings([link('a.md', 2, 'x.md')], [], shiftsBetween(repo, before, after));
    expect(cmp.gone).toHaveLength(1);
  });

  it('without a diff (the previous head is gone) the nearest finding of the same kind in the same file is paired', () => {
    const prev = [link('README.md', 6, 'docs/b.md'), link('README.md', 40, 'docs/b.md')];
    const cur = [link('README.md', 9, 'docs/b.md'), link('README.md', 44, 'docs/b.md'), link('other.md', 6, 'docs/b.md')];
    const cmp = compareFindings(prev, cur, null);
    expect(cmp.matched.map((m) => [m.previous.line, m.current.line])).toEqual(
      expect.arrayContaining([
        [6, 9],
        [40, 44],
      ]),
    );
    expect(cmp.added.map((f) => f.path)).toEqual(['other.md']);
    expect(cmp.gone).toEqual([]);
  });
});

describe('sincePushSection', () => {
  const prevHead = 'a'.repeat(40);
  const mb = 'b'.repeat(40);

  it('counts new, fixed and still open, and remembers the ids a still-open finding had', () => {
    const a = link('README.md', 4, 'docs/a.md');
    const b = link('README.md', 5, 'docs/b.md');
    const b2 = link('README.md', 6, 'docs/b.md');
    const c = link('README.md', 7, 'docs/c.md');
    // Two lines on top, line 4 (a) removed, line 7 (c) added.
    const shifts: HeadShifts = new Map([
      [
        'README.md',
        {
          newPath: 'README.md',
          added: [
            { start: 1, end: 2 },
            { start: 7, end: 7 },
          ],
          removed: [{ start: 4, end: 4 }],
        },
      ],
    ]);
    const s = sincePushSection({
      previous: { headSha: prevHead, mergeBase: mb, findings: [a, b], section: { stillOpen: [{ id: b.id, was: ['0ld1d0000000'] }] } },
      current: { mergeBase: mb, findings: [b2, c], changedPaths: ['README.md'] },
      history: 'descendant',
      shifts,
    });
    expect(s.new).toEqual([c.id]);
    expect(s.fixed).toEqual([expect.objectContaining({ id: a.id, path: 'README.md', line: 4, gone: 'fixed', guard: 'G14' })]);
    expect(s.stillOpen).toEqual([{ id: b2.id, was: [b.id, '0ld1d0000000'] }]);
    expect(s).toMatchObject({ mergeBaseMoved: false, lineMapping: 'diff', history: 'descendant', dismissed: [] });
    // A comment posted under either earlier id belongs to the finding at its new place.
    expect(earlierIds(s)).toEqual(
      new Map([
        [b.id, b2.id],
        ['0ld1d0000000', b2.id],
      ]),
    );
  });

  it('after a rebase, a finding in a file the PR no longer changes went with the new base; dismissed findings count on neither side', () => {
    const gone = link('vendor/x.md', 2, 'y.md');
    const fixed = link('README.md', 2, 'y.md');
    const dismissedBefore = {
      ...link('README.md', 9, 'z.md'),
      dismissed: { by: 'm', at: '2026-01-01T00:00:00Z', reason: 'ok', source: 'command' as const },
    };
    const open = link('README.md', 11, 'w.md');
    const dismissedNow = { ...open, dismissed: { by: 'm', at: '2026-01-01T00:00:00Z', reason: 'ok', source: 'command' as const } };
    const s = sincePushSection({
      previous: { headSha: prevHead, mergeBase: mb, findings: [gone, fixed, dismissedBefore, open] },
      current: { mergeBase: 'c'.repeat(40), findings: [dismissedNow], changedPaths: ['README.md'] },
      history: 'rewritten',
      shifts: null,
    });
    expect(s.fixed.map((f) => [f.path, f.gone])).toEqual([
      ['vendor/x.md', 'base'],
      ['README.md', 'fixed'],
    ]);
    expect(s.dismissed).toEqual([open.id]);
    expect(s.stillOpen).toEqual([]);
    expect(s.new).toEqual([]);
    expect(s).toMatchObject({ mergeBaseMoved: true, lineMapping: 'nearest', history: 'rewritten' });
  });
});
