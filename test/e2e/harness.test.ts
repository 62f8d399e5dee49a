import { execFile } from 'node:child_process';
import { sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Octokit } from '@octokit/rest';
import { createNodeMiddleware, Probot, ProbotOctokit } from 'probot';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { prRepo } from '../helpers/git-repo.js';
import { leakedSecrets } from './harness/app-process.js';
import { generateAppKey } from './harness/app-jwt.js';
import { GitHubStandIn } from './harness/github-standin.js';
import type { PullState, RepoState } from './harness/github-state.js';
import { openPull, publishRepo } from './harness/pull-fixtures.js';
import { pullRequestPayload, sendWebhook } from './harness/webhooks.js';

const APP_ID = 4242;
const INSTALLATION = 77;
const key = generateAppKey();
let gh: GitHubStandIn;
let gitRoot: string;
let repo: RepoState;
let pull: PullState;

function appJwt(privateKey = key.privateKey, iss: number = APP_ID): string {
  const now = Math.floor(Date.now() / 1000);
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const unsigned = `${enc({ alg: 'RS256', typ: 'JWT' })}.${enc({ iat: now - 30, exp: now + 540, iss })}`;
  return `${unsigned}.${sign('RSA-SHA256', Buffer.from(unsigned), privateKey).toString('base64url')}`;
}

async function installationToken(): Promise<string> {
  const res = await fetch(`${gh.url}/api/v3/app/installations/${INSTALLATION}/access_tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${appJwt()}`, accept: 'application/vnd.github+json' },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

function octokit(token: string): Octokit {
  const quiet = () => undefined;
  return new Octokit({ auth: token, baseUrl: `${gh.url}/api/v3`, log: { debug: quiet, info: quiet, warn: quiet, error: quiet } });
}

function runGit(cwd: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', ...env } }, (err, _out, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

function tokenEnv(token: string): Record<string, string> {
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
  return { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` };
}

beforeAll(async () => {
  gitRoot = mkdtempSync(join(tmpdir(), 'slopgate-e2e-git-'));
  gh = await GitHubStandIn.start({ appId: APP_ID, publicKey: key.publicKey, gitRoot });
  const src = prRepo(
    { 'app.py': 'def main():\n    return 1\n' },
    { 'app.py': 'def main():\n    return 2\n\n\ndef extra():\n    return 3\n' },
  );
  repo = publishRepo(gh, 'acme', 'widgets', src.dir);
  pull = openPull(gh, { repo, sourceDir: src.dir, headRef: 'pr' });
});

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed
  await gh?.close();
  rmSync(gitRoot, { recursive: true, force: true });
});

beforeEach(() => {
  gh.violations.length = 0;
  gh.requests.length = 0;
});

describe('GitHub REST stand-in', () => {
  it('mints installation tokens only for an RS256 JWT signed with the App key', async () => {
    expect((await installationToken()).startsWith('ghs_')).toBe(true);
    expect(gh.violations).toEqual([]);
    const forged = await fetch(`${gh.url}/api/v3/app/installations/${INSTALLATION}/access_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${appJwt(generateAppKey().privateKey)}` },
    });
    expect(forged.status).toBe(401);
    expect(gh.violations.join('\n')).toMatch(/signature does not verify/);
  });

  it('rejects a check run with conclusion "bogus" as a violation of the OpenAPI schema', async () => {
    const token = await installationToken();
    const res = await fetch(`${gh.url}/api/v3/repos/acme/widgets/check-runs`, {
      method: 'POST',
      headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'slopgate', head_sha: pull.headSha, status: 'completed', conclusion: 'bogus' }),
    });
    expect(res.status).toBe(422);
    expect(gh.violations).toHaveLength(1);
    expect(gh.violations[0]).toMatch(/checks\/create.*\/conclusion must be equal to one of the allowed values/);
    expect(gh.state.checkRuns).toHaveLength(0);
  });

  it('records calls to unknown endpoints and to endpoints it does not implement', async () => {
    const token = await installationToken();
    const headers = { authorization: `token ${token}` };
    expect((await fetch(`${gh.url}/api/v3/repos/acme/widgets/no-such-thing`, { headers })).status).toBe(404);
    expect((await fetch(`${gh.url}/api/v3/repos/acme/widgets/branches`, { headers })).status).toBe(404);
    expect((await fetch(`${gh.url}/favicon.ico`)).status).toBe(404);
    expect(gh.violations).toHaveLength(3);
    expect(gh.violations[0]).toMatch(/no such endpoint in GitHub's OpenAPI/);
    expect(gh.violations[1]).toMatch(/repos\/list-branches is not implemented/);
    expect(gh.violations[2]).toMatch(/outside the GitHub API/);
  });

  it('refuses repository calls without a valid installation token', async () => {
    const res = await fetch(`${gh.url}/api/v3/repos/acme/widgets`, { headers: { authorization: 'token ghs_made_up' } });
    expect(res.status).toBe(401);
    expect(gh.violations.join('\n')).toMatch(/no valid installation token/);
  });

  it('serves Octokit a full check-run, review and content round trip without violations', async () => {
    const api = octokit(await installationToken());
    const created = await api.rest.checks.create({
      owner: 'acme',
      repo: 'widgets',
      name: 'slopgate',
      head_sha: pull.headSha,
      status: 'in_progress',
    });
    const annotations = Array.from({ length: 50 }, (_, i) => ({
      path: 'app.py',
      start_line: 2,
      end_line: 2,
      annotation_level: 'warning' as const,
      message: `m${i}`,
    }));
    await api.rest.checks.update({
      owner: 'acme',
      repo: 'widgets',
      check_run_id: created.data.id,
      output: { title: 't', summary: 's', annotations },
      status: 'in_progress',
    });
    await api.rest.checks.update({
      owner: 'acme',
      repo: 'widgets',
      check_run_id: created.data.id,
      output: { title: 't', summary: 's', annotations: annotations.slice(0, 3) },
      conclusion: 'failure',
    });
    const run = gh.state.checkRuns.find((c) => c.id === created.data.id)!;
    expect([run.status, run.conclusion, run.annotations.length]).toEqual(['completed', 'failure', 53]);

    const pr = await api.rest.pulls.get({ owner: 'acme', repo: 'widgets', pull_number: pull.number });
    expect(pr.data.head.sha).toBe(pull.headSha);
    expect(pr.data.base.repo.default_branch).toBe('main');
    await api.rest.pulls.createReview({
      owner: 'acme',
      repo: 'widgets',
      pull_number: pull.number,
      commit_id: pull.headSha,
      event: 'COMMENT',
      body: 'b',
      comments: [{ path: 'app.py', line: 5, side: 'RIGHT', body: 'on an added line' }],
    });
    const listed = await api.rest.pulls.listReviewComments({ owner: 'acme', repo: 'widgets', pull_number: pull.number, per_page: 100 });
    expect(listed.data.map((c) => [c.path, c.line, c.user.type])).toEqual([['app.py', 5, 'Bot']]);

    const file = await api.rest.repos.getContent({ owner: 'acme', repo: 'widgets', path: 'app.py', ref: 'main' });
    expect(Buffer.from((file.data as { content: string }).content, 'base64').toString()).toBe('def main():\n    return 1\n');
    const missing = await api.rest.repos
      .getContent({ owner: 'acme', repo: 'widgets', path: '.github', ref: 'main' })
      .catch((e: { status: number }) => e.status);
    expect(missing).toBe(404);
    expect(gh.violations).toEqual([]);
  });

  it('answers 422 to a review comment on a line outside the diff, as GitHub does', async () => {
    const api = octokit(await installationToken());
    const err = await api.rest.pulls
      .createReview({
        owner: 'acme',
        repo: 'widgets',
        pull_number: pull.number,
        commit_id: pull.headSha,
        event: 'COMMENT',
        comments: [{ path: 'app.py', line: 40, side: 'RIGHT', body: 'x' }],
      })
      .catch((e: { status: number }) => e.status);
    expect(err).toBe(422);
    expect(gh.violations.join('\n')).toMatch(/line must be part of the diff \(app\.py:40\)/);
  });

  it('validates query parameters against the operation (unknown names and wrong types)', async () => {
    const token = await installationToken();
    const res = await fetch(`${gh.url}/api/v3/repos/acme/widgets/pulls/${pull.number}/comments?per_page=lots&colour=red`, {
      headers: { authorization: `token ${token}` },
    });
    expect(res.status).toBe(422);
    expect(gh.violations.join('\n')).toMatch(/per_page must be integer/);
    expect(gh.violations.join('\n')).toMatch(/additional properties 'colour'/);
  });
});

describe('git over HTTP', () => {
  it('clones blobless and fetches refs/pull/N/head and /merge with an installation token', async () => {
    const token = await installationToken();
    const dir = mkdtempSync(join(tmpdir(), 'slopgate-e2e-clone-'));
    try {
      const clone = await runGit(
        dir,
        ['clone', '--quiet', '--bare', '--filter=blob:none', `${gh.url}/acme/widgets.git`, 'm.git'],
        tokenEnv(token),
      );
      expect(clone).toEqual({ code: 0, stderr: '' });
      const fetched = await runGit(
        join(dir, 'm.git'),
        [
          'fetch',
          '--quiet',
          '--filter=blob:none',
          'origin',
          `+refs/pull/${pull.number}/head:refs/p/head`,
          `+refs/pull/${pull.number}/merge:refs/p/merge`,
        ],
        tokenEnv(token),
      );
      expect(fetched.code).toBe(0);
      const show = await new Promise<string>((resolve) =>
        execFile('git', ['rev-parse', 'refs/p/head'], { cwd: join(dir, 'm.git') }, (_e, out) => resolve(out.trim())),
      );
      expect(show).toBe(pull.headSha);
      const git = gh.requests.filter((r) => r.kind === 'git');
      expect(git.length).toBeGreaterThan(1);
      expect(git.every((r) => r.auth === 'installation' && r.status === 200)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a clone without a token, and one with an expired token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'slopgate-e2e-clone-'));
    try {
      const anonymous = await runGit(dir, ['clone', '--quiet', '--bare', `${gh.url}/acme/widgets.git`, 'a.git']);
      expect(anonymous.code).not.toBe(0);
      const token = await installationToken();
      gh.expireTokens();
      const expired = await runGit(dir, ['clone', '--quiet', '--bare', `${gh.url}/acme/widgets.git`, 'b.git'], tokenEnv(token));
      expect(expired.code).not.toBe(0);
      expect(gh.requests.filter((r) => r.kind === 'git').map((r) => r.status)).toEqual([401, 401]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('webhook sender', () => {
  let server: Server;
  const received: { name: string; id: string; sha: string }[] = [];
  const secret = 'e2e-webhook-secret';

  beforeAll(async () => {
    const probot = new Probot({
      appId: APP_ID,
      privateKey: key.privateKey,
      secret,
      baseUrl: `${gh.url}/api/v3`,
      Octokit: ProbotOctokit.defaults((o: object) => ({ ...o, retry: { enabled: false }, throttle: { enabled: false } })),
      logLevel: 'fatal',
    });
    const app = (p: Probot) => {
      p.on('pull_request.opened', async (ctx) => {
        received.push({ name: ctx.name, id: ctx.id, sha: ctx.payload.pull_request.head.sha });
        await ctx.octokit.rest.checks.create(
          ctx.repo({ name: 'tiny', head_sha: ctx.payload.pull_request.head.sha, status: 'in_progress' as const }),
        );
      });
    };
    const middleware = await createNodeMiddleware(app, { probot });
    server = createServer((req, res) => void middleware(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });

  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('signs deliveries that Probot accepts, and Probot authenticates against the stand-in', async () => {
    const { port } = server.address() as { port: number };
    const payload = pullRequestPayload(gh.state, pull, 'opened', { installationId: INSTALLATION });
    const d = await sendWebhook(`http://127.0.0.1:${port}/api/github/webhooks`, secret, 'pull_request', payload);
    expect(d.status).toBe(200);
    expect(received).toEqual([{ name: 'pull_request', id: d.id, sha: pull.headSha }]);
    expect(gh.calls('apps/create-installation-access-token')).toHaveLength(1);
    expect(gh.calls('checks/create')[0]?.installationId).toBe(INSTALLATION);
    expect(gh.violations).toEqual([]);
    const forged = await sendWebhook(`http://127.0.0.1:${port}/api/github/webhooks`, 'wrong-secret', 'pull_request', payload);
    expect(forged.status).toBeGreaterThanOrEqual(400);
    expect(received).toHaveLength(1);
  });
});

describe('leakedSecrets', () => {
  it('finds a token, its Basic-auth form, the webhook secret and a line of the private key', () => {
    const s = { tokens: ['ghs_abcdefghijklmnop'], webhookSecret: 'shh-secret', privateKey: key.privateKey };
    expect(leakedSecrets('all quiet', s)).toEqual([]);
    const keyLine = key.privateKey.split('\n')[3]!;
    const basic = Buffer.from('x-access-token:ghs_abcdefghijklmnop').toString('base64');
    expect(leakedSecrets(`header ${basic} ${keyLine} shh-secret`, s)).toEqual([
      'installation token ghs_abcd… (base64)',
      'webhook secret',
      'private key',
    ]);
  });
});
