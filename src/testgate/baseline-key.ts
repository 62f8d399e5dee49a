import { createHash } from 'node:crypto';
import type { Revision } from '../core/revision.js';
import type { BaselineKey } from '../core/ports.js';

/** Lockfiles whose content changes what a test run installs or builds. */
const LOCKFILE =
  /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?|Cargo\.lock|go\.sum|poetry\.lock|uv\.lock|Pipfile\.lock|pdm\.lock|requirements[^/]*\.txt)$/;

/** Hash over the blob ids of every lockfile in the tree (blob ids are content hashes already). */
export async function lockfileHash(rev: Revision): Promise<string> {
  const entries = [...(await rev.entries())].filter(([p]) => LOCKFILE.test(p)).sort(([a], [b]) => (a < b ? -1 : 1));
  const h = createHash('sha256');
  for (const [p, e] of entries) h.update(`${p}\0${e.oid}\n`);
  return h.digest('hex').slice(0, 32);
}

export async function baselineKey(repo: string, rev: Revision, command: string): Promise<BaselineKey> {
  return { repo, baseTree: await rev.treeId(), command, lockfileHash: await lockfileHash(rev) };
}
