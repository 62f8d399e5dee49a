import { posix } from 'node:path';

/** Where a symlink of the PR really points, as far as the head tree can tell. */
export type SymlinkVerdict =
  { kind: 'inside'; resolved: string } | { kind: 'outside'; why: string } | { kind: 'git-internals'; resolved: string } | { kind: 'loop' };

/** Reads the target of a symlink of the head tree, or null when `path` is not a symlink there. */
export type SymlinkReader = (path: string) => Promise<string | null>;

const MAX_HOPS = 40; // the Linux limit for nested symlinks

function isAbsoluteTarget(target: string): boolean {
  return target.startsWith('/') || target.startsWith('\\') || /^[A-Za-z]:/.test(target);
}

/**
 * Resolves `target` of the symlink at `linkPath` the way the operating system would on a checkout
 * of the head tree: relative to the link's directory, following symlinks of the tree on the way
 * (a link to `docs/current/x` where `docs/current` itself points outside escapes too).
 */
export async function resolveSymlink(linkPath: string, target: string, readLink: SymlinkReader): Promise<SymlinkVerdict> {
  let dir = posix.dirname(linkPath) === '.' ? '' : posix.dirname(linkPath);
  let pending = target.replace(/\\/g, '/');
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    if (isAbsoluteTarget(pending)) return { kind: 'outside', why: `it is an absolute path (\`${pending}\`)` };
    const joined = posix.normalize(posix.join(dir, pending));
    if (joined === '..' || joined.startsWith('../'))
      return { kind: 'outside', why: `\`..\` climbs above the repository root (resolves to \`${joined}\`)` };
    const comps = joined === '.' ? [] : joined.split('/').filter(Boolean);
    if (comps.some((c) => c.toLowerCase() === '.git')) return { kind: 'git-internals', resolved: joined };
    let redirected = false;
    for (let i = 1; i <= comps.length; i++) {
      const prefix = comps.slice(0, i).join('/');
      const next = await readLink(prefix);
      if (next === null) continue;
      const rest = comps.slice(i).join('/');
      dir = posix.dirname(prefix) === '.' ? '' : posix.dirname(prefix);
      pending = rest ? `${next.replace(/\\/g, '/').replace(/\/+$/, '')}/${rest}` : next.replace(/\\/g, '/');
      redirected = true;
      break;
    }
    if (!redirected) return { kind: 'inside', resolved: joined === '.' ? '' : joined };
  }
  return { kind: 'loop' };
}
