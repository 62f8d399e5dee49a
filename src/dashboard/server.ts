import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage } from '../core/errors.js';
import type { Logger } from '../core/trace.js';
import type { QueueStats } from '../queue/types.js';
import type { Db } from '../store/db.js';
import { getRun } from '../store/runs.js';
import { asset } from './assets.js';
import { DashboardAuth, loginOf, type GitHubSignIn, type Viewer } from './auth.js';
import type { SlopgateMetrics } from './metrics.js';
import type { Links } from './layout.js';
import { overviewPage } from './overview-page.js';
import { loginPage, messagePage } from './pages.js';
import { runPage } from './run-page.js';
import {
  attention,
  checkRunOfRun,
  flakyTests,
  inScope,
  recentRuns,
  repoOverviews,
  ruleQuality,
  slowestSuites,
  type Window,
} from './queries.js';

export interface DashboardOptions {
  /** The store's database (opened when first needed). */
  db: () => Promise<Db>;
  auth: DashboardAuth;
  /** GitHub sign-in (the App's OAuth credentials); absent: the operator token only. */
  signIn?: GitHubSignIn;
  links: Links;
  /** The queue's state now (the App's runtime); absent for a CLI store. */
  queue?: () => Promise<QueueStats | null>;
  /** Serves `/metrics` behind the same access rule. */
  metrics?: SlopgateMetrics;
  /** The dashboard's own address for the OAuth callback (default: from the request's Host header). */
  publicUrl?: string;
  /** The known-flaky rule the flaky list marks (default: 2 PRs). */
  flakyRule?: { prs: number };
  log?: Logger;
}

export const DASHBOARD_PATH = '/dashboard';

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const RUN_PATH = /^\/runs\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  headers: Record<string, string | string[]> = {},
): true {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...SECURITY_HEADERS, ...headers });
  res.end(body);
  return true;
}

const htmlType = 'text/html; charset=utf-8';

function secureRequest(req: IncomingMessage): boolean {
  return req.headers['x-forwarded-proto'] === 'https' || ('encrypted' in req.socket && req.socket.encrypted === true);
}

async function readForm(req: IncomingMessage, limit = 4096): Promise<URLSearchParams> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += b.length;
    if (size > limit) throw new Error('form too large');
    chunks.push(b);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * The dashboard (read-only, server-side rendered from the store) and `/metrics`, as one request
 * handler: it answers its own paths (`/dashboard…`, `/metrics`) and returns false for every other one,
 * so it sits beside the webhooks on the App's port, or alone in `slopgate dashboard`.
 */
export function dashboardHandler(opts: DashboardOptions): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  const base = DASHBOARD_PATH;
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    if (path === '/metrics' && opts.metrics) return serveMetrics(req, res, opts.metrics);
    if (path !== base && !path.startsWith(`${base}/`)) return false;
    const sub = path.slice(base.length) || '/';
    try {
      if (req.method === 'POST' && sub === '/login') return await postLogin(req, res);
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'read-only', { allow: 'GET, HEAD' });
      if (sub.startsWith('/assets/')) {
        const file = await asset(sub.slice('/assets/'.length));
        return file
          ? send(res, 200, file.type, file.body, { 'cache-control': 'public, max-age=3600' })
          : send(res, 404, 'text/plain', 'not found');
      }
      if (sub === '/login') return send(res, 200, htmlType, loginPage({ github: Boolean(opts.signIn) }, base));
      if (sub === '/logout')
        return send(res, 303, 'text/plain', '', {
          location: `${base}/login`,
          'set-cookie': DashboardAuth.signOutCookie(secureRequest(req)),
        });
      if (sub === '/auth/github') return githubStart(req, res);
      if (sub === '/auth/callback') return await githubCallback(req, res, url);
      const viewer = opts.auth.viewer(req);
      if (!viewer)
        return send(res, 401, htmlType, loginPage({ github: Boolean(opts.signIn), message: 'Sign in to see the dashboard.' }, base));
      if (sub === '/' || sub === '') return await overview(res, viewer, url);
      const run = RUN_PATH.exec(sub);
      if (run) return await runView(res, viewer, run[1]!);
      return send(res, 404, htmlType, messagePage('Not found', 'There is no such page.', base));
    } catch (err) {
      opts.log?.warn({ err: errorMessage(err), path }, 'dashboard: request failed');
      return send(res, 500, htmlType, messagePage('Something went wrong', 'The dashboard could not read the store; see the log.', base));
    }
  };

  async function serveMetrics(req: IncomingMessage, res: ServerResponse, metrics: SlopgateMetrics): Promise<boolean> {
    if (!opts.auth.viewer(req)?.scope.all) {
      return send(res, 401, 'text/plain', 'metrics need the operator token (Authorization: Bearer …)', { 'www-authenticate': 'Bearer' });
    }
    const { contentType, body } = await metrics.text();
    return send(res, 200, contentType, body);
  }

  async function postLogin(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const form = await readForm(req);
    if (!opts.auth.tokenMatches(form.get('token') ?? undefined)) {
      return send(res, 401, htmlType, loginPage({ github: Boolean(opts.signIn), message: 'That is not the operator token.' }, base));
    }
    const cookie = opts.auth.sessionCookie({ who: 'operator', scope: { all: true } }, secureRequest(req));
    return send(res, 303, 'text/plain', '', { location: base, 'set-cookie': cookie });
  }

  function callbackUrl(req: IncomingMessage): string {
    const origin = opts.publicUrl ?? `${secureRequest(req) ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`;
    return `${origin.replace(/\/+$/, '')}${base}/auth/callback`;
  }

  function githubStart(req: IncomingMessage, res: ServerResponse): boolean {
    const signIn = opts.signIn;
    if (!signIn)
      return send(res, 404, htmlType, messagePage('Not available', 'GitHub sign-in is not configured for this dashboard.', base));
    const { state, cookie } = opts.auth.oauthState(secureRequest(req));
    const to = new URL(`${signIn.webUrl}/login/oauth/authorize`);
    to.searchParams.set('client_id', signIn.clientId);
    to.searchParams.set('redirect_uri', callbackUrl(req));
    to.searchParams.set('state', state);
    to.searchParams.set('allow_signup', 'false');
    return send(res, 302, 'text/plain', '', { location: to.toString(), 'set-cookie': cookie });
  }

  async function githubCallback(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const signIn = opts.signIn;
    const code = url.searchParams.get('code');
    if (!signIn || !code || !DashboardAuth.stateMatches(req, url.searchParams.get('state'))) {
      return send(res, 400, htmlType, messagePage('Sign-in failed', 'The sign-in did not come back as it started; try again.', base));
    }
    const login = await loginOf(signIn, code, callbackUrl(req));
    const accounts = await signIn.accountsOf(login);
    if (accounts.length === 0) {
      return send(
        res,
        403,
        htmlType,
        messagePage('Not allowed', `${login} is not a member of any account slopgate is installed on.`, base),
      );
    }
    const cookie = opts.auth.sessionCookie({ who: login, scope: { all: false, accounts } }, secureRequest(req));
    return send(res, 303, 'text/plain', '', { location: base, 'set-cookie': cookie });
  }

  async function overview(res: ServerResponse, viewer: Viewer, url: URL): Promise<boolean> {
    const db = await opts.db();
    const days = Math.max(1, Math.min(365, Number(url.searchParams.get('days')) || 14));
    const now = new Date();
    const w: Window = { days, now };
    const flakyRule = opts.flakyRule ?? { prs: 2 };
    const [repos, needs, rules, flaky, suites, recent, queue] = await Promise.all([
      repoOverviews(db, viewer.scope, w),
      attention(db, viewer.scope, w),
      ruleQuality(db, viewer.scope, w),
      flakyTests(db, viewer.scope, w, flakyRule),
      slowestSuites(db, viewer.scope, w),
      recentRuns(db, viewer.scope, w),
      opts.queue?.().catch(() => null) ?? Promise.resolve(null),
    ]);
    const page = overviewPage(
      { days, repos, attention: needs, rules, flaky, flakyRule, suites, recent, queue, now },
      opts.links,
      viewer.who,
      base,
    );
    return send(res, 200, htmlType, page);
  }

  async function runView(res: ServerResponse, viewer: Viewer, id: string): Promise<boolean> {
    const db = await opts.db();
    const run = await getRun(db, id);
    if (!run || !inScope(viewer.scope, run.repo)) return send(res, 404, htmlType, messagePage('Not found', 'There is no such run.', base));
    return send(res, 200, htmlType, runPage(run, await checkRunOfRun(db, run), opts.links, viewer.who, base));
  }
}
