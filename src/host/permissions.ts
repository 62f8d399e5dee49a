import type { RepoRole } from './review-host.js';

const WRITE_ROLES: ReadonlySet<RepoRole> = new Set(['admin', 'maintain', 'write']);

/** Roles that may run write-level commands (refine, allow, reset) and re-gate someone else's PR. */
export function canWrite(role: RepoRole): boolean {
  return WRITE_ROLES.has(role);
}
