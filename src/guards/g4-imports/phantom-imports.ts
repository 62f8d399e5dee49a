import { posix } from 'node:path';
import { isTestPath } from '../shared/test-paths.js';
import { packageOf, type NpmWorkspace, type WorkspacePackage } from './npm-workspace.js';

/**
 * The per-package rule of G4 for npm workspaces: a package that imports a dependency its own
 * package.json does not declare (a "phantom" dependency) works only while something else installs it.
 *
 *   declared by        layout (npm-workspace.ts)      file ships (source)           file does not ship (tests, configs, scripts)
 *   the root only      hoisted or isolated            fail if the package is        nothing: the root's tooling is meant
 *                                                     published, else risk          for every package
 *   a sibling only     isolated (pnpm)                fail: it does not resolve     fail: it does not resolve
 *                      hoisted (npm, yarn classic)    fail if published, else risk  risk
 *   anyone but itself  Plug'n'Play (yarn berry)       fail: PnP refuses it          fail
 *
 * A published package (no `"private": true`) is installed by others without the workspace root, so
 * whatever only the root or a sibling declares is missing there. Imports of workspace packages
 * themselves are not judged here (path aliases and bundlers resolve siblings in many setups).
 */
export interface Phantom {
  severity: 'fail' | 'risk';
  pkg: WorkspacePackage;
  /** Manifests that do declare the dependency. */
  declaredBy: string[];
  /** Why it breaks (or may), in a sentence. */
  why: string;
}

/** Files a published package ships: not tests, configs, scripts, stories, examples or docs. */
export function isShippedSource(path: string): boolean {
  const base = posix.basename(path);
  if (isTestPath(path) || base.startsWith('.')) return false;
  if (/\.(?:config|setup|stories|story)\.[cm]?[jt]sx?$|\.mdx?$/.test(base)) return false;
  return !/(^|\/)(?:scripts?|examples?|bench(?:marks?)?|e2e|fixtures?|stories|docs?|\.storybook|playground|tools?)\//.test(path);
}

function typesName(name: string): string {
  return name.startsWith('@') ? `@types/${name.slice(1).replace('/', '__')}` : `@types/${name}`;
}

export function phantomOf(ws: NpmWorkspace, path: string, name: string): Phantom | null {
  const pkg = packageOf(ws, path);
  if (!pkg) return null;
  if (pkg.deps.has(name) || pkg.deps.has(typesName(name)) || ws.names.has(name)) return null;
  const byRoot = ws.root.deps.has(name) || ws.root.deps.has(typesName(name));
  const siblings = ws.members.filter((m) => m !== pkg && (m.deps.has(name) || m.deps.has(typesName(name)))).map((m) => m.manifest);
  if (!byRoot && siblings.length === 0) return null; // declared nowhere: the ungrounded-import rule says so
  const declaredBy = [...(byRoot ? [ws.root.manifest] : []), ...siblings];
  const shipped = isShippedSource(path);
  const published = !pkg.private;
  if (ws.layout === 'pnp')
    return { severity: 'fail', pkg, declaredBy, why: "Yarn Plug'n'Play refuses an import the package does not declare itself" };
  if (byRoot) {
    if (!shipped) return null;
    return published
      ? {
          severity: 'fail',
          pkg,
          declaredBy,
          why: 'the package is published (no "private": true), and whoever installs it does not get the workspace root’s dependencies',
        }
      : {
          severity: 'risk',
          pkg,
          declaredBy,
          why: 'it resolves only through the workspace root’s node_modules, so building or deploying the package on its own breaks',
        };
  }
  if (ws.layout === 'isolated')
    return {
      severity: 'fail',
      pkg,
      declaredBy,
      why: 'pnpm links each package’s own dependencies only, so the import does not resolve from this package',
    };
  if (shipped && published)
    return {
      severity: 'fail',
      pkg,
      declaredBy,
      why: 'the package is published (no "private": true), and whoever installs it does not get its siblings’ dependencies',
    };
  return {
    severity: 'risk',
    pkg,
    declaredBy,
    why: `it works only because ${ws.manager} hoists every package’s dependencies to the root node_modules`,
  };
}
