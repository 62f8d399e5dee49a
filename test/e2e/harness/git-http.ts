import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface GitHttpRequest {
  /** GIT_PROJECT_ROOT: the directory holding `<owner>/<repo>.git`. */
  projectRoot: string;
  /** Path below the root, e.g. `/acme/widgets.git/info/refs`. */
  pathInfo: string;
  query: string;
  /** Who the request authenticated as (REMOTE_USER). */
  user: string;
}

/** Splits CGI output into headers and the start of the body; null until the blank line arrives. */
function splitCgiHead(buf: Buffer): { headers: [string, string][]; status: number; rest: Buffer } | null {
  let end = buf.indexOf('\r\n\r\n');
  let sep = 4;
  const lf = buf.indexOf('\n\n');
  if (lf >= 0 && (end < 0 || lf < end)) {
    end = lf;
    sep = 2;
  }
  if (end < 0) return null;
  let status = 200;
  const headers: [string, string][] = [];
  for (const line of buf.subarray(0, end).toString('latin1').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
    else headers.push([name, value]);
  }
  return { headers, status, rest: buf.subarray(end + sep) };
}

/**
 * Serves one smart-HTTP git request with `git http-backend` as a CGI program: request headers go
 * into the CGI environment, the body is streamed to its stdin, its CGI headers become the HTTP
 * response head and the rest is streamed back. Resolves with the HTTP status sent.
 */
export function serveGitHttp(req: IncomingMessage, res: ServerResponse, g: GitHttpRequest): Promise<number> {
  return new Promise((resolve) => {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      GIT_PROJECT_ROOT: g.projectRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: g.pathInfo,
      QUERY_STRING: g.query,
      REQUEST_METHOD: req.method ?? 'GET',
      REMOTE_USER: g.user,
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      SERVER_PROTOCOL: 'HTTP/1.1',
    };
    const h = req.headers;
    if (h['content-type']) env.CONTENT_TYPE = h['content-type'];
    if (h['content-length']) env.CONTENT_LENGTH = h['content-length'];
    if (h['content-encoding']) env.HTTP_CONTENT_ENCODING = h['content-encoding'];
    if (h['git-protocol']) env.GIT_PROTOCOL = String(h['git-protocol']);
    const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    req.pipe(child.stdin);
    child.stdin.on('error', () => undefined);
    let head: Buffer | null = Buffer.alloc(0);
    let status = 500;
    child.stdout.on('data', (chunk: Buffer) => {
      if (head === null) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const parsed = splitCgiHead(head);
      if (!parsed) return;
      head = null;
      status = parsed.status;
      res.writeHead(parsed.status, Object.fromEntries(parsed.headers));
      if (parsed.rest.length) res.write(parsed.rest);
    });
    child.on('close', (code) => {
      if (head !== null) {
        status = 500;
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`git http-backend exited ${code}: ${stderr}`);
      } else res.end();
      resolve(status);
    });
  });
}
