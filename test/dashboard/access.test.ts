import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDashboard } from '../../src/cli/dashboard.js';
import { DashboardAuth } from '../../src/dashboard/auth.js';
import { dashboardHandler } from '../../src/dashboard/server.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { makeReport } from '../store/backends.js';

/**
 * Who sees what: GitHub sign-in against a local stand-in of GitHub's OAuth endpoints (a member of
 * `acme` sees acme's repositories and not another account's; a stranger is refused), the state check
 * of the OAuth callback, an outage listed as `action_required`, and `slopgate dashboard --db` over a
 * CLI store folder with the operator token.
 */
let store: Store;
let github: Server;
let dashboard: Server;
let githubUrl: string;
let url: string;

const listen = (s: Server) =>
  new Promise<string>((resolve) => s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)));

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

beforeAll(async () => {
  store = await openStore({});
  const acme = makeReport({ repo: 'acme/app', outcome: 'ESCALATE' });
  await store.saveRun(acme, { repo: 'acme/app', pr: 7, trigger: 'pull_request' });
  await store.saveRun(makeReport({ repo: 'other/lib', outcome: 'STUCK' }), { repo: 'other/lib', pr: 3, trigger: 'pull_request' });
  // acme/app#9: the job could not finish (an outage); its check run waits on a person.
  await store.recordJob({
    repo: 'acme/app',
    pr: 9,
    headSha: 'd'.repeat(40),
    trigger: 'pull_request',
    result: 'infrastructure-error',
    conclusion: 'action_required',
    reason: 'could not fetch the repository',
    checkRunId: 4242,
    startedAt: new Date(Date.now() - 60_000),
  });
  github = createServer((req, res) => {
    void (async () => {
      if (req.method === 'POST' && req.url === '/login/oauth/access_token') {
        const form = JSON.parse(await body(req)) as { client_id: string; client_secret: string; code: string };
        const ok = form.client_id === 'Iv1.client' && form.client_secret === 'shh';
        const token = ok ? { 'code-ada': 'tok-ada', 'code-bob': 'tok-bob' }[form.code] : undefined;
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(token ? { access_token: token } : { error: 'bad_verification_code' }));
        return;
      }
      if (req.method === 'GET' && req.url === '/api/v3/user') {
        const login = { 'Bearer tok-ada': 'ada', 'Bearer tok-bob': 'bob' }[req.headers.authorization ?? ''];
        res
          .writeHead(login ? 200 : 401, { 'content-type': 'application/json' })
          .end(JSON.stringify(login ? { login } : { message: 'Bad credentials' }));
        return;
      }
      res.writeHead(404).end();
    })();
  });
  githubUrl = await listen(github);
  const handler = dashboardHandler({
    db: () => Promise.resolve(store.db),
    auth: new DashboardAuth({ token: 'op-token' }),
    signIn: {
      clientId: 'Iv1.client',
      clientSecret: 'shh',
      webUrl: githubUrl,
      apiUrl: `${githubUrl}/api/v3`,
      accountsOf: (login) => Promise.resolve(login === 'ada' ? ['acme'] : []),
    },
    links: { web: 'https://github.example' },
  });
  dashboard = createServer((req, res) => {
    void handler(req, res).then((handled) => {
      if (!handled) res.writeHead(404).end();
    });
  });
  url = await listen(dashboard);
}, 300_000);

afterAll(async () => {
  github.close();
  dashboard.closeAllConnections();
  dashboard.close();
  await store.close();
});

const cookieOf = (res: Response) => (res.headers.get('set-cookie') ?? '').split(';')[0]!;

async function signInAs(code: string): Promise<Response> {
  const start = await fetch(`${url}/dashboard/auth/github`, { redirect: 'manual' });
  expect(start.status).toBe(302);
  const to = new URL(start.headers.get('location')!);
  expect(to.origin + to.pathname).toBe(`${githubUrl}/login/oauth/authorize`);
  expect(to.searchParams.get('client_id')).toBe('Iv1.client');
  const state = to.searchParams.get('state')!;
  return fetch(`${url}/dashboard/auth/callback?code=${code}&state=${state}`, { redirect: 'manual', headers: { cookie: cookieOf(start) } });
}

describe('dashboard access', () => {
  it('a member of acme signed in with GitHub sees acme, with its outage and escalation, and not the other account', async () => {
    const back = await signInAs('code-ada');
    expect(back.status).toBe(303);
    const page = await fetch(`${url}/dashboard`, { headers: { cookie: cookieOf(back) } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('signed in as <b>ada</b>');
    expect(html).toContain('data-pr="acme/app#7"');
    expect(html).toMatch(/<tr class="attention" data-kind="action_required" data-pr="acme\/app#9">\s*<td><span class="badge red"/);
    expect(html).toContain('href="https://github.example/acme/app/runs/4242"');
    expect(html).toContain('could not fetch the repository');
    expect(html).not.toContain('other/lib');
    // A run of the other account is not found for ada, though it exists.
    const other = (await store.listRuns('other/lib', 3))[0]!;
    expect((await fetch(`${url}/dashboard/runs/${other.id}`, { headers: { cookie: cookieOf(back) } })).status).toBe(404);
    expect((await fetch(`${url}/dashboard/runs/${other.id}`, { headers: { authorization: 'Bearer op-token' } })).status).toBe(200);
    // A member's session is no operator's: /metrics is not theirs (and the handler has none here).
  });

  it('a stranger is refused; a callback whose state does not match is refused; a forged cookie is ignored', async () => {
    const stranger = await signInAs('code-bob');
    expect(stranger.status).toBe(403);
    expect(await stranger.text()).toContain('bob is not a member');
    const forged = await fetch(`${url}/dashboard/auth/callback?code=code-ada&state=guess`, {
      redirect: 'manual',
      headers: { cookie: 'slopgate_oauth_state=other' },
    });
    expect(forged.status).toBe(400);
    const fake = Buffer.from(JSON.stringify({ who: 'mallory', accounts: '*', exp: Date.now() + 3600_000 })).toString('base64url');
    const denied = await fetch(`${url}/dashboard`, { headers: { cookie: `slopgate_dashboard=${fake}.AAAA` } });
    expect(denied.status).toBe(401);
    expect(await denied.text()).not.toContain('acme/app');
  });

  it('the dashboard is read-only: anything but GET and HEAD (and the sign-in form) is refused', async () => {
    const res = await fetch(`${url}/dashboard`, { method: 'DELETE', headers: { authorization: 'Bearer op-token' } });
    expect(res.status).toBe(405);
  });

  it('`slopgate dashboard --db DIR` serves a CLI store with the operator token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'slopgate-dashboard-db-'));
    try {
      const cli = await openStore({ dataDir: dir });
      await cli.saveRun(makeReport({ repo: 'my-project', outcome: 'ASK_AUTHOR' }), { trigger: 'cli' });
      await cli.close();
      let stop!: () => void;
      const until = new Promise<void>((resolve) => (stop = resolve));
      const out: string[] = [];
      let served!: (v: { url: string; token: string }) => void;
      const ready = new Promise<{ url: string; token: string }>((resolve) => (served = resolve));
      const done = runDashboard({ db: dir, port: 0, host: '127.0.0.1', until, listening: (u, token) => served({ url: u, token }) }, (s) =>
        out.push(s),
      );
      const { url: at, token } = await ready;
      expect(out.join('')).toContain(`sign in with the token ${token}`);
      expect((await fetch(at)).status).toBe(401);
      const page = await fetch(at, { headers: { authorization: `Bearer ${token}` } });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('data-repo="my-project"');
      expect(html).toContain('data-kind="ASK_AUTHOR"');
      stop();
      expect(await done).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
