import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../../src/core/errors.js';
import { fetchEnv, fetchPrHistory } from '../../../src/platforms/actions/fetch-history.js';
import { TestRepo, removeTestRepos } from '../../helpers/git-repo.js';

const dirs: string[] = [];
afterAll(() => {
  removeTestRepos();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/**
 * A remote where main moved `ahead` commits past the PR's fork point, with refs/pull/7/head, and a
 * checkout of it at depth 1 (what actions/checkout leaves).
 */
function setup(ahead: number, prCommits: number) {
  const src = TestRepo.create();
  src.write({ 'a.txt': 'start\n' }).commit('start');
  const forkPoint = src.git('rev-parse', 'HEAD').trim();
  for (let i = 0; i < ahead; i++) src.write({ 'a.txt': `main ${i}\n` }).commit(`main ${i}`);
  src.git('checkout', '-q', '-b', 'feature', forkPoint);
  for (let i = 0; i < prCommits; i++) src.write({ 'b.txt': `pr ${i}\n` }).commit(`pr ${i}`);
  const head = src.git('rev-parse', 'HEAD').trim();
  src.git('update-ref', 'refs/pull/7/head', head);
  const base = src.git('rev-parse', 'main').trim();
  const ws = mkdtempSync(join(tmpdir(), 'slopgate-fetch-ws-'));
  dirs.push(ws);
  const url = `file://${src.dir}`;
  git(ws, 'init', '-q');
  git(ws, 'fetch', '-q', '--depth=1', url, 'refs/pull/7/head');
  git(ws, 'checkout', '-q', '--detach', 'FETCH_HEAD');
  return { ws, url, base, head, forkPoint };
}

describe('fetching the PR history into a depth-1 checkout', () => {
  it('one fetch is enough when the fork point is near', async () => {
    const s = setup(3, 2);
    expect(git(s.ws, 'rev-parse', '--is-shallow-repository')).toBe('true');
    const got = await fetchPrHistory({
      dir: s.ws,
      remoteUrl: s.url,
      creds: { username: 'x-access-token', token: 'unused' },
      number: 7,
      baseRef: 'main',
      baseSha: s.base,
      headSha: s.head,
    });
    expect(got).toEqual({ baseSha: s.base, headSha: s.head, mergeBase: s.forkPoint, fetches: 1 });
  });

  it('deepens until base and head meet when main moved far ahead', async () => {
    const s = setup(70, 1);
    const got = await fetchPrHistory({
      dir: s.ws,
      remoteUrl: s.url,
      creds: { username: 'x-access-token', token: 'unused' },
      number: 7,
      baseRef: 'main',
      baseSha: s.base,
      headSha: s.head,
    });
    expect(got.mergeBase).toBe(s.forkPoint);
    expect(got.fetches).toBeGreaterThan(1);
  }, 120_000);

  it('says what to do when the workspace is not a checkout (a workflow error, not an outage)', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'slopgate-fetch-empty-'));
    dirs.push(empty);
    const req = { dir: empty, remoteUrl: 'file:///nowhere', creds: { username: 'x-access-token', token: 't' }, number: 1, baseRef: 'main' };
    const err = await fetchPrHistory({ ...req, baseSha: 'a'.repeat(40), headSha: 'b'.repeat(40) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err).toMatchObject({ message: `${empty} is not a git checkout`, hint: expect.stringContaining('actions/checkout') });
  });
});

describe('the fetch environment', () => {
  it("resets the checkout's URL-specific header, then gives the token under the same key, only in the environment", () => {
    const env = fetchEnv({ creds: { username: 'x-access-token', token: 'ghs_abc' }, remoteUrl: 'https://github.example/acme/calc.git' });
    const entries = Array.from({ length: Number(env.GIT_CONFIG_COUNT) }, (_, i) => [
      env[`GIT_CONFIG_KEY_${i}`],
      env[`GIT_CONFIG_VALUE_${i}`],
    ]);
    const basic = Buffer.from('x-access-token:ghs_abc').toString('base64');
    expect(entries).toEqual([
      ['http.https://github.example/.extraheader', ''],
      ['credential.helper', ''],
      ['http.https://github.example/.extraheader', `Authorization: Basic ${basic}`],
    ]);
  });
});
