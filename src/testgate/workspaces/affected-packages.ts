import type { Workspace, WorkspacePackage } from './workspace-types.js';

/** Why a package's suite runs for a change. */
export type RunReason = 'changed' | 'dependent' | 'shared';

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

/** Files that change no package's behaviour when they sit outside every package. */
const INERT =
  /(^|\/)[^/]*\.(md|mdx|rst|txt|adoc)$|^(LICENSE|NOTICE|AUTHORS|CHANGELOG)[^/]*$|^\.github\/(ISSUE_TEMPLATE|PULL_REQUEST_TEMPLATE)|^docs\//i;

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
    else if (!INERT.test(path)) shared.push(path);
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
