import nock from 'nock';
import { INSTALLATION_ID, OWNER, REPO, pullRequest, type JsonValue, type PrShape } from './payloads.js';

export const API = 'https://api.github.com';
export const TOKEN = 'ghs_TestInstallationToken0123456789abcdefXYZ';
const R = `/repos/${OWNER}/${REPO}`;

export interface Captured {
  method: string;
  path: string;
  body: JsonValue;
}

/**
 * A strict stand-in for the GitHub REST API (nock): every expected request is declared, every
 * request body is captured, and a request nobody declared is recorded as unmatched, so the test
 * fails on it even when the App swallows the error.
 */
export class FakeGitHub {
  readonly scope = nock(API);
  readonly captured: Captured[] = [];
  readonly unmatched: string[] = [];
  private readonly onNoMatch = (req: { method?: string; path?: string; options?: { method?: string; path?: string } }) => {
    this.unmatched.push(`${req.method ?? req.options?.method} ${req.path ?? req.options?.path}`);
  };

  constructor() {
    nock.emitter.on('no match', this.onNoMatch);
  }

  dispose(): void {
    nock.emitter.removeListener('no match', this.onNoMatch);
  }

  private record(method: string, path: string, body: unknown): void {
    this.captured.push({ method, path, body: typeof body === 'string' && body ? safeJson(body) : body });
  }

  bodiesOf(method: string, pathPart: string): JsonValue[] {
    return this.captured.filter((c) => c.method === method && c.path.includes(pathPart)).map((c) => c.body);
  }

  token(): this {
    this.scope
      .post(`/app/installations/${INSTALLATION_ID}/access_tokens`)
      .reply(201, { token: TOKEN, expires_at: new Date(Date.now() + 3600_000).toISOString(), permissions: {} });
    return this;
  }

  createCheckRun(id: number): this {
    this.scope.post(`${R}/check-runs`).reply((uri, body) => {
      this.record('POST', uri, body);
      return [201, { id, name: 'slopgate', html_url: `https://github.com/${OWNER}/${REPO}/runs/${id}` }];
    });
    return this;
  }

  updateCheckRun(id: number, times = 1): this {
    this.scope
      .patch(`${R}/check-runs/${id}`)
      .times(times)
      .reply((uri, body) => {
        this.record('PATCH', uri, body);
        return [200, { id }];
      });
    return this;
  }

  getPr(shape: PrShape, times = 1): this {
    this.scope.get(`${R}/pulls/${shape.number}`).times(times).reply(200, pullRequest(shape));
    return this;
  }

  noConfig(): this {
    this.scope.get(`${R}/contents/.github`).query({ ref: 'main' }).reply(404, { message: 'Not Found' });
    return this;
  }

  config(file: string, text: string): this {
    this.scope
      .get(`${R}/contents/.github`)
      .query({ ref: 'main' })
      .reply(200, [{ type: 'file', name: file.split('/').pop(), path: file, size: text.length, sha: 'abc' }]);
    this.scope
      .get(
        new RegExp(
          `^${R}/contents/${file
            .split('/')
            .map((p) => p.replace(/\./g, '\\.'))
            .join('(?:/|%2F)')}\\?`,
        ),
      )
      .reply(200, { type: 'file', path: file, encoding: 'base64', content: Buffer.from(text).toString('base64') });
    return this;
  }

  issueComments(number: number, comments: unknown[] | (() => unknown[]) = []): this {
    this.scope
      .get(`${R}/issues/${number}/comments`)
      .query({ per_page: 100 })
      .reply(() => [200, typeof comments === 'function' ? comments() : comments]);
    return this;
  }

  reviewComments(number: number, comments: unknown[] = []): this {
    this.scope.get(`${R}/pulls/${number}/comments`).query({ per_page: 100 }).reply(200, comments);
    return this;
  }

  createReview(number: number): this {
    this.scope.post(`${R}/pulls/${number}/reviews`).reply((uri, body) => {
      this.record('POST', uri, body);
      return [200, { id: 77 }];
    });
    return this;
  }

  updatePr(number: number): this {
    this.scope.patch(`${R}/pulls/${number}`).reply((uri, body) => {
      this.record('PATCH', uri, body);
      return [200, {}];
    });
    return this;
  }

  addLabels(number: number): this {
    this.scope.post(`${R}/issues/${number}/labels`).reply((uri, body) => {
      this.record('POST', uri, body);
      return [200, []];
    });
    return this;
  }

  graphql(response: unknown): this {
    this.scope.post('/graphql').reply((uri, body) => {
      this.record('POST', uri, body);
      return [200, { data: response }];
    });
    return this;
  }

  permission(user: string, role: string): this {
    this.scope
      .get(`${R}/collaborators/${user}/permission`)
      .reply(200, { permission: role === 'maintain' ? 'write' : role, role_name: role, user: { login: user } });
    return this;
  }

  /** GET …/pulls/N/files: the PR's changed files, each with its blob at the head (what a sanction records). */
  listFiles(number: number, files: { path: string; blob: string; status?: string; previous?: string }[]): this {
    this.scope
      .get(`${R}/pulls/${number}/files`)
      .query({ per_page: 100 })
      .reply(
        200,
        files.map((f) => ({
          sha: f.blob,
          filename: f.path,
          status: f.status ?? 'modified',
          additions: 1,
          deletions: 0,
          changes: 1,
          ...(f.previous ? { previous_filename: f.previous } : {}),
        })),
      );
    return this;
  }

  reaction(commentId: number): this {
    this.scope.post(`${R}/issues/comments/${commentId}/reactions`).reply((uri, body) => {
      this.record('POST', uri, body);
      return [201, { id: 1, content: (body as { content?: string }).content }];
    });
    return this;
  }

  createComment(number: number): this {
    this.scope.post(`${R}/issues/${number}/comments`).reply((uri, body) => {
      this.record('POST', uri, body);
      return [201, { id: 555 }];
    });
    return this;
  }

  /** The requests a full gate job makes after the check run exists (no config file, no earlier comments). */
  gateJob(shape: PrShape, checkRunId: number, opts: { updates?: number; review?: boolean; existingComments?: unknown[] } = {}): this {
    this.getPr(shape)
      .noConfig()
      .issueComments(shape.number)
      .updateCheckRun(checkRunId, opts.updates ?? 1)
      .reviewComments(shape.number, opts.existingComments ?? []);
    if (opts.review) this.createReview(shape.number);
    return this.getPr(shape).updatePr(shape.number);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
