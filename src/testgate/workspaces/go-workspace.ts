import type { Revision } from '../../core/revision.js';
import { resolveRepoPath } from '../../repo/manifests/repo-path.js';
import { dirOf, NOT_A_PACKAGE, type Workspace, type WorkspacePackage } from './workspace-types.js';

/** The folders a go.work `use`s (`use ./a` and `use ( ./a ./b )`). */
export function goWorkUses(text: string): string[] {
  const out: string[] = [];
  const body = text.replace(/\/\/[^\n]*/g, '');
  for (const m of body.matchAll(/^\s*use\s*\(([^)]*)\)/gm)) out.push(...m[1]!.split(/\s+/).filter(Boolean));
  for (const m of body.matchAll(/^\s*use\s+([^\s(]+)/gm)) out.push(m[1]!);
  return out.map((u) => u.replace(/^"|"$/g, ''));
}

/** `module` path, required module paths and local `replace` targets of a go.mod. */
export function readGoMod(text: string): { module: string | null; requires: string[]; replaces: string[] } {
  const body = text.replace(/\/\/[^\n]*/g, '');
  const module = /^\s*module\s+"?([^\s"]+)"?/m.exec(body)?.[1] ?? null;
  const requires: string[] = [];
  const replaces: string[] = [];
  const block = (kw: string) => [...body.matchAll(new RegExp(`^\\s*${kw}\\s*\\(([^)]*)\\)`, 'gm'))].flatMap((m) => m[1]!.split('\n'));
  const single = (kw: string) => [...body.matchAll(new RegExp(`^\\s*${kw}\\s+([^(\\s][^\\n]*)$`, 'gm'))].map((m) => m[1]!);
  for (const line of [...block('require'), ...single('require')]) {
    const path = line.trim().split(/\s+/)[0];
    if (path) requires.push(path.replace(/^"|"$/g, ''));
  }
  for (const line of [...block('replace'), ...single('replace')]) {
    const target = /=>\s*(\S+)/.exec(line)?.[1];
    if (target && (target.startsWith('./') || target.startsWith('../'))) replaces.push(target);
  }
  return { module, requires, replaces };
}

/**
 * Go modules of one repository: the folders a root go.work uses, else every go.mod in the tree when
 * there is more than one. A module depends on another when its go.mod requires that module's path or
 * replaces something with that module's folder.
 */
export async function goWorkspace(rev: Revision): Promise<Workspace | null> {
  const paths = await rev.paths();
  const work = await rev.readText('go.work');
  let manifests: string[];
  let source: string;
  if (work !== null) {
    const dirs = goWorkUses(work)
      .map((u) => resolveRepoPath('.', u))
      .filter((d): d is string => d !== null);
    manifests = dirs.map((d) => (d === '.' || d === '' ? 'go.mod' : `${d}/go.mod`)).filter((m) => paths.includes(m));
    source = 'go.work';
  } else {
    manifests = paths.filter((p) => (p === 'go.mod' || p.endsWith('/go.mod')) && !NOT_A_PACKAGE.test(p));
    source = 'nested go.mod files';
  }
  manifests.sort();
  if (manifests.length < 2) return null;
  const mods = await Promise.all(
    manifests.map(async (m) => ({ manifest: m, dir: dirOf(m), mod: readGoMod((await rev.readText(m)) ?? '') })),
  );
  const dirByModule = new Map(mods.flatMap((m) => (m.mod.module ? [[m.mod.module, m.dir] as const] : [])));
  const dirs = new Set(mods.map((m) => m.dir));
  const packages: WorkspacePackage[] = mods.map(({ manifest, dir, mod }) => {
    const viaRequire = mod.requires.map((r) => dirByModule.get(r));
    const viaReplace = mod.replaces.map((r) => resolveRepoPath(dir, r) ?? undefined).map((d) => (d === '' ? '.' : d));
    const dependsOn = [...new Set([...viaRequire, ...viaReplace])]
      .filter((d): d is string => d !== undefined && dirs.has(d) && d !== dir)
      .sort();
    return { name: mod.module ?? dir, dir, manifest, dependsOn };
  });
  return { kind: 'go', source, packages };
}
