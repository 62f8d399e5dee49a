import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The repository root (where package.json and dist/ live). */
export const REPO_ROOT = join(import.meta.dirname, '..', '..', '..');

function runBuild(): void {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * `npm run build` once per `vitest run` (test/global-setup.ts names the run): the first suite that needs
 * the App builds it, the others wait for that build and reuse it, so no suite rebuilds dist/ while
 * another one runs it. E2E_SKIP_BUILD=1 reuses an existing dist/ (for quick reruns).
 */
export function buildApp(): void {
  if (process.env.E2E_SKIP_BUILD === '1' && existsSync(join(REPO_ROOT, 'dist', 'app-server.js'))) return;
  const run = process.env.SLOPGATE_TEST_RUN;
  if (!run) {
    runBuild();
    return;
  }
  const stamp = join(REPO_ROOT, 'dist', `.test-build-${run}`);
  const lock = join(tmpdir(), `slopgate-test-build-${run}`);
  for (;;) {
    if (existsSync(stamp)) return;
    try {
      mkdirSync(lock);
      break;
    } catch {
      sleepSync(500);
    }
  }
  try {
    if (existsSync(stamp)) return;
    runBuild();
    for (const f of readdirSync(join(REPO_ROOT, 'dist')))
      if (f.startsWith('.test-build-')) rmSync(join(REPO_ROOT, 'dist', f), { force: true });
    writeFileSync(stamp, '');
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface AppProcessOptions {
  env: Record<string, string>;
  /** Seconds to wait for readiness. */
  readyTimeoutS?: number;
}

/**
 * The App as a real child process (`node dist/app-server.js`, what `npm start` runs after the
 * build): stdout and stderr are captured, readiness is polled on `/healthz` (falling back to
 * Probot's `/ping`), and {@link stop} sends SIGTERM, then SIGKILL.
 */
export class AppProcess {
  private output = '';
  private exited: number | null = null;

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {
    child.stdout!.on('data', (d: Buffer) => (this.output += d.toString('utf8')));
    child.stderr!.on('data', (d: Buffer) => (this.output += d.toString('utf8')));
    child.on('exit', (code, signal) => (this.exited = code ?? (signal ? 128 : -1)));
  }

  static async start(opts: AppProcessOptions): Promise<AppProcess> {
    const port = Number(opts.env.PORT) || (await freePort());
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      HOST: '127.0.0.1',
      NODE_ENV: 'production',
      LOG_FORMAT: 'json',
      ...opts.env,
      PORT: String(port),
    };
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'app-server.js')], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const app = new AppProcess(child, port);
    await app.waitReady((opts.readyTimeoutS ?? 60) * 1000);
    return app;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get webhookUrl(): string {
    return `${this.url}/api/github/webhooks`;
  }

  get logs(): string {
    return this.output;
  }

  /** Parsed JSON log lines (pino); other lines are skipped. */
  logLines(): Record<string, unknown>[] {
    return this.output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
  }

  private async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exited !== null) throw new Error(`the App exited with ${this.exited} before it was ready:\n${this.output.slice(-4000)}`);
      for (const path of ['/healthz', '/ping']) {
        try {
          const res = await fetch(`${this.url}${path}`);
          if (res.ok) return;
        } catch {
          // not listening yet
        }
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`the App was not ready after ${timeoutMs} ms:\n${this.output.slice(-4000)}`);
  }

  async stop(): Promise<void> {
    if (this.exited !== null) return;
    const done = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await done;
    clearTimeout(timer);
  }
}

/**
 * Which secrets appear in `text`: each token raw and as the base64 of `x-access-token:<token>`
 * (what an HTTP Basic header carries), the webhook secret, and any line of the private key's body.
 */
export function leakedSecrets(text: string, s: { tokens: string[]; webhookSecret: string; privateKey: string }): string[] {
  const leaks: string[] = [];
  for (const t of s.tokens) {
    if (text.includes(t)) leaks.push(`installation token ${t.slice(0, 8)}…`);
    if (text.includes(Buffer.from(`x-access-token:${t}`).toString('base64'))) leaks.push(`installation token ${t.slice(0, 8)}… (base64)`);
  }
  if (text.includes(s.webhookSecret)) leaks.push('webhook secret');
  const keyLines = s.privateKey.split('\n').filter((l) => l.length >= 40 && !l.startsWith('-----'));
  if (keyLines.some((l) => text.includes(l)) || text.includes(s.privateKey.replace(/\n/g, '\\n').slice(40, 120))) leaks.push('private key');
  return leaks;
}
