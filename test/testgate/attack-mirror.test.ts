import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { allowedProtocols } from '../../src/workspace/git-auth.js';
import { preparePrRevisions } from '../../src/workspace/pr-workspace.js';
import { mirrorConfig, RepoMirrors } from '../../src/workspace/repo-mirror.js';
import { FakeRemote, removeFakeRemotes } from '../helpers/fake-remote.js';

/**
 * The App's mirror of a repository is slopgate's alone: whatever was written into its config or
 * hooks (by anything that ever reached it) is gone before the next fetch, which uses the URL slopgate
 * computes at that moment and only that URL's protocol.
 */
const roots: string[] = [];
afterAll(() => {
  removeFakeRemotes();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function setup(url: () => string) {
  const root = mkdtempSync(join(tmpdir(), 'slopgate-mirror-attack-'));
  roots.push(root);
  return { root, mirrors: new RepoMirrors({ root: join(root, 'mirrors'), remoteUrl: url }) };
}

describe('mirror attacks (App job path)', () => {
  it('remote.origin.url=ext::<command>, a fsmonitor command and a planted hook never run on the next fetch', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'a\n' });
    const head = remote.pushPr(1, { 'a.txt': 'b\n' });
    const { root, mirrors } = setup(() => remote.url);
    const req = {
      repo: { owner: 'o', repo: 'r' },
      number: 1,
      baseRef: 'main',
      headSha: head,
      withMerge: false,
      snapshots: false,
      scratchRoot: join(root, 'jobs'),
    };
    const first = await preparePrRevisions(mirrors, req);
    const pwned = join(root, 'pwned');
    const cfg = join(first.mirrorDir, 'config');
    writeFileSync(
      cfg,
      `${readFileSync(cfg, 'utf8').replace(/url = .*/, `url = ext::sh -c touch\\ ${pwned}-ext`)}[core]\n\tfsmonitor = touch ${pwned}-fsmonitor\n\thooksPath = hooks\n[protocol "ext"]\n\tallow = always\n`,
    );
    for (const hook of ['reference-transaction', 'post-checkout', 'pre-auto-gc']) {
      const p = join(first.mirrorDir, 'hooks', hook);
      execFileSync('mkdir', ['-p', join(first.mirrorDir, 'hooks')]);
      writeFileSync(p, `#!/bin/sh\ntouch ${pwned}-hook-${hook}\n`);
      chmodSync(p, 0o755);
    }
    const next = remote.pushPr(1, { 'a.txt': 'c\n' });
    const second = await preparePrRevisions(mirrors, { ...req, headSha: next, snapshots: true });
    expect(second.headSha).toBe(next);
    for (const suffix of ['-ext', '-fsmonitor', '-hook-reference-transaction', '-hook-post-checkout', '-hook-pre-auto-gc'])
      expect(existsSync(pwned + suffix), suffix).toBe(false);
    expect(readFileSync(cfg, 'utf8')).toBe(mirrorConfig(remote.url));
    await second.cleanup();
  });

  it('a mirror keeps working after the remote host changes (the URL is computed at each fetch, not read from config)', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'a\n' });
    const head = remote.pushPr(2, { 'a.txt': 'b\n' });
    let url = remote.url;
    const { root, mirrors } = setup(() => url);
    const req = {
      repo: { owner: 'o', repo: 'r' },
      number: 2,
      baseRef: 'main',
      withMerge: false,
      snapshots: false,
      scratchRoot: join(root, 'jobs'),
    };
    await preparePrRevisions(mirrors, { ...req, headSha: head });
    // The old host goes away (GHE_HOST or its port changed); the new one serves the same repository.
    const moved = `${remote.dir}.moved`;
    renameSync(remote.dir, moved);
    url = `file://${moved}`;
    const again = await preparePrRevisions(mirrors, { ...req, headSha: head });
    expect(again.headSha).toBe(head);
    renameSync(moved, remote.dir);
  });

  it('only https, http and file remotes are used, never ext:: or ssh', () => {
    expect(allowedProtocols('https://github.com/o/r.git')).toBe('https');
    expect(allowedProtocols('http://ghe.internal:8080/o/r.git')).toBe('http');
    expect(allowedProtocols('file:///srv/r.git')).toBe('file');
    expect(() => allowedProtocols('ext::sh -c id')).toThrow(/protocol/);
    expect(() => allowedProtocols('ssh://git@github.com/o/r.git')).toThrow(/protocol/);
    expect(() => mirrorConfig('https://x/"]\n[core]\n\thooksPath=/tmp')).toThrow(/newlines/);
  });
});
