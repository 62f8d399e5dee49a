import { InputError } from '../core/errors.js';
import { queueOptionsFromEnv, type QueueOptions } from '../queue/create-queue.js';

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
  if (!ROLES.includes(raw as ServerRole)) {
    throw new InputError(`SLOPGATE_ROLE must be 'all' or 'web', got '${env.SLOPGATE_ROLE}'`, "'web' queues jobs for `slopgate worker` processes; 'all' (the default) also runs them");
  }
  const role = raw as ServerRole;
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
    throw new InputError(`${who} needs the GitHub App's id`, 'set APP_ID (and PRIVATE_KEY or PRIVATE_KEY_PATH) to the same values the App server uses');
  }
  if (!env.PRIVATE_KEY?.trim() && !env.PRIVATE_KEY_PATH?.trim()) {
    throw new InputError(`${who} needs the GitHub App's private key`, 'set PRIVATE_KEY (the PEM text) or PRIVATE_KEY_PATH (a path to the .pem file), the same as the App server');
  }
}
