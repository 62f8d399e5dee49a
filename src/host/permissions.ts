import type { RepoRole } from './review-host.js';

/** Roles that may run write-level commands (refine, allow, reset) and re-gate someone else's PR. */
export function canWrite(role: RepoRole): boolean {
  return role.level === 'admin' || role.level === 'write';
}
