import { git } from '../../core/git.js';
import type { Revision } from '../../core/revision.js';

/**
 * The date to resolve unpinned dependencies at. A PR of today installs what its CI installs today:
 * the newest versions. An older commit (a re-run, a stale base, the real-PR bench) installs what was
 * published when it was made — the newest versions of today can break an old tree (a deprecation
 * warning turned error by `filterwarnings = error`), which says nothing about the change. Null when the
 * commit is recent: then the date is not part of the cache key, and PRs share installs as before.
 * A PR's commit dates are its author's to set: with `floor` (the base) the date is never older than
 * the base's, so a back-dated head cannot ask for older versions than its base ran with.
 */
const RECENT_DAYS = 7;

async function commitTime(rev: Revision): Promise<number> {
  const iso = (await git(rev.repoDir, ['log', '-1', '--format=%cI', rev.sha]).catch(() => '')).trim();
  return Date.parse(iso);
}

export async function resolveAsOf(rev: Revision, floor?: Revision, now = Date.now()): Promise<string | null> {
  const own = await commitTime(rev);
  const base = floor ? await commitTime(floor) : NaN;
  const when = Number.isFinite(base) && !(own >= base) ? base : own;
  if (!Number.isFinite(when) || now - when < RECENT_DAYS * 86_400_000) return null;
  // A day's precision: the trees of one day share one install.
  return new Date(when).toISOString().slice(0, 10) + 'T23:59:59Z';
}
