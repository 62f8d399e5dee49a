import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { authEnv, redactToken } from '../../src/workspace/git-auth.js';
import { preparePrRevisions } from '../../src/workspace/pr-workspace.js';
import { RepoMirrors } from '../../src/workspace/repo-mirror.js';
import { FakeRemote, removeFakeRemotes } from '../helpers/fake-remote.js';

const roots: string[] = [];
afterAll(() => {
  removeFakeRemotes();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function setup(remote: FakeRemote) {
  const root = mkdtempSync(join(tmpdir(), 'slopgate-ws-'));
  roots.push(root);
  return { root, mirrors: new RepoMirrors({ root: join(root, 'mirrors'), remoteUrl: () => remote.url }) };
}

const missing = (dir: string, rev: string) =>
  execFileSync('git', ['rev-list', '--objects', '--missing=print', rev], { cwd: dir, encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.startsWith('?'));

describe('workspace/pr-workspace', () => {
  it('clones blobless, then fetches exactly the blobs of base, head and the PR commits; snapshots carry no .git', async () => {
    const remote = FakeRemote.create({ 'README.md': '# r\n', 'big/unrelated.txt': 'u\n'.repeat(1000) });
    remote.pushPr(1, { 'src/a.py': 'x = 1\n' });
    const head = remote.pushPr(1, { 'src/a.py': 'x = 2\n' });
    const merge = remote.publishMerge(1);
    // A branch the PR has nothing to do with: its blob must never be downloaded.
    remote.work.branch('other');
    const other = remote.work.write({ 'other.txt': 'not needed\n' }).commit('other');
    remote.work.git('push', '-q', remote.dir, `${other}:refs/heads/other`);
    remote.work.checkout('main');
    const { root, mirrors } = setup(remote);

    const rev = await preparePrRevisions(mirrors, {
      repo: { owner: 'o', repo: 'r' },
      number: 1,
      baseRef: 'main',
      headSha: head,
      withMerge: true,
      snapshots: true,
      scratchRoot: join(root, 'jobs'),
    });

    expect(rev.headSha).toBe(head);
    expect(rev.mergeSha).toBe(merge);
    expect(rev.mergeBase).toBe(remote.baseSha);
    expect(missing(rev.mirrorDir, head)).toEqual([]); // head tree and the intermediate commit's blob
    expect(missing(rev.mirrorDir, 'refs/heads/other')).toHaveLength(1); // blobless: other.txt stayed on the remote
    expect(readFileSync(join(rev.dirs!.head, 'src/a.py'), 'utf8')).toBe('x = 2\n');
    expect(existsSync(join(rev.dirs!.base, 'src/a.py'))).toBe(false);
    expect(readFileSync(join(rev.dirs!.merge!, 'src/a.py'), 'utf8')).toBe('x = 2\n');
    expect(existsSync(join(rev.dirs!.head, '.git'))).toBe(false);
    await rev.cleanup();
    expect(existsSync(rev.dirs!.head)).toBe(false);
    expect(existsSync(join(rev.mirrorDir, 'HEAD'))).toBe(true);
  });

  it('without snapshots nothing is checked out, and a head the PR moved away from is an error', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'a\n' });
    const old = remote.pushPr(2, { 'a.txt': 'b\n' });
    execFileSync('git', ['reset', '-q', '--hard', remote.baseSha], { cwd: remote.work.dir });
    remote.work.git('branch', '-f', 'pr-2', remote.baseSha);
    const { root, mirrors } = setup(remote);
    const now = remote.pushPr(2, { 'a.txt': 'c\n' });
    expect(now).not.toBe(old);
    const req = {
      repo: { owner: 'o', repo: 'r' },
      number: 2,
      baseRef: 'main',
      withMerge: false,
      snapshots: false,
      scratchRoot: join(root, 'jobs'),
    };
    const rev = await preparePrRevisions(mirrors, { ...req, headSha: now });
    expect(rev.dirs).toBeUndefined();
    await expect(preparePrRevisions(mirrors, { ...req, headSha: 'f'.repeat(40) })).rejects.toThrow(/moved on/);
  });

  it("the token only travels in git's environment and is scrubbed from errors", () => {
    const env = authEnv({ token: 'ghs_secret' });
    expect(env.GIT_CONFIG_KEY_1).toBe('http.extraHeader');
    expect(env.GIT_CONFIG_VALUE_1).toBe(`Authorization: Basic ${Buffer.from('x-access-token:ghs_secret').toString('base64')}`);
    expect(env.GIT_CONFIG_KEY_0).toBe('credential.helper');
    expect(
      redactToken(`fatal: ghs_secret and ${Buffer.from('x-access-token:ghs_secret').toString('base64')}`, { token: 'ghs_secret' }),
    ).toBe('fatal: [token] and [token]');
  });

  it('refuses owner or repository names that would escape the mirror root', () => {
    const mirrors = new RepoMirrors({ root: '/tmp/x', remoteUrl: () => '' });
    expect(() => mirrors.dirOf({ owner: '..', repo: 'r' })).toThrow();
    expect(() => mirrors.dirOf({ owner: 'o', repo: 'a/b' })).toThrow();
  });
});
