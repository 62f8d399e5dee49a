import { runGit } from './git-auth.js';

/** The tree of a commit in `dir`, or null when the commit is not there. */
async function treeOf(dir: string, rev: string): Promise<string | null> {
  try {
    return (await runGit(dir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{tree}`])).trim() || null;
  } catch {
    return null;
  }
}

async function mergeBaseOf(dir: string, a: string, b: string): Promise<string | null> {
  try {
    return (await runGit(dir, ['merge-base', a, b])).trim() || null;
  } catch {
    return null;
  }
}

/** One gated (or to-be-gated) change: the diff from the merge base of `baseSha` and `headSha` to `headSha`. */
export interface ChangeSides {
  baseSha: string;
  headSha: string;
}

/**
 * True when two changes are the same patch against the same base content: their merge bases have the
 * same tree and their heads have the same tree. Commits, authors and dates may differ (a merge queue
 * builds its own commit on the base branch); what the gate reads may not. Only what `dir` already holds
 * is compared: a commit that is not there (never fetched, or gone) is not the same change.
 */
export async function sameChange(dir: string, a: ChangeSides, b: ChangeSides): Promise<boolean> {
  const [baseA, baseB] = await Promise.all([mergeBaseOf(dir, a.baseSha, a.headSha), mergeBaseOf(dir, b.baseSha, b.headSha)]);
  if (!baseA || !baseB) return false;
  const trees = await Promise.all([treeOf(dir, baseA), treeOf(dir, baseB), treeOf(dir, a.headSha), treeOf(dir, b.headSha)]);
  if (trees.some((t) => t === null)) return false;
  return trees[0] === trees[1] && trees[2] === trees[3];
}
