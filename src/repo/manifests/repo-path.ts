import { posix } from 'node:path';

/**
 * Joins a path found in a manifest onto the manifest's folder and normalises it to a repo-relative
 * path; null when it is absolute or escapes the repository (paths from PRs are untrusted).
 */
export function resolveRepoPath(dir: string, rel: string): string | null {
  if (!rel || rel.startsWith('/') || /^[a-z]+:/i.test(rel)) return null;
  const joined = posix.normalize(posix.join(dir === '.' ? '' : dir, rel));
  if (joined === '..' || joined.startsWith('../') || joined.startsWith('/')) return null;
  return joined.replace(/^\.\//, '');
}
