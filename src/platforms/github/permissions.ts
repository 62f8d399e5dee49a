import type { RepoRole } from '../../host/review-host.js';
import type { RepoTarget } from '../../host/check-outcome.js';
import type { GitHubClient } from './check-run.js';

const KNOWN: ReadonlySet<string> = new Set<RepoRole>(['admin', 'maintain', 'write', 'triage', 'read', 'none']);

function isRole(value: string | undefined): value is RepoRole {
  return value !== undefined && KNOWN.has(value);
}

/**
 * A user's role on the repository, from the collaborator-permission API (authoritative, unlike a
 * comment's `author_association`). Someone who is not a collaborator is `none`.
 */
export async function roleOf(gh: GitHubClient, target: RepoTarget, username: string): Promise<RepoRole> {
  try {
    const res = await gh.rest.repos.getCollaboratorPermissionLevel({ ...target, username });
    // Custom organisation roles have their own role_name; `permission` then holds the base level.
    for (const candidate of [res.data.role_name, res.data.permission]) {
      if (isRole(candidate)) return candidate;
    }
    return 'none';
  } catch (err) {
    if ((err as { status?: number }).status === 404) return 'none'; // cast: I/O boundary: Octokit request errors carry the HTTP status
    throw err;
  }
}
