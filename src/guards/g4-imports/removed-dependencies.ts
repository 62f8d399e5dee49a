import { posix } from 'node:path';
import type { GuardContext, GuardFinding } from '../../core/guard.js';
import { isRecord } from '../../core/is-record.js';
import type { ChangedFile } from '../../core/patch-set.js';
import { dependencyReaderFor } from '../../repo/manifests/dependency-specs.js';
import { isSkippedPath } from '../../repo/manifests/index.js';
import { isNodeBuiltin } from '../../repo/stdlib/node.js';
import { npmWorkspace } from './npm-workspace.js';
import { dirOf, escapeRegex, grepHead, ownerDir, removedFinding } from './removed-shared.js';

/**
 * A dependency the PR removes from a package.json while files of that same package still import it:
 * the build (or the import at run time) breaks once the package is installed from the new manifest.
 * Not reported when something still provides the package: the manifest declares it in another table,
 * it is a workspace package, the workspace root declares it (its node_modules resolves from every
 * member), it is a Node built-in, or only deleted files imported it. Where a sibling package declares
 * it under a hoisting package manager, or the lockfile the PR updated still installs it for another
 * dependency, it still resolves by accident: `risk`.
 */

const NPM_GROUPS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];
const SOURCE_SPECS = ['*.js', '*.jsx', '*.mjs', '*.cjs', '*.ts', '*.tsx', '*.mts', '*.cts', '*.vue', '*.svelte', '*.mdx'];

/** Head files (below `dir`) that import `pkg` or a subpath of it. */
function importersAtHead(ctx: GuardContext, pkg: string, dir: string): Promise<string[]> {
  const re = `(from|require\\(|import\\(|import)[[:space:]]*['"]${escapeRegex(pkg)}(/[^'"]*)?['"]`;
  return grepHead(ctx, re, SOURCE_SPECS, dir);
}

/** True when a lockfile the PR changed still installs `pkg` (for another dependency). */
function lockStillInstalls(all: ChangedFile[], pkg: string): string | null {
  for (const f of all) {
    if (f.head.text === null) continue;
    const base = posix.basename(f.path);
    if (base === 'package-lock.json') {
      try {
        const doc: unknown = JSON.parse(f.head.text);
        if (isRecord(doc) && isRecord(doc.packages) && Object.keys(doc.packages).some((k) => k.endsWith(`node_modules/${pkg}`)))
          return f.path;
      } catch {
        // unreadable: proves nothing
      }
    } else if (base === 'pnpm-lock.yaml' || base === 'yarn.lock') {
      const p = escapeRegex(pkg);
      if (new RegExp(`^\\s*['"]?/?${p}@`, 'm').test(f.head.text)) return f.path;
    }
  }
  return null;
}

export async function removedDependencyFindings(file: ChangedFile, all: ChangedFile[], ctx: GuardContext): Promise<GuardFinding[]> {
  if (posix.basename(file.path) !== 'package.json' || file.status !== 'modified' || file.base.text === null || file.head.text === null)
    return [];
  const read = dependencyReaderFor(file.path);
  if (!read) return [];
  let before: Map<string, string>;
  let after: Map<string, string>;
  try {
    before = read(file.base.text);
    after = read(file.head.text);
  } catch {
    return [];
  }
  const names = (m: Map<string, string>) =>
    new Set([...m.keys()].filter((k) => NPM_GROUPS.includes(k.split('\0')[0]!)).map((k) => k.split('\0')[1]!));
  const kept = names(after);
  const removed = [...names(before)].filter((n) => !kept.has(n) && !n.startsWith('@types/') && !isNodeBuiltin(n));
  if (removed.length === 0) return [];
  const dir = dirOf(file.path);
  const ws = await npmWorkspace(ctx);
  const manifestDirs = new Set(
    (await ctx.head.paths()).filter((p) => (p === 'package.json' || p.endsWith('/package.json')) && !isSkippedPath(p)).map(dirOf),
  );
  const out: GuardFinding[] = [];
  for (const pkg of removed.slice(0, 20)) {
    const lower = pkg.toLowerCase();
    if (ws?.names.has(lower)) continue; // a workspace package
    if (ws && dir !== '' && ws.root.deps.has(lower)) continue; // the root's node_modules resolves from every member
    const files = (await importersAtHead(ctx, pkg, dir)).filter((p) => !isSkippedPath(p) && ownerDir(p, manifestDirs) === dir);
    if (files.length === 0) continue;
    const siblings = ws?.layout === 'hoisted' ? ws.members.filter((m) => m.dir !== dir && m.deps.has(lower)).map((m) => m.manifest) : [];
    const lock = lockStillInstalls(all, pkg);
    const accidental = siblings.length
      ? `it still resolves only because ${ws?.manager ?? 'npm'} hoists \`${siblings[0]}\`'s copy to the root node_modules, which nothing guarantees.`
      : lock
        ? `it still resolves only because \`${lock}\` installs it for another dependency, which nothing guarantees.`
        : null;
    out.push(
      removedFinding({
        manifest: file,
        ecosystem: 'npm',
        pkg,
        importers: files,
        accidental,
        breaks: 'once installed from this manifest, the import does not resolve and the build or the module breaks.',
      }),
    );
  }
  return out;
}
