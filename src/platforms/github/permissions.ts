import type { RepoRole } from '../../host/review-host.js';
import type { RepoTarget } from '../../host/check-outcome.js';
import type { GitHubClient } from './check-run.js';

/** GitHub's roles (base and built-in), each with the level slopgate decides on. */
const LEVELS: ReadonlyMap<string, RepoRole['level']> = new Map([
  ['admin', 'admin'],
  ['maintain', 'write'],
  ['write', 'write'],
  ['triage', 'read'],
  ['read', 'read'],
  ['none', 'none'],
] as const);

const NONE: RepoRole = { level: 'none', name: 'none' };

/**
 * A user's role on the repository, from the collaborator-permission API (authoritative, unlike a
 * comment's `author_association`). Someone who is not a collaborator is `none`.
 */
export async function roleOf(gh: GitHubClient, target: RepoTarget, username: string): Promise<RepoRole> {
  try {
    const res = await gh.rest.repos.getCollaboratorPermissionLevel({ ...target, username });
    // Custom organisation roles have their own role_name; `permission` then holds the base level.
    for (const candidate of [res.data.role_name, res.data.permission]) {
      const level = LEVELS.get(candidate);
      if (level) return { level, name: candidate };
    }
    return NONE;
  } catch (err) {
    if ((err as { status?: number }).status === 404) return NONE; // cast: I/O boundary: Octokit request errors carry the HTTP status
    throw err;
  }
}
