import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { InputError } from '../../core/errors.js';
import { queueOptionsFromEnv, type QueueOptions } from '../../queue/create-queue.js';
import { isOneOf } from '../../core/one-of.js';

/**
 * What an App server process does. `all` (default): answers webhooks and runs the gate jobs. `web`:
 * answers webhooks and queues the jobs in PostgreSQL; `slopgate worker` processes run them.
 */
export type ServerRole = 'all' | 'web';

export interface ServerDeployment {
  role: ServerRole;
  /** Queue settings (`DATABASE_URL` selects the durable PostgreSQL queue). */
  queue: QueueOptions;
}

const ROLES: readonly ServerRole[] = ['all', 'web'];

/** Reads `SLOPGATE_ROLE` and the queue settings; refuses combinations that could never run a job. */
export function serverDeploymentFromEnv(env: NodeJS.ProcessEnv = process.env): ServerDeployment {
  const raw = env.SLOPGATE_ROLE?.trim().toLowerCase() || 'all';
  const role = raw;
  if (!isOneOf(ROLES, role)) {
    throw new InputError(
      `SLOPGATE_ROLE must be 'all' or 'web', got '${env.SLOPGATE_ROLE}'`,
      "'web' queues jobs for `slopgate worker` processes; 'all' (the default) also runs them",
    );
  }
  const queue = queueOptionsFromEnv(env);
  if (role === 'web' && !queue.databaseUrl) {
    throw new InputError(
      'SLOPGATE_ROLE=web needs DATABASE_URL',
      'a web tier only queues jobs; without a shared PostgreSQL queue no `slopgate worker` could take them. Set DATABASE_URL or drop SLOPGATE_ROLE',
    );
  }
  return { role, queue };
}

/** The App's credentials as Probot reads them (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH); throws when missing. */
export function requireAppCredentials(env: NodeJS.ProcessEnv, who: string): void {
  const appId = Number(env.APP_ID);
  if (!Number.isInteger(appId) || appId < 1) {
    throw new InputError(
      `${who} needs the GitHub App's id`,
      'set APP_ID (and PRIVATE_KEY or PRIVATE_KEY_PATH) to the same values the App server uses',
    );
  }
  if (!env.PRIVATE_KEY?.trim() && !env.PRIVATE_KEY_PATH?.trim()) {
    throw new InputError(
      `${who} needs the GitHub App's private key`,
      'set PRIVATE_KEY (the PEM text) or PRIVATE_KEY_PATH (a path to the .pem file), the same as the App server',
    );
  }
}

/**
 * Probot's fallback when WEBHOOK_SECRET is unset, and what many examples put in `.env`: a server
 * with this secret accepts deliveries signed by anyone who has read those examples.
 */
const PLACEHOLDER_SECRETS = new Set(['development', 'secret', 'changeme', 'change-me']);

/**
 * Refuses to run the App with a webhook secret an attacker could guess: unset, empty, or a known
 * placeholder. Without APP_ID the server runs Probot's manifest setup (which creates the App and
 * writes a random secret into .env), so no secret is required yet.
 */
export function requireWebhookSecret(env: NodeJS.ProcessEnv = process.env): void {
  if (!env.APP_ID?.trim()) return;
  const secret = env.WEBHOOK_SECRET;
  const hint =
    'set WEBHOOK_SECRET to the secret in the App settings (Settings → Developer settings → GitHub Apps → Webhook secret); generate one with `openssl rand -hex 32`';
  if (secret === undefined || secret.trim() === '') {
    throw new InputError('WEBHOOK_SECRET is not set: the server would accept webhook deliveries signed with a guessable secret', hint);
  }
  if (PLACEHOLDER_SECRETS.has(secret.trim().toLowerCase())) {
    throw new InputError(`WEBHOOK_SECRET is the placeholder '${secret.trim()}': anyone could sign webhook deliveries`, hint);
  }
}

/**
 * Where mirrors, per-job snapshots and the embedded database live: SLOPGATE_WORKDIR, else the user's
 * cache folder (`$XDG_CACHE_HOME/slopgate`, else `~/.cache/slopgate`), else a per-user folder in the
 * system temp dir. Every default is writable by the user running the server, root or not.
 */
export function defaultWorkDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.SLOPGATE_WORKDIR?.trim();
  if (explicit) return explicit;
  const cache = env.XDG_CACHE_HOME?.trim();
  if (cache && isAbsolute(cache)) return join(cache, 'slopgate');
  const home = env.HOME?.trim() || safeHomedir();
  if (home && home !== '/' && isAbsolute(home)) return join(home, '.cache', 'slopgate');
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  return join(tmpdir(), uid === undefined ? 'slopgate' : `slopgate-${uid}`);
}

function safeHomedir(): string | undefined {
  try {
    return homedir();
  } catch {
    return undefined;
  }
}
