import { posix } from 'node:path';
import { GitCommandError, git } from '../../core/git.js';
import type { GuardContext, GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import type { G4RemovedDependencyEvidence } from './evidence.js';

/**
 * What the removed-dependency rules of every ecosystem share: finding the head files that may import a
 * package (one `git grep -l` on the head commit), the package a file belongs to (its nearest manifest
 * folder), and the finding itself.
 */

export const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Head files matching `re` (git grep -E) among `specs` below `dir` ('' = the whole tree). */
export async function grepHead(
  ctx: GuardContext,
  re: string,
  specs: string[],
  dir: string,
  opts: { ignoreCase?: boolean } = {},
): Promise<string[]> {
  const pathspecs = dir ? specs.map((s) => `${dir}/${s}`) : specs;
  try {
    const out = await git(ctx.head.repoDir, [
      '-c',
      'core.quotePath=false',
      'grep',
      '-l',
      '-I',
      ...(opts.ignoreCase ? ['-i'] : []),
      '-E',
      '-e',
      re,
      ctx.head.sha,
      '--',
      ...pathspecs,
    ]);
    return out
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(ctx.head.sha.length + 1));
  } catch (err) {
    if (err instanceof GitCommandError && err.code === 1 && !err.stderr.trim()) return [];
    throw err;
  }
}

/** The folder of the nearest manifest above `path` among `dirs` ('' for the top), or null when none is. */
export function ownerDir(path: string, dirs: ReadonlySet<string>): string | null {
  for (let dir = posix.dirname(path); ; dir = posix.dirname(dir)) {
    const d = dir === '.' ? '' : dir;
    if (dirs.has(d)) return d;
    if (d === '') return null;
  }
}

/** The folder of a manifest path ('' for the top). */
export function dirOf(path: string): string {
  const d = posix.dirname(path);
  return d === '.' ? '' : d;
}

export interface Removal {
  manifest: ChangedFile;
  ecosystem: G4RemovedDependencyEvidence['ecosystem'];
  /** The dependency as the manifest names it. */
  pkg: string;
  /** The name the code imports when it differs from `pkg` (`yaml` for PyYAML, `serde_json` for serde-json). */
  importName?: string;
  /** Head files that still import it, in path order. */
  importers: string[];
  /** Why it still works, by accident or only in some builds (a `risk`), a sentence ending with a full stop; null for a `fail`. */
  accidental: string | null;
  /** What breaks, ending with a full stop: `once installed from this manifest, …`. */
  breaks: string;
  remediation?: string;
}

export function removedFinding(r: Removal): GuardFinding {
  const { manifest, pkg, importers: files } = r;
  const shown = files
    .slice(0, 3)
    .map((f) => `\`${f}\``)
    .join(', ');
  const more = files.length > 3 ? ` and ${files.length - 3} more` : '';
  const as = r.importName && r.importName !== pkg ? ` as \`${r.importName}\`` : '';
  return {
    category: 'ungrounded-import',
    severity: r.accidental ? 'risk' : 'fail',
    path: manifest.path,
    ...(manifest.added[0] ? { line: manifest.added[0].start } : {}),
    message:
      `\`${manifest.path}\` removes the dependency '${pkg}', but ${files.length} file${files.length === 1 ? '' : 's'} of this package still import${files.length === 1 ? 's' : ''} it${as} (${shown}${more}): ` +
      (r.accidental ?? r.breaks),
    remediation: r.remediation ?? `Keep '${pkg}' in \`${manifest.path}\`, or remove its imports from those files in this PR.`,
    evidence: {
      package: pkg,
      ecosystem: r.ecosystem,
      manifest: manifest.path,
      ...(r.importName && r.importName !== pkg ? { importName: r.importName } : {}),
      importers: files.slice(0, 20),
      importerCount: files.length,
      removedDependency: true,
    } satisfies G4RemovedDependencyEvidence,
  };
}
