import type { GitHubClient, RepoTarget } from './check-run.js';

export type RepoRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

const KNOWN: ReadonlySet<RepoRole> = new Set(['admin', 'maintain', 'write', 'triage', 'read', 'none']);
const WRITE_ROLES: ReadonlySet<RepoRole> = new Set(['admin', 'maintain', 'write']);

/**
 * A user's role on the repository, from the collaborator-permission API (authoritative, unlike a
 * comment's `author_association`). Someone who is not a collaborator is `none`.
 */
export async function roleOf(gh: GitHubClient, target: RepoTarget, username: string): Promise<RepoRole> {
  try {
    const res = await gh.rest.repos.getCollaboratorPermissionLevel({ ...target, username });
    // Custom organisation roles have their own role_name; `permission` then holds the base level.
    for (const candidate of [res.data.role_name, res.data.permission]) {
      if (candidate && KNOWN.has(candidate as RepoRole)) return candidate as RepoRole;
    }
    return 'none';
  } catch (err) {
    if ((err as { status?: number }).status === 404) return 'none';
    throw err;
  }
}

export function canWrite(role: RepoRole): boolean {
  return WRITE_ROLES.has(role);
}
