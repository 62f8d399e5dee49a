/* eslint-disable @typescript-eslint/no-explicit-any */
import { randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyAppJwt } from './app-jwt.js';
import { serveGitHttp } from './git-http.js';
import { GitRemote } from './git-remote.js';
import { GitHubState } from './github-state.js';
import { GIT_DATA_ROUTES } from './git-data-routes.js';
import { ROUTES, type RouteResult } from './github-routes.js';
import { GraphqlStandIn } from './graphql-standin.js';
import { OpenApiValidator } from './openapi-validator.js';

type Json = any;

export interface RecordedRequest {
  at: number;
  kind: 'rest' | 'graphql' | 'git' | 'unknown';
  method: string;
  path: string;
  query: string;
  operationId: string | null;
  body: Json;
  status: number;
  /** `app` (JWT), `installation` (token) or `none`. */
  auth: 'app' | 'installation' | 'none';
  installationId: number | null;
}

export interface StandInOptions {
  appId: number;
  publicKey: KeyObject;
  /** Where the bare repositories live (GIT_PROJECT_ROOT). */
  gitRoot: string;
  /** One validator can serve several stand-ins (loading GitHub's description takes ~0.5 s). */
  validator?: OpenApiValidator;
}

interface IssuedToken {
  installationId: number;
  expiresAt: number;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

const GIT_PATH = /^\/([A-Za-z0-9._-]+)\/([A-Za-z0-9._-]+)\.git(\/.*)$/;

/**
 * A local GitHub: the REST API under `/api/v3` (GitHub Enterprise layout), GraphQL under
 * `/api/graphql`, and the repositories over smart HTTP at `/<owner>/<repo>.git` — one port. Every
 * REST request is checked against GitHub's OpenAPI description and its authentication; anything
 * wrong, and any request to an endpoint the stand-in does not know, lands in {@link violations}.
 */
export class GitHubStandIn {
  readonly requests: RecordedRequest[] = [];
  readonly violations: string[] = [];
  readonly state: GitHubState;
  readonly remote: GitRemote;
  readonly graphql: GraphqlStandIn;
  readonly validator: OpenApiValidator;
  private readonly tokens = new Map<string, IssuedToken>();
  private readonly server: Server;
  /** Repositories whose git endpoint answers 500 (to simulate a broken remote). */
  readonly brokenGit = new Set<string>();
  /** Per-operation overrides, for fault injection: return a result to answer instead of the route. */
  readonly overrides = new Map<string, (body: Json) => RouteResult | undefined>();

  private constructor(private readonly opts: StandInOptions) {
    this.validator = opts.validator ?? new OpenApiValidator();
    this.state = new GitHubState('http://127.0.0.1', opts.appId);
    this.remote = new GitRemote(opts.gitRoot);
    this.graphql = new GraphqlStandIn(this.state);
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        this.violations.push(`stand-in crashed on ${req.method} ${req.url}: ${(err as Error).stack ?? String(err)}`);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  }

  static async start(opts: StandInOptions): Promise<GitHubStandIn> {
    const s = new GitHubStandIn(opts);
    await new Promise<void>((resolve) => s.server.listen(0, '127.0.0.1', resolve));
    s.state.baseUrl = s.url;
    return s;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `127.0.0.1:<port>`, the value for GHE_HOST. */
  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  get url(): string {
    return `http://${this.host}`;
  }

  /** Every installation token handed out so far (to prove none of them leaks into logs). */
  issuedTokens(): string[] {
    return [...this.tokens.keys()];
  }

  /** Makes a token unusable, like GitHub does an hour after minting it. */
  expireTokens(): void {
    for (const t of this.tokens.values()) t.expiresAt = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Requests of one operation, e.g. `checks/update`. */
  calls(operationId: string): RecordedRequest[] {
    return this.requests.filter((r) => r.operationId === operationId);
  }

  mintToken(installationId: number): { token: string; expiresAt: string } {
    const token = `ghs_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'x')}`;
    const expiresAt = Date.now() + 3600_000;
    this.tokens.set(token, { installationId, expiresAt });
    return { token, expiresAt: new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  }

  private tokenInstallation(token: string | undefined): number | null {
    const t = token ? this.tokens.get(token) : undefined;
    return t && t.expiresAt > Date.now() ? t.installationId : null;
  }

  private record(r: Omit<RecordedRequest, 'at'>): void {
    this.requests.push({ ...r, at: Date.now() });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const method = req.method ?? 'GET';
    if (url.pathname === '/api/graphql' || url.pathname === '/api/v3/graphql') return this.handleGraphql(req, res, url);
    if (url.pathname.startsWith('/api/v3/')) return this.handleRest(req, res, url);
    const git = GIT_PATH.exec(url.pathname);
    if (git) return this.handleGit(req, res, url, git[1]!, git[2]!);
    await readBody(req);
    this.violations.push(`request outside the GitHub API and git endpoints: ${method} ${url.pathname}`);
    this.record({
      kind: 'unknown',
      method,
      path: url.pathname,
      query: url.search,
      operationId: null,
      body: null,
      status: 404,
      auth: 'none',
      installationId: null,
    });
    this.send(res, 404, { message: 'Not Found' });
  }

  private send(res: ServerResponse, status: number, body?: Json): void {
    const headers: Record<string, string> = {
      'x-github-request-id': randomUUID(),
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      'x-ratelimit-used': '1',
      'x-github-media-type': 'github.v3; format=json',
    };
    if (body === undefined) {
      res.writeHead(status, headers).end();
      return;
    }
    res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
  }

  private async parseJson(req: IncomingMessage, where: string): Promise<{ body: Json; ok: boolean }> {
    const raw = await readBody(req);
    if (raw.length === 0) return { body: undefined, ok: true };
    try {
      return { body: JSON.parse(raw.toString('utf8')), ok: true };
    } catch {
      this.violations.push(`${where}: request body is not JSON`);
      return { body: raw.toString('utf8'), ok: false };
    }
  }

  private async handleRest(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    const path = url.pathname.slice('/api/v3'.length);
    const where = `${method} ${path}${url.search}`;
    const { body, ok } = await this.parseJson(req, where);
    const rec = {
      kind: 'rest' as const,
      method,
      path,
      query: url.search,
      body,
      operationId: null as string | null,
      auth: 'none' as RecordedRequest['auth'],
      installationId: null as number | null,
    };
    const reply = (status: number, payload?: Json) => {
      this.record({ ...rec, status });
      this.send(res, status, payload);
    };
    const match = this.validator.match(method, path);
    if (!match) {
      this.violations.push(`${where}: no such endpoint in GitHub's OpenAPI description`);
      reply(404, { message: 'Not Found' });
      return;
    }
    rec.operationId = match.operation.operationId;
    // Authentication: the App JWT for /app/*, an unexpired installation token for the rest.
    const auth = /^(bearer|token)\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (match.operation.template.startsWith('/app')) {
      const check = auth
        ? verifyAppJwt(auth[2]!, this.opts.publicKey, this.opts.appId)
        : { ok: false as const, problem: 'no Authorization header' };
      if (!check.ok) {
        this.violations.push(`${where}: App JWT rejected: ${check.problem}`);
        reply(401, { message: 'A JSON web token could not be decoded' });
        return;
      }
      rec.auth = 'app';
    } else {
      const installation = this.tokenInstallation(auth?.[2]);
      if (installation === null) {
        this.violations.push(`${where}: no valid installation token (${auth ? 'unknown or expired token' : 'no Authorization header'})`);
        reply(401, { message: 'Bad credentials' });
        return;
      }
      rec.auth = 'installation';
      rec.installationId = installation;
    }
    const problems = ok ? this.validator.validate(match, url.searchParams, body) : [];
    if (problems.length) {
      for (const p of problems) this.violations.push(`${where} (${match.operation.operationId}): ${p}`);
      reply(422, { message: 'Invalid request.', errors: problems });
      return;
    }
    const route = ROUTES[match.operation.operationId] ?? GIT_DATA_ROUTES[match.operation.operationId];
    if (!route) {
      this.violations.push(`${where}: ${match.operation.operationId} is not implemented by the stand-in`);
      reply(404, { message: 'Not Found' });
      return;
    }
    const result =
      this.overrides.get(match.operation.operationId)?.(body) ??
      route({
        state: this.state,
        remote: this.remote,
        params: match.params,
        query: url.searchParams,
        body: body ?? {},
        installationId: rec.installationId,
        mintToken: (id) => this.mintToken(id),
      });
    if (result.violation) this.violations.push(`${where}: ${result.violation}`);
    reply(result.status, result.body);
  }

  private async handleGraphql(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const { body } = await this.parseJson(req, `POST ${url.pathname}`);
    const installation = this.tokenInstallation(/^(?:bearer|token)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1]);
    const rec = {
      kind: 'graphql' as const,
      method: req.method ?? 'POST',
      path: url.pathname,
      query: '',
      operationId: 'graphql',
      body,
      auth: 'installation' as const,
      installationId: installation,
    };
    if (installation === null || req.method !== 'POST' || typeof body?.query !== 'string') {
      this.violations.push(`graphql: ${installation === null ? 'no valid installation token' : 'expected POST with a JSON {query}'}`);
      this.record({ ...rec, status: 401 });
      this.send(res, 401, { message: 'Bad credentials' });
      return;
    }
    this.record({ ...rec, status: 200 });
    this.send(res, 200, this.graphql.answer(body.query, body.variables));
  }

  private async handleGit(req: IncomingMessage, res: ServerResponse, url: URL, owner: string, repo: string): Promise<void> {
    const method = req.method ?? 'GET';
    const rec = { kind: 'git' as const, method, path: url.pathname, query: url.search, operationId: null, body: null };
    const basic = /^basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const [user, password] = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8').split(/:(.*)/s) : [];
    const installation = this.tokenInstallation(password);
    if (installation === null) {
      await readBody(req);
      this.record({ ...rec, status: 401, auth: 'none', installationId: null });
      res.writeHead(401, { 'www-authenticate': 'Basic realm="GitHub"', 'content-type': 'text/plain' }).end('Invalid username or token.\n');
      return;
    }
    if (!this.state.repo(owner, repo)) {
      await readBody(req);
      this.record({ ...rec, status: 404, auth: 'installation', installationId: installation });
      res.writeHead(404).end('Repository not found.\n');
      return;
    }
    if (this.brokenGit.has(`${owner}/${repo}`)) {
      await readBody(req);
      this.record({ ...rec, status: 500, auth: 'installation', installationId: installation });
      res.writeHead(500).end('internal error\n');
      return;
    }
    const status = await serveGitHttp(req, res, {
      projectRoot: this.remote.root,
      pathInfo: url.pathname,
      query: url.search.replace(/^\?/, ''),
      user: user ?? 'x-access-token',
    });
    this.record({ ...rec, status, auth: 'installation', installationId: installation });
  }
}
