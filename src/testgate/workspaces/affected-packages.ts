import type { Workspace, WorkspacePackage } from './workspace-types.js';

/** Why a package's suite runs for a change. */
export type RunReason = 'changed' | 'dependent' | 'shared' | 'root';

export interface AffectedPackage {
  pkg: WorkspacePackage;
  reason: RunReason;
  /** For `dependent`: the changed packages it depends on (directly or through others). */
  via?: string[];
}

export interface Affected {
  packages: AffectedPackage[];
  /** Changed files outside every package that are not documentation: every package runs because of them. */
  shared: string[];
}

/**
 * Known documentation, which changes no package's behaviour when it sits outside every package: Markdown
 * and other prose formats, README/CHANGELOG/LICENSE-like files, issue templates, `docs/`. Any other file
 * (a `requirements.txt`, a `constraints.txt`, a data file a package reads) counts as shared.
 */
const INERT =
  /(^|\/)[^/]*\.(md|mdx|rst|adoc)$|(^|\/)(README|CHANGELOG|CHANGES|HISTORY|LICEN[CS]E|COPYING|NOTICE|AUTHORS|CONTRIBUTING|CODE_OF_CONDUCT|SECURITY)([-_.][^/]*)?$|^\.github\/(ISSUE_TEMPLATE|PULL_REQUEST_TEMPLATE)|^docs\//i;

/** Never inert, wherever they are: they decide what is installed. */
const NEVER_INERT = /(^|\/)(requirements|constraints)[^/]*\.(txt|in)$/i;

/** Whether a file outside every package is known documentation (see INERT). */
export function isInertDoc(path: string): boolean {
  return INERT.test(path) && !NEVER_INERT.test(path);
}

/** The package a file belongs to: the one with the longest folder containing it. */
export function ownerOf(ws: Workspace, path: string): WorkspacePackage | undefined {
  let best: WorkspacePackage | undefined;
  for (const p of ws.packages) {
    const inside = p.dir === '.' || path.startsWith(`${p.dir}/`);
    if (inside && (!best || best.dir === '.' || p.dir.length > best.dir.length)) best = p;
  }
  return best;
}

/**
 * The packages whose suites a change must run: those it changes files in, and every package that
 * depends on one of those (transitively, by the workspace's own dependency graph). A non-doc file
 * outside every package (the root lockfile, a shared config) may affect any of them: all run.
 */
export function affectedPackages(ws: Workspace, changed: string[]): Affected {
  const touched = new Set<string>();
  const shared: string[] = [];
  for (const path of changed) {
    const owner = ownerOf(ws, path);
    if (owner) touched.add(owner.dir);
    else if (!isInertDoc(path)) shared.push(path);
  }
  if (shared.length) return { packages: ws.packages.map((pkg) => ({ pkg, reason: touched.has(pkg.dir) ? 'changed' : 'shared' })), shared };
  const dependents = new Map<string, string[]>();
  for (const p of ws.packages) for (const d of p.dependsOn) dependents.set(d, [...(dependents.get(d) ?? []), p.dir]);
  // Breadth-first from the changed packages: each dependent remembers which changed packages reach it.
  const via = new Map<string, Set<string>>();
  for (const start of touched) {
    const queue = [start];
    const seen = new Set(queue);
    for (let current = queue.shift(); current !== undefined; current = queue.shift()) {
      for (const next of dependents.get(current) ?? []) {
        if (seen.has(next)) continue;
        seen.add(next);
        queue.push(next);
        if (!touched.has(next)) via.set(next, (via.get(next) ?? new Set()).add(start));
      }
    }
  }
  const packages: AffectedPackage[] = [];
  for (const pkg of ws.packages) {
    if (touched.has(pkg.dir)) packages.push({ pkg, reason: 'changed' });
    else {
      const from = via.get(pkg.dir);
      if (from) packages.push({ pkg, reason: 'dependent', via: [...from].sort() });
    }
  }
  return { packages, shared };
}
