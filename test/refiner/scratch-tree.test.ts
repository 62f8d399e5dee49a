import { afterAll, describe, expect, it } from 'vitest';
import { commitCandidate, readAt, readRegularAt, unifiedDiff } from '../../src/refiner/scratch-tree.js';
import { prRepo, removeTestRepos } from '../helpers/git-repo.js';

afterAll(() => removeTestRepos());

describe('scratch candidates made with git plumbing', () => {
  it('commits the head with files replaced or added, keeps modes, and leaves the checkout and index alone', async () => {
    const repo = prRepo({ 'a.py': 'A = 1\n', 'bin/run.sh': '#!/bin/sh\necho hi\n', 'keep.txt': 'k\n' }, { 'a.py': 'A = 2\n' });
    repo.chmod('bin/run.sh', 0o755);
    const head = repo.commit('exec bit');
    repo.write({ 'scratch.txt': 'untracked\n' });
    const sha = await commitCandidate(
      repo.dir,
      head,
      [
        { path: 'a.py', content: 'A = 3\n' },
        { path: 'bin/run.sh', content: '#!/bin/sh\necho bye\n' },
        { path: 'new/dir/b.py', content: 'B = 1\n' },
      ],
      'candidate',
    );
    expect(repo.git('rev-parse', `${sha}^`).trim()).toBe(head);
    expect(await readAt(repo.dir, sha, 'a.py')).toBe('A = 3\n');
    expect(await readAt(repo.dir, sha, 'new/dir/b.py')).toBe('B = 1\n');
    expect(await readAt(repo.dir, sha, 'keep.txt')).toBe('k\n');
    expect(repo.git('ls-tree', sha, '--', 'bin/run.sh')).toMatch(/^100755 /);
    expect(await unifiedDiff(repo.dir, head, sha, ['a.py'])).toContain('+A = 3');
    expect(repo.git('rev-parse', 'HEAD').trim()).toBe(head);
    expect(repo.git('status', '--porcelain')).toBe('?? scratch.txt\n');
  });

  it('refuses to overwrite a symlink, and does not read one as text', async () => {
    const repo = prRepo({ 'real.txt': 'r\n' }, {});
    repo.symlink('link.txt', 'real.txt');
    const head = repo.commit('link');
    await expect(commitCandidate(repo.dir, head, [{ path: 'link.txt', content: 'x\n' }], 'c')).rejects.toThrow(/not a regular file/);
    expect(await readRegularAt(repo.dir, head, 'link.txt')).toBeNull();
    expect(await readRegularAt(repo.dir, head, 'real.txt')).toBe('r\n');
  });
});
