import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppProcess, buildApp, leakedSecrets } from './app-process.js';
import { generateAppKey } from './app-jwt.js';
import { GitHubStandIn } from './github-standin.js';
import type { CheckRunState, PullState, RepoState } from './github-state.js';
import { sendWebhook, type Delivery } from './webhooks.js';

/**
 * One end-to-end world: the GitHub stand-in, the App built and running as a child process pointed
 * at it (GHE_HOST), and the secrets both share. Used by the e2e tests and the webhook benchmark.
 */
export class E2eEnv {
  readonly deliveries: Delivery[] = [];

  private constructor(
    readonly gh: GitHubStandIn,
    readonly app: AppProcess,
    readonly secrets: { webhookSecret: string; privateKey: string },
    readonly installationId: number,
    private readonly dirs: string[],
  ) {}

  static async start(
    opts: { appId?: number; installationId?: number; env?: Record<string, string>; build?: boolean } = {},
  ): Promise<E2eEnv> {
    if (opts.build !== false) buildApp();
    const appId = opts.appId ?? 31337;
    const key = generateAppKey();
    const gitRoot = mkdtempSync(join(tmpdir(), 'slopgate-e2e-remote-'));
    const workDir = mkdtempSync(join(tmpdir(), 'slopgate-e2e-app-'));
    const gh = await GitHubStandIn.start({ appId, publicKey: key.publicKey, gitRoot });
    const webhookSecret = `whsec-${randomBytes(12).toString('hex')}`;
    let app: AppProcess;
    try {
      app = await AppProcess.start({
        env: {
          APP_ID: String(appId),
          PRIVATE_KEY: key.privateKey,
          WEBHOOK_SECRET: webhookSecret,
          GHE_HOST: gh.host,
          GHE_PROTOCOL: 'http',
          LOG_LEVEL: 'debug',
          SLOPGATE_WORKDIR: workDir,
          ...opts.env,
        },
      });
    } catch (err) {
      await gh.close();
      throw err;
    }
    return new E2eEnv(gh, app, { webhookSecret, privateKey: key.privateKey }, opts.installationId ?? 4711, [gitRoot, workDir]);
  }

  /** Sends a signed delivery to the App and remembers the acknowledgement. */
  async deliver(event: string, payload: unknown, id?: string): Promise<Delivery> {
    const d = await sendWebhook(this.app.webhookUrl, this.secrets.webhookSecret, event, payload, id);
    this.deliveries.push(d);
    return d;
  }

  /** Check runs on one commit of one repository, oldest first. */
  runsOn(repo: RepoState, sha: string): CheckRunState[] {
    return this.gh.state.checkRuns.filter((c) => c.repo === repo && c.headSha === sha);
  }

  /** Waits until the newest check run on the PR's head is completed; returns it. */
  async completedRun(pull: PullState, timeoutMs = 90_000): Promise<CheckRunState> {
    const sha = pull.headSha;
    return waitFor(
      () => {
        const runs = this.runsOn(pull.repo, sha);
        const last = runs[runs.length - 1];
        return last?.status === 'completed' ? last : undefined;
      },
      timeoutMs,
      () => `no completed check run on ${pull.repo.name}@${sha.slice(0, 7)}; App log tail:\n${this.app.logs.slice(-3000)}`,
    );
  }

  /** Waits until the App's queue has nothing pending or running (its /healthz reports the queue). */
  async idle(timeoutMs = 60_000): Promise<void> {
    await waitFor(async () => {
      const res = await fetch(`${this.app.url}/healthz`);
      const body = (await res.json()) as { queue?: { pending: number; running: number } | null };
      return body.queue?.pending === 0 && body.queue.running === 0 ? true : undefined;
    }, timeoutMs);
  }

  /** Secrets found in the App's output (call after {@link stop} to see everything). */
  leaks(): string[] {
    return leakedSecrets(this.app.logs, { tokens: this.gh.issuedTokens(), ...this.secrets });
  }

  async stop(): Promise<void> {
    await this.app.stop();
    await this.gh.close();
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }
}

/** Polls `probe` every 100 ms until it returns a value; throws after the timeout. */
export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  explain?: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms${explain ? `: ${explain()}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx] ?? NaN;
}
