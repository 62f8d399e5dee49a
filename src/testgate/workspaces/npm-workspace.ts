import { parse as parseJsonc } from 'jsonc-parser';
import picomatch from 'picomatch';
import { isRecord } from '../../core/is-record.js';
import type { Revision } from '../../core/revision.js';
import { detectPackageManager, workspaceGlobs } from '../deps/npm-deps.js';
import { dirOf, NOT_A_PACKAGE, type Workspace } from './workspace-types.js';

const DEP_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];

function readJson(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  const v: unknown = parseJsonc(text);
  return isRecord(v) ? v : null;
}

/**
 * An npm, pnpm or yarn workspace: the members listed by the root package.json's `workspaces` (or
 * `workspaces.packages`) or by pnpm-workspace.yaml. A member depends on another when one of its
 * dependency fields names it (any specifier: `workspace:*`, `file:../b`, a version range).
 */
export async function npmWorkspace(rev: Revision): Promise<Workspace | null> {
  const root = readJson(await rev.readText('package.json'));
  const pnpmFile = await rev.readText('pnpm-workspace.yaml');
  if (!root && pnpmFile === null) return null;
  const globs = workspaceGlobs(root ?? {}, pnpmFile);
  const include = globs.filter((g) => !g.startsWith('!'));
  if (include.length === 0) return null;
  const isMember = picomatch(
    include.map((g) => `${g.replace(/^\.\//, '').replace(/\/+$/, '')}/package.json`),
    { ignore: globs.filter((g) => g.startsWith('!')).map((g) => `${g.slice(1).replace(/^\.\//, '').replace(/\/+$/, '')}/package.json`) },
  );
  const paths = await rev.paths();
  const manifests = paths
    .filter((p) => p !== 'package.json' && p.endsWith('/package.json') && !NOT_A_PACKAGE.test(p) && isMember(p))
    .sort();
  const read = await Promise.all(manifests.map(async (m) => ({ manifest: m, pkg: readJson(await rev.readText(m)) ?? {} })));
  const dirByName = new Map<string, string>();
  for (const { manifest, pkg } of read) if (typeof pkg.name === 'string') dirByName.set(pkg.name, dirOf(manifest));
  const packages = read.map(({ manifest, pkg }) => {
    const dir = dirOf(manifest);
    const names = DEP_FIELDS.flatMap((f) => (isRecord(pkg[f]) ? Object.keys(pkg[f]) : []));
    const dependsOn = [...new Set(names.map((n) => dirByName.get(n)).filter((d): d is string => d !== undefined && d !== dir))].sort();
    return { name: typeof pkg.name === 'string' ? pkg.name : dir, dir, manifest, dependsOn };
  });
  const pm = detectPackageManager(root ?? {}, new Set(paths)).pm;
  const kind = pnpmFile !== null ? 'pnpm' : pm === 'yarn' ? 'yarn' : pm === 'pnpm' ? 'pnpm' : 'npm';
  return { kind, source: pnpmFile !== null ? 'pnpm-workspace.yaml' : 'package.json workspaces', packages };
}
