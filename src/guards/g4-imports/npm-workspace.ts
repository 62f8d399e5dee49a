import { posix } from 'node:path';
import picomatch from 'picomatch';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseYaml } from 'yaml';
import type { GuardContext } from '../../core/guard.js';
import { isRecord } from '../../core/is-record.js';
import { isSkippedPath } from '../../repo/manifests/index.js';

/**
 * The npm/pnpm/yarn workspace of a tree: its member packages with what each declares, and how its
 * package manager lays out node_modules. G4 uses it for the per-package rule: an import must be
 * declared by the manifest of the package that contains the file.
 *
 * - pnpm (pnpm-workspace.yaml, pnpm-lock.yaml or `packageManager: pnpm@…`) links each package's own
 *   dependencies into its own node_modules: a dependency only a sibling declares does not resolve.
 *   `node-linker=hoisted` or `shamefully-hoist=true` in .npmrc turn that off.
 * - Yarn Berry with Plug'n'Play (a .yarnrc.yml without `nodeLinker: node-modules`/`pnpm`) refuses any
 *   undeclared import, the root's included.
 * - npm and Yarn classic hoist everything to the root node_modules: an undeclared import works in the
 *   repository and breaks only where the package is installed or built on its own.
 * Node resolution walks up the directories, so the root's own dependencies resolve from every package
 * under pnpm too (its root node_modules holds them).
 */
export type Layout = 'isolated' | 'pnp' | 'hoisted';

export interface WorkspacePackage {
  /** Folder of the package.json ('' for the root). */
  dir: string;
  manifest: string;
  name: string | null;
  /** Declared dependency names (all four tables, lower-cased). */
  deps: Set<string>;
  private: boolean;
}

export interface NpmWorkspace {
  root: WorkspacePackage;
  /** Member packages (the root excluded), deepest folder first. */
  members: WorkspacePackage[];
  layout: Layout;
  manager: 'pnpm' | 'yarn' | 'npm';
  /** Names of every package of the workspace (lower-cased). */
  names: Set<string>;
  /** Folders of every package.json of the tree, members or not. */
  manifestDirs: Set<string>;
}

const DEP_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];

function readPackage(path: string, text: string): WorkspacePackage | null {
  const json: unknown = parseJsonc(text, [], { allowTrailingComma: true });
  if (!isRecord(json)) return null;
  const deps = new Set<string>();
  for (const field of DEP_FIELDS) {
    const table = json[field];
    if (isRecord(table)) for (const name of Object.keys(table)) deps.add(name.toLowerCase());
  }
  const dir = posix.dirname(path);
  return {
    dir: dir === '.' ? '' : dir,
    manifest: path,
    name: typeof json.name === 'string' && json.name.trim() ? json.name.trim().toLowerCase() : null,
    deps,
    private: json.private === true,
  };
}

/** Workspace globs of the root package.json (`workspaces: [...]` or `{ packages: [...] }`) and pnpm-workspace.yaml. */
function workspaceGlobs(rootJson: unknown, pnpmYaml: string | undefined): string[] {
  const out: string[] = [];
  if (isRecord(rootJson)) {
    const ws = rootJson.workspaces;
    const list = Array.isArray(ws) ? ws : isRecord(ws) && Array.isArray(ws.packages) ? ws.packages : [];
    for (const g of list) if (typeof g === 'string') out.push(g);
  }
  if (pnpmYaml !== undefined) {
    try {
      const doc: unknown = parseYaml(pnpmYaml);
      if (isRecord(doc) && Array.isArray(doc.packages)) for (const g of doc.packages) if (typeof g === 'string') out.push(g);
    } catch {
      // an unreadable pnpm-workspace.yaml names no packages (G2 reports its syntax)
    }
  }
  return out;
}

function layoutOf(manager: NpmWorkspace['manager'], npmrc: string | undefined, yarnrc: string | undefined): Layout {
  if (manager === 'pnpm') {
    if (npmrc && /^\s*(?:node-linker\s*=\s*hoisted|shamefully-hoist\s*=\s*true)\s*$/m.test(npmrc)) return 'hoisted';
    return 'isolated';
  }
  if (manager === 'yarn' && yarnrc !== undefined) {
    const linker = /^\s*nodeLinker\s*:\s*["']?([\w-]+)/m.exec(yarnrc)?.[1];
    if (linker === 'pnpm') return 'isolated';
    if (linker === 'node-modules') return 'hoisted';
    return 'pnp';
  }
  return 'hoisted';
}

/** The workspace of the head tree, or null when the repository is not an npm/pnpm/yarn workspace. */
export function npmWorkspace(ctx: GuardContext): Promise<NpmWorkspace | null> {
  return ctx.memo('g4:npm-workspace', async () => {
    const paths = (await ctx.head.paths()).filter((p) => !isSkippedPath(p));
    const manifests = paths.filter((p) => p === 'package.json' || p.endsWith('/package.json'));
    if (!manifests.includes('package.json')) return null;
    const extra = ['pnpm-workspace.yaml', '.npmrc', '.yarnrc.yml'].filter((p) => paths.includes(p));
    const texts = await ctx.head.readTexts([...manifests.slice(0, 2000), ...extra]);
    const rootText = texts.get('package.json');
    if (rootText === undefined) return null;
    const rootJson: unknown = parseJsonc(rootText, [], { allowTrailingComma: true });
    const globs = workspaceGlobs(rootJson, texts.get('pnpm-workspace.yaml'));
    if (globs.length === 0) return null;
    const include = globs.filter((g) => !g.startsWith('!')).map((g) => g.replace(/^\.\//, '').replace(/\/$/, ''));
    const exclude = globs.filter((g) => g.startsWith('!')).map((g) => g.slice(1).replace(/^\.\//, '').replace(/\/$/, ''));
    const isMember = picomatch(include, { dot: false, ignore: exclude });
    const root = readPackage('package.json', rootText);
    if (!root) return null;
    const members: WorkspacePackage[] = [];
    for (const m of manifests) {
      if (m === 'package.json') continue;
      const text = texts.get(m);
      const dir = posix.dirname(m);
      if (text === undefined || !isMember(dir)) continue;
      const pkg = readPackage(m, text);
      if (pkg) members.push(pkg);
    }
    members.sort((a, b) => b.dir.length - a.dir.length);
    const packageManager = isRecord(rootJson) && typeof rootJson.packageManager === 'string' ? rootJson.packageManager : '';
    const manager: NpmWorkspace['manager'] =
      paths.includes('pnpm-workspace.yaml') || paths.includes('pnpm-lock.yaml') || packageManager.startsWith('pnpm@')
        ? 'pnpm'
        : paths.includes('yarn.lock') || packageManager.startsWith('yarn@')
          ? 'yarn'
          : 'npm';
    const names = new Set<string>();
    for (const p of [root, ...members]) if (p.name) names.add(p.name);
    const manifestDirs = new Set(manifests.map((m) => posix.dirname(m)));
    return { root, members, layout: layoutOf(manager, texts.get('.npmrc'), texts.get('.yarnrc.yml')), manager, names, manifestDirs };
  });
}

/**
 * The member package that owns `path`: the nearest package.json above the file, when that one is a
 * workspace member. Null for files of the root package and of nested projects outside the workspace.
 */
export function packageOf(ws: NpmWorkspace, path: string): WorkspacePackage | null {
  for (let dir = posix.dirname(path); dir !== '.' && dir !== ''; dir = posix.dirname(dir)) {
    if (ws.manifestDirs.has(dir)) return ws.members.find((m) => m.dir === dir) ?? null;
  }
  return null;
}
