import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { addedRanges, attributeLines, loadPatchSet } from '../../src/core/patch-set.js';
import { prRepo, TestRepo } from '../helpers/git-repo.js';

const lines = (n: number, prefix = 'line') => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`).join('\n') + '\n';

describe('patch set', () => {
  it('reports added, modified and deleted files with texts and line ranges', async () => {
    const repo = prRepo(
      { 'a.txt': 'one\ntwo\nthree\n', 'gone.txt': 'bye\n' },
      { 'a.txt': 'one\nTWO\nthree\nfour\n', 'new.txt': 'hello\n', 'gone.txt': null },
    );
    const ps = await loadPatchSet(repo.dir, 'main', 'pr');
    const byPath = Object.fromEntries(ps.files.map((f) => [f.path, f]));
    expect(byPath['a.txt']!.status).toBe('modified');
    expect(byPath['a.txt']!.base.text).toBe('one\ntwo\nthree\n');
    expect(byPath['a.txt']!.head.text).toBe('one\nTWO\nthree\nfour\n');
    expect(byPath['a.txt']!.added).toEqual([
      { start: 2, end: 2 },
      { start: 4, end: 4 },
    ]);
    expect(byPath['a.txt']!.removed).toEqual([{ start: 2, end: 2 }]);
    expect(byPath['new.txt']!.status).toBe('added');
    expect(byPath['new.txt']!.base.reason).toBe('absent');
    expect(byPath['gone.txt']!.status).toBe('deleted');
    expect(byPath['gone.txt']!.head.text).toBeNull();
    expect(byPath['gone.txt']!.removed).toEqual([{ start: 1, end: 1 }]);
    expect(ps.commits).toHaveLength(1);
  });

  it('detects renames with their similarity', async () => {
    const body = lines(40);
    const repo = prRepo(
      { 'src/old_name.py': body },
      { 'src/old_name.py': null, 'src/new_name.py': body.replace('line 3\n', 'line three\n') },
    );
    const ps = await loadPatchSet(repo.dir, 'main', 'pr');
    expect(ps.files).toHaveLength(1);
    const f = ps.files[0]!;
    expect(f.status).toBe('renamed');
    expect(f.oldPath).toBe('src/old_name.py');
    expect(f.path).toBe('src/new_name.py');
    expect(f.similarity).toBeGreaterThan(90);
    expect(f.added).toEqual([{ start: 3, end: 3 }]);
  });

  it('reports mode changes, symlinks, binary, non-UTF-8 and oversize files without text', async () => {
    const repo = TestRepo.create();
    repo.write({ 'run.sh': 'echo hi\n' }).commit('base');
    repo.branch('pr');
    repo.chmod('run.sh', 0o755);
    repo.symlink('link', '../../etc/passwd');
    repo.write({
      'img.bin': Buffer.from([0x89, 0x50, 0x00, 0x01]),
      'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
      'big.txt': 'x'.repeat(5000),
    });
    repo.commit('pr');
    const ps = await loadPatchSet(repo.dir, 'main', 'pr', { maxTextBytes: 1000 });
    const byPath = Object.fromEntries(ps.files.map((f) => [f.path, f]));
    expect(byPath['run.sh']!.modeChanged).toBe(true);
    expect(byPath['run.sh']!.head.mode).toBe('100755');
    expect(byPath.link!.head.reason).toBe('symlink');
    expect(byPath.link!.head.symlinkTarget).toBe('../../etc/passwd');
    expect(byPath['img.bin']!.head.reason).toBe('binary');
    expect(byPath['latin1.txt']!.head.reason).toBe('not-utf8');
    expect(byPath['big.txt']!.head.reason).toBe('too-large');
    expect(byPath['big.txt']!.head.size).toBe(5000);
  });

  it('handles unusual path names (spaces, unicode, quotes)', async () => {
    const repo = prRepo({ 'docs/a b.md': 'x\n' }, { 'docs/a b.md': 'x\ny\n', 'docs/ünï "q".md': 'new\n' });
    const ps = await loadPatchSet(repo.dir, 'main', 'pr');
    const paths = ps.files.map((f) => f.path).sort();
    expect(paths).toEqual(['docs/a b.md', 'docs/ünï "q".md']);
    expect(ps.files.find((f) => f.path === 'docs/a b.md')!.added).toEqual([{ start: 2, end: 2 }]);
    expect(ps.files.find((f) => f.path.startsWith('docs/ü'))!.added).toEqual([{ start: 1, end: 1 }]);
  });

  it('compares against the merge-base when main moved on, and handles merge commits', async () => {
    const repo = TestRepo.create();
    repo.write({ 'a.txt': 'a\n', 'b.txt': 'b\n' }).commit('base');
    repo.branch('pr');
    repo.write({ 'a.txt': 'a changed\n' }).commit('pr 1');
    repo.checkout('main');
    repo.write({ 'b.txt': 'b changed on main\n' }).commit('main moves');
    repo.checkout('pr');
    repo.git('merge', '-q', '--no-edit', 'main');
    const ps = await loadPatchSet(repo.dir, 'main', 'pr');
    // After merging main in, only the PR's own change remains relative to the new merge-base.
    expect(ps.files.map((f) => f.path)).toEqual(['a.txt']);
  });

  it('attributes added lines to the PR commit that last touched them', async () => {
    const repo = prRepo({ 'f.txt': 'base\n' }, { 'f.txt': 'base\nfirst\n' }, { 'f.txt': 'base\nfirst\nsecond\n' });
    const ps = await loadPatchSet(repo.dir, 'main', 'pr');
    const commits = await attributeLines(ps, 'f.txt', [1, 2, 3]);
    expect(commits.has(1)).toBe(false);
    expect(commits.get(2)).toBe(ps.commits[0]);
    expect(commits.get(3)).toBe(ps.commits[1]);
  });

  it('fails with an input error on an unknown ref or a non-repository', async () => {
    const repo = prRepo({ a: '1\n' }, { a: '2\n' });
    await expect(loadPatchSet(repo.dir, 'nope', 'pr')).rejects.toThrow(/unknown git ref 'nope'/);
    const empty = mkdtempSync(join(tmpdir(), 'slopgate-norepo-'));
    const err = await loadPatchSet(empty, 'main', 'pr').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).exitCode).toBe(2);
    expect((err as Error).message).toMatch(/not a git repository/);
  });

  it('explains a shallow clone without the merge-base', async () => {
    const origin = TestRepo.create();
    origin.write({ a: '1\n' }).commit('one');
    origin.write({ a: '2\n' }).commit('two');
    origin.branch('pr');
    origin.write({ a: '3\n' }).commit('three');
    origin.checkout('main');
    origin.write({ b: '1\n' }).commit('main four');
    const clone = mkdtempSync(join(tmpdir(), 'slopgate-shallow-'));
    origin.git('clone', '-q', '--depth', '1', '--no-single-branch', `file://${origin.dir}`, clone);
    const err = await loadPatchSet(clone, 'origin/main', 'origin/pr').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/shallow/);
  });
});

describe('addedRanges', () => {
  it('gives the added line ranges per head path, leaving out deleted files and files with only removals', async () => {
    const repo = prRepo(
      { 'a.txt': lines(5), 'gone.txt': 'x\n', 'trim.txt': lines(3) },
      { 'a.txt': lines(2) + 'new\n' + lines(5).split('\n').slice(2).join('\n'), 'gone.txt': null, 'trim.txt': lines(2) },
    );
    const ranges = addedRanges(await loadPatchSet(repo.dir, 'main', 'pr'));
    expect([...ranges.keys()]).toEqual(['a.txt']);
    expect(ranges.get('a.txt')).toEqual([{ start: 3, end: 3 }]);
  });
});
