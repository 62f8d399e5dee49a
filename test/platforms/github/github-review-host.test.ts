import nock from 'nock';
import { ProbotOctokit } from 'probot';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GitHubReviewHost } from '../../../src/platforms/github/github-review-host.js';

const API = 'https://api.github.com';
const R = '/repos/acme/widgets';

function host(): GitHubReviewHost {
  const Octokit = ProbotOctokit.defaults((o: Record<string, unknown>) => ({
    ...o,
    retry: { enabled: false },
    throttle: { enabled: false },
  }));
  return new GitHubReviewHost(new Octokit({ auth: 'ghs_test' }), { owner: 'acme', repo: 'widgets' }, 42);
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('GitHubReviewHost.pushCommit (Git Data API)', () => {
  it('blobs, a tree on the parent tree, a commit with one parent, and a ref update that is never forced', async () => {
    const bodies: Record<string, unknown>[] = [];
    const keep = (_uri: string, body: Record<string, unknown>) => void bodies.push(body);
    const scope = nock(API)
      .get(R)
      .reply(200, { default_branch: 'main' })
      .get(`${R}/git/commits/${'p'.repeat(40)}`)
      .reply(200, { sha: 'p'.repeat(40), tree: { sha: 'basetree' } })
      .post(`${R}/git/blobs`)
      .reply(201, (uri, body) => (keep(uri, body as Record<string, unknown>), { sha: 'blob1' }))
      .post(`${R}/git/blobs`)
      .reply(201, (uri, body) => (keep(uri, body as Record<string, unknown>), { sha: 'blob2' }))
      .post(`${R}/git/trees`)
      .reply(201, (uri, body) => (keep(uri, body as Record<string, unknown>), { sha: 'newtree' }))
      .post(`${R}/git/commits`)
      .reply(201, (uri, body) => (keep(uri, body as Record<string, unknown>), { sha: 'newcommit' }))
      .patch(`${R}/git/refs/heads%2Fslop-fix`)
      .reply(200, (uri, body) => (keep(uri, body as Record<string, unknown>), { ref: 'refs/heads/slop-fix' }));
    const sha = await host().pushCommit({
      branch: 'slop-fix',
      parentSha: 'p'.repeat(40),
      files: [
        { path: 'src/a.ts', content: 'export const a = 1;\n' },
        { path: 'docs/ü.md', content: 'ünïcode\n' },
      ],
      message: 'slopgate: remove the SLOP markers',
    });
    expect(sha).toBe('newcommit');
    expect(scope.isDone()).toBe(true);
    expect(Buffer.from(String(bodies[1]!.content), 'base64').toString('utf8')).toBe('ünïcode\n');
    expect(bodies[2]).toEqual({
      base_tree: 'basetree',
      tree: [
        { path: 'src/a.ts', mode: '100644', type: 'blob', sha: 'blob1' },
        { path: 'docs/ü.md', mode: '100644', type: 'blob', sha: 'blob2' },
      ],
    });
    expect(bodies[3]).toEqual({ message: 'slopgate: remove the SLOP markers', tree: 'newtree', parents: ['p'.repeat(40)] });
    expect(bodies[4]).toEqual({ sha: 'newcommit', force: false });
  });

  it('refuses the default branch before writing anything', async () => {
    const scope = nock(API).get(R).reply(200, { default_branch: 'trunk' });
    const push = host().pushCommit({ branch: 'trunk', parentSha: 'p', files: [{ path: 'a', content: 'b' }], message: 'm' });
    await expect(push).rejects.toThrow(/default branch/);
    expect(scope.isDone()).toBe(true);
  });
});

describe('GitHubReviewHost.postSuggestions', () => {
  it('one COMMENT review with suggestion blocks on the right lines, fenced longer than any backticks inside', async () => {
    let review: { event?: string; commit_id?: string; comments?: Record<string, unknown>[] } = {};
    const scope = nock(API)
      .post(`${R}/pulls/7/reviews`)
      .reply(200, (_uri, body) => {
        review = body as typeof review;
        return { id: 1 };
      });
    await host().postSuggestions(7, {
      commitSha: 'c'.repeat(40),
      body: 'Proposed fixes',
      suggestions: [
        { path: 'a.md', startLine: 3, endLine: 5, replacement: 'use ``` fences', note: 'Fix 1' },
        { path: 'b.ts', startLine: 9, endLine: 9, replacement: 'const b = 2;\n', note: 'Fix 2' },
      ],
    });
    expect(scope.isDone()).toBe(true);
    expect(review.event).toBe('COMMENT');
    expect(review.commit_id).toBe('c'.repeat(40));
    expect(review.comments).toEqual([
      { path: 'a.md', line: 5, side: 'RIGHT', start_line: 3, start_side: 'RIGHT', body: 'Fix 1\n\n````suggestion\nuse ``` fences\n````' },
      { path: 'b.ts', line: 9, side: 'RIGHT', body: 'Fix 2\n\n```suggestion\nconst b = 2;\n```' },
    ]);
  });
});

describe('GitHubReviewHost reads', () => {
  it('maps the pull request to plain facts, a fork included', async () => {
    nock(API)
      .get(`${R}/pulls/7`)
      .reply(200, {
        number: 7,
        state: 'open',
        draft: false,
        user: { login: 'dev' },
        title: 'T',
        body: null,
        html_url: 'https://github.com/acme/widgets/pull/7',
        mergeable: null,
        maintainer_can_modify: true,
        labels: [{ name: 'x' }],
        head: { sha: 'h', ref: 'feature', repo: { full_name: 'dev/widgets' } },
        base: {
          ref: 'main',
          sha: 'b',
          repo: { full_name: 'acme/widgets', default_branch: 'main', html_url: 'https://github.com/acme/widgets' },
        },
      });
    expect(await host().pullRequest(7)).toMatchObject({
      author: 'dev',
      isFork: true,
      headRepoFullName: 'dev/widgets',
      labels: ['x'],
      mergeable: null,
      maintainerCanModify: true,
    });
  });

  it('only comments made by this App count as its own', async () => {
    nock(API)
      .get(`${R}/issues/7/comments`)
      .query(true)
      .reply(200, [
        { id: 1, body: 'a', user: { type: 'Bot' }, performed_via_github_app: { id: 42 } },
        { id: 2, body: 'b', user: { type: 'Bot' }, performed_via_github_app: { id: 43 } },
        { id: 3, body: null, user: { type: 'User' }, performed_via_github_app: null },
      ]);
    expect(await host().listIssueComments(7)).toEqual([
      { id: 1, body: 'a', authorIsBot: true, byThisApp: true },
      { id: 2, body: 'b', authorIsBot: true, byThisApp: false },
      { id: 3, body: '', authorIsBot: false, byThisApp: false },
    ]);
  });
});

describe("GitHubReviewHost's threads capability (ThreadResolver)", () => {
  const stale = [
    { id: 11, handle: 'RC_11' },
    { id: 12, handle: 'RC_12' },
  ];
  /** The capability of an App installation (every capability); absent for a token granted fewer. */
  const threadsOf = (h: GitHubReviewHost) => {
    if (!h.threads) throw new Error('the App host has no threads capability');
    return h.threads;
  };

  it('is there for the App, and absent for a token not granted it (the Action)', () => {
    expect(host().threads).toBeDefined();
    const Octokit = ProbotOctokit.defaults((o: Record<string, unknown>) => ({ ...o, retry: { enabled: false } }));
    const limited = new GitHubReviewHost(new Octokit({ auth: 'ghs_test' }), { owner: 'acme', repo: 'widgets' }, 42, [
      'reviews',
      'minimise',
    ]);
    expect(limited.threads).toBeUndefined();
    expect(limited.minimise).toBeDefined();
  });
  const threads = {
    data: {
      repository: {
        pullRequest: {
          reviewThreads: {
            nodes: [
              { id: 'T_11', isResolved: false, comments: { nodes: [{ databaseId: 11 }] } },
              { id: 'T_12', isResolved: true, comments: { nodes: [{ databaseId: 12 }] } },
              { id: 'T_99', isResolved: false, comments: { nodes: [{ databaseId: 99 }] } },
            ],
          },
        },
      },
    },
  };

  it('resolves only the open threads the stale comments started', async () => {
    const sent: { query: string; variables: Record<string, unknown> }[] = [];
    const scope = nock(API)
      .post('/graphql')
      .reply(200, threads)
      .post('/graphql', (body: { query: string; variables: Record<string, unknown> }) => (sent.push(body), true))
      .reply(200, { data: { r0: { thread: { isResolved: true } } } });
    expect(await threadsOf(host()).resolveThreads(7, stale)).toBe(1);
    expect(scope.isDone()).toBe(true);
    expect(sent[0]!.query).toContain('resolveReviewThread');
    expect(sent[0]!.variables).toEqual({ t0: 'T_11' });
  });

  it('where GitHub refuses (no contents: write), the comments are minimised instead', async () => {
    const scope = nock(API)
      .post('/graphql')
      .reply(200, threads)
      .post('/graphql')
      .reply(200, { errors: [{ type: 'FORBIDDEN', message: 'Resource not accessible by integration' }] })
      .post('/graphql')
      .reply(200, {
        data: {
          nodes: [
            { id: 'RC_11', isMinimized: false },
            { id: 'RC_12', isMinimized: true },
          ],
        },
      })
      .post('/graphql', (body: { query: string }) => body.query.includes('minimizeComment'))
      .reply(200, { data: { m0: { minimizedComment: { isMinimized: true } } } });
    expect(await threadsOf(host()).resolveThreads(7, stale)).toBe(1);
    expect(scope.isDone()).toBe(true);
  });
});
