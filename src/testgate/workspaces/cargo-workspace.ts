import picomatch from 'picomatch';
import type { Revision } from '../../core/revision.js';
import { resolveRepoPath } from '../../repo/manifests/repo-path.js';
import { dig, isTable, readToml, stringsOf, type Table } from '../../repo/manifests/toml-read.js';
import { dirOf, NOT_A_PACKAGE, type Workspace, type WorkspacePackage } from './workspace-types.js';

const DEP_TABLES = ['dependencies', 'dev-dependencies', 'build-dependencies'];

/** Every dependency table of a Cargo.toml, target-specific ones included. */
function depTables(toml: Table): Table[] {
  const out: Table[] = [];
  for (const t of DEP_TABLES) if (isTable(toml[t])) out.push(toml[t]);
  if (isTable(toml.target))
    for (const spec of Object.values(toml.target)) for (const t of DEP_TABLES) if (isTable(dig(spec, t))) out.push(dig(spec, t) as Table);
  return out;
}

/**
 * A cargo workspace: the `[workspace] members` globs of the root Cargo.toml (minus `exclude`), and the
 * root package when the root manifest has one. A member depends on another through a `path`
 * dependency, directly or through `[workspace.dependencies]` (`foo.workspace = true`).
 */
export async function cargoWorkspace(rev: Revision): Promise<Workspace | null> {
  const rootText = await rev.readText('Cargo.toml');
  if (rootText === null) return null;
  const root = readToml(rootText);
  const members = stringsOf(dig(root, 'workspace', 'members'));
  if (members.length === 0) return null;
  const exclude = stringsOf(dig(root, 'workspace', 'exclude'));
  const isMember = picomatch(
    members.map((g) => `${g.replace(/^\.\//, '').replace(/\/+$/, '')}/Cargo.toml`),
    {
      ignore: exclude.map((g) => `${g.replace(/^\.\//, '').replace(/\/+$/, '')}/Cargo.toml`),
    },
  );
  const paths = await rev.paths();
  const manifests = paths.filter((p) => p.endsWith('/Cargo.toml') && !NOT_A_PACKAGE.test(p) && isMember(p));
  if (isTable(root.package)) manifests.push('Cargo.toml');
  manifests.sort();
  const crates = await Promise.all(
    manifests.map(async (m) => ({ manifest: m, dir: dirOf(m), toml: m === 'Cargo.toml' ? root : readToml((await rev.readText(m)) ?? '') })),
  );
  const dirs = new Set(crates.map((c) => c.dir));
  const shared = isTable(dig(root, 'workspace', 'dependencies')) ? (dig(root, 'workspace', 'dependencies') as Table) : {};
  const packages: WorkspacePackage[] = crates.map(({ manifest, dir, toml }) => {
    const deps = new Set<string>();
    for (const table of depTables(toml)) {
      for (const [name, spec] of Object.entries(table)) {
        let target: string | null = null;
        if (isTable(spec) && typeof spec.path === 'string') target = resolveRepoPath(dir, spec.path);
        else if (isTable(spec) && spec.workspace === true) {
          const path = dig(shared, name, 'path');
          if (typeof path === 'string') target = resolveRepoPath('.', path);
        }
        const d = target === '' ? '.' : target;
        if (d && dirs.has(d) && d !== dir) deps.add(d);
      }
    }
    const name = dig(toml, 'package', 'name');
    return { name: typeof name === 'string' ? name : dir, dir, manifest, dependsOn: [...deps].sort() };
  });
  return packages.length >= 2 ? { kind: 'cargo', source: 'Cargo.toml [workspace]', packages } : null;
}
