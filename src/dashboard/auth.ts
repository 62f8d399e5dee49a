import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { parseJsonAs } from '../core/parse-data.js';
import type { Scope } from './queries.js';

/**
 * Who may see the dashboard: an operator with the token (`SLOPGATE_DASHBOARD_TOKEN`, as a bearer token
 * or through the sign-in form), or a person signed in with GitHub (the App's OAuth credentials) who
 * is a member of an account the App is installed on — they see that account's repositories only.
 * A signed-in visitor holds a session cookie: its content signed with HMAC-SHA256, valid for 12 hours.
 */

export interface Viewer {
  /** `operator`, or the GitHub login. */
  who: string;
  scope: Scope;
}

const SESSION_COOKIE = 'slopgate_dashboard';
const STATE_COOKIE = 'slopgate_oauth_state';
const SESSION_HOURS = 12;

const sessionShape = z.object({ who: z.string(), accounts: z.union([z.literal('*'), z.array(z.string())]), exp: z.number() });

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function cookies(req: IncomingMessage): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out.set(part.slice(0, i).trim(), decodeURIComponent(part.slice(i + 1).trim()));
  }
  return out;
}

export class DashboardAuth {
  private readonly key: Buffer;

  constructor(
    private readonly opts: {
      /** The operator token; without it only GitHub sign-in lets anyone in. */
      token?: string;
      /** Signs the session cookies (default: random per process, so sessions end with it). */
      key?: Buffer;
      now?: () => number;
    },
  ) {
    this.key = opts.key ?? randomBytes(32);
  }

  get hasToken(): boolean {
    return Boolean(this.opts.token);
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }

  /** True when `token` is the operator's. */
  tokenMatches(token: string | undefined): boolean {
    return Boolean(this.opts.token && token && equal(token, this.opts.token));
  }

  /** The viewer of a request: the bearer token, else a valid session cookie, else null. */
  viewer(req: IncomingMessage): Viewer | null {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (bearer !== undefined) return this.tokenMatches(bearer) ? { who: 'operator', scope: { all: true } } : null;
    const raw = cookies(req).get(SESSION_COOKIE);
    if (!raw) return null;
    const dot = raw.lastIndexOf('.');
    if (dot <= 0) return null;
    const payload = raw.slice(0, dot);
    if (!equal(raw.slice(dot + 1), this.mac(payload))) return null;
    let session: z.infer<typeof sessionShape>;
    try {
      session = parseJsonAs(sessionShape, Buffer.from(payload, 'base64url').toString('utf8'), 'the dashboard session');
    } catch {
      return null;
    }
    if (session.exp < this.now()) return null;
    return { who: session.who, scope: session.accounts === '*' ? { all: true } : { all: false, accounts: session.accounts } };
  }

  /** A `Set-Cookie` value that signs `viewer` in. */
  sessionCookie(viewer: Viewer, secure: boolean): string {
    const session = {
      who: viewer.who,
      accounts: viewer.scope.all ? '*' : viewer.scope.accounts,
      exp: this.now() + SESSION_HOURS * 3600_000,
    };
    const payload = Buffer.from(JSON.stringify(session)).toString('base64url');
    return cookie(SESSION_COOKIE, `${payload}.${this.mac(payload)}`, SESSION_HOURS * 3600, secure);
  }

  static signOutCookie(secure: boolean): string {
    return cookie(SESSION_COOKIE, '', 0, secure);
  }

  /** A fresh OAuth state, and the cookie that holds it until the callback. */
  oauthState(secure: boolean): { state: string; cookie: string } {
    const state = randomBytes(16).toString('hex');
    return { state, cookie: cookie(STATE_COOKIE, state, 600, secure) };
  }

  static stateMatches(req: IncomingMessage, state: string | null): boolean {
    const expected = cookies(req).get(STATE_COOKIE);
    return Boolean(state && expected && equal(state, expected));
  }
}

function cookie(name: string, value: string, maxAge: number, secure: boolean): string {
  return `${name}=${encodeURIComponent(value)}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** GitHub sign-in for the dashboard: the App's OAuth credentials and who belongs to which installation. */
export interface GitHubSignIn {
  clientId: string;
  clientSecret: string;
  /** `https://github.com` or the GHE host's web address. */
  webUrl: string;
  /** The REST API (`https://api.github.com`, `<ghe>/api/v3`). */
  apiUrl: string;
  /** The accounts the App is installed on that `login` belongs to (a user's own, or orgs they are a member of). */
  accountsOf(login: string): Promise<string[]>;
}

const tokenReply = z.object({ access_token: z.string().optional(), error: z.string().optional() });
const userReply = z.object({ login: z.string() });

/** Exchanges an OAuth code for the user's login (the token is used for `/user` only and then dropped). */
export async function loginOf(signIn: GitHubSignIn, code: string, redirectUri: string): Promise<string> {
  const res = await fetch(`${signIn.webUrl}/login/oauth/access_token`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: signIn.clientId, client_secret: signIn.clientSecret, code, redirect_uri: redirectUri }),
  });
  const reply = parseJsonAs(tokenReply, await res.text(), 'the OAuth token reply');
  if (!reply.access_token) throw new Error(`GitHub refused the sign-in: ${reply.error ?? `HTTP ${res.status}`}`);
  const user = await fetch(`${signIn.apiUrl}/user`, {
    headers: { accept: 'application/vnd.github+json', authorization: `Bearer ${reply.access_token}` },
  });
  if (!user.ok) throw new Error(`GitHub did not say who signed in: HTTP ${user.status}`);
  return parseJsonAs(userReply, await user.text(), 'the GitHub user').login;
}
