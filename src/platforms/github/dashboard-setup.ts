import { createHmac } from 'node:crypto';
import type { Probot } from 'probot';
import { isRecord } from '../../core/is-record.js';
import { DashboardAuth, type GitHubSignIn } from '../../dashboard/auth.js';
import type { SlopgateMetrics } from '../../dashboard/metrics.js';
import type { DashboardOptions } from '../../dashboard/server.js';
import type { Store } from '../../store/store.js';
import type { SlopgateRuntime } from './runtime.js';

/** github.com's addresses, or those of GHE_HOST (with GHE_PROTOCOL). */
export function githubAddresses(env: NodeJS.ProcessEnv): { web: string; api: string } {
  const host = env.GHE_HOST?.trim();
  if (!host) return { web: 'https://github.com', api: 'https://api.github.com' };
  const web = `${env.GHE_PROTOCOL?.trim() || 'https'}://${host}`;
  return { web, api: `${web}/api/v3` };
}

function statusOf(err: unknown): number | undefined {
  return isRecord(err) && typeof err.status === 'number' ? err.status : undefined;
}

/**
 * The accounts the App is installed on that `login` belongs to: a user account that is theirs, or an
 * organisation they are a member of (asked with that installation's token; `members: read`).
 */
async function accountsOf(app: Probot, login: string): Promise<string[]> {
  const appOctokit = await app.auth();
  const installations = await appOctokit.paginate('GET /app/installations', { per_page: 100 });
  const accounts: string[] = [];
  for (const inst of installations) {
    const account = inst.account;
    const name = account && 'login' in account ? account.login : undefined;
    if (!account || !name) continue;
    if ('type' in account && account.type === 'Organization') {
      const octokit = await app.auth(inst.id);
      try {
        await octokit.request('GET /orgs/{org}/members/{username}', { org: name, username: login });
        accounts.push(name);
      } catch (err) {
        const status = statusOf(err);
        if (status !== 404 && status !== 302) throw err;
      }
    } else if (name.toLowerCase() === login.toLowerCase()) {
      accounts.push(name);
    }
  }
  return accounts;
}

/**
 * The App's dashboard: its store, the operator token (SLOPGATE_DASHBOARD_TOKEN), GitHub sign-in with
 * the App's OAuth credentials (GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET) for members of its installations'
 * accounts, the queue of the runtime and the metrics. Sessions are signed with a key derived from the
 * App's key, so every web process of one App accepts them.
 */
export function appDashboardOptions(
  app: Probot,
  store: Store,
  runtime: () => SlopgateRuntime | undefined,
  metrics: SlopgateMetrics,
  sanctionKey: Buffer,
  env: NodeJS.ProcessEnv = process.env,
): DashboardOptions {
  const { web, api } = githubAddresses(env);
  const clientId = env.GITHUB_CLIENT_ID?.trim();
  const clientSecret = env.GITHUB_CLIENT_SECRET?.trim();
  const signIn: GitHubSignIn | undefined =
    clientId && clientSecret
      ? { clientId, clientSecret, webUrl: web, apiUrl: api, accountsOf: (login) => accountsOf(app, login) }
      : undefined;
  const token = env.SLOPGATE_DASHBOARD_TOKEN?.trim();
  const publicUrl = env.SLOPGATE_DASHBOARD_URL?.trim();
  return {
    db: () => Promise.resolve(store.db),
    auth: new DashboardAuth({
      ...(token ? { token } : {}),
      key: createHmac('sha256', sanctionKey).update('slopgate dashboard sessions').digest(),
    }),
    ...(signIn ? { signIn } : {}),
    links: { web },
    queue: async () => (await runtime()?.queue.stats?.()) ?? null,
    metrics,
    ...(publicUrl ? { publicUrl } : {}),
    log: app.log,
  };
}
