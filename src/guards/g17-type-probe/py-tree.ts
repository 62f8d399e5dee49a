import type { Revision } from '../../core/revision.js';
import { DEFAULT_TREE_LIMITS, loadTreeWhere, type TreeFiles } from './tree-files.js';

/** Python sources and stubs. */
export const PYTHON = /\.pyi?$/;
/** Folders of virtual environments, installed or generated code: never read (imports of them are not the tree's). */
const SKIPPED_DIR = /(?:^|\/)(?:\.?venv|env|site-packages|node_modules|build|dist|\.tox|\.nox|\.git|__pycache__|\.mypy_cache)\//;

/** Reads the Python sources of `rev` (bounded like the JS/TS tree), the `wanted` files first. */
export function loadPyTree(rev: Revision, wanted: readonly string[]): Promise<TreeFiles> {
  return loadTreeWhere(rev, (p) => PYTHON.test(p) && !SKIPPED_DIR.test(p), wanted, DEFAULT_TREE_LIMITS);
}

const dirOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');

/** The tree files a dotted module may be (`a.b` → `a/b.py`, `a/b/__init__.py`, the stubs), from `root` ('' or a folder). */
function candidatesOf(module: string, root: string): string[] {
  const rel = module.split('.').join('/');
  const at = root ? `${root}/${rel}` : rel;
  return [`${at}.py`, `${at}.pyi`, `${at}/__init__.py`, `${at}/__init__.pyi`];
}

/** The statements `import a.b, c as d` and `from x import (y, z)` of a file: the modules each may refer to. */
function importedModules(text: string, path: string): { module: string; relative: boolean }[] {
  const out: { module: string; relative: boolean }[] = [];
  for (const m of text.matchAll(/^[ \t]*import[ \t]+([\w. \t,]+)/gm)) {
    for (const part of m[1]!.split(',')) {
      const name = part.trim().split(/\s+/)[0];
      if (name) out.push({ module: name, relative: false });
    }
  }
  for (const m of text.matchAll(/^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)/gm)) {
    const dots = m[1]!.length;
    let base = m[2]!;
    if (dots > 0) {
      // relative to the importing file's package: one dot is its own folder, each further dot one folder up
      const parts = dirOf(path).split('/').filter(Boolean);
      if (dots - 1 > parts.length) continue;
      const pkg = parts.slice(0, parts.length - (dots - 1));
      base = [...pkg, ...(base ? base.split('.') : [])].join('.');
    }
    const names = m[3]!
      .replace(/[()\\]/g, ' ')
      .split(',')
      .map((n) => n.trim().split(/\s+/)[0] ?? '')
      .filter((n) => /^\w+$/.test(n));
    const relative = dots > 0;
    if (base) out.push({ module: base, relative });
    for (const n of names) out.push({ module: base ? `${base}.${n}` : n, relative });
  }
  return out;
}

/**
 * Whether the file `path` imports one of `changed`: an absolute import resolved from the tree root,
 * from `src/` and from the importing file's own folder (pyright resolves all three); a relative one
 * from the file's package.
 */
export function importsOneOf(path: string, text: string, changed: ReadonlySet<string>): boolean {
  const dir = dirOf(path);
  return importedModules(text, path).some(({ module, relative }) => {
    const roots = relative ? [''] : ['', 'src', ...(dir ? [dir] : [])];
    return roots.some((root) => candidatesOf(module, root).some((c) => changed.has(c)));
  });
}

/** The file name without folders and extension (`app/merger.py` → `merger`; a package's `__init__` → its folder). */
function stem(path: string): string {
  const parts = path.replace(PYTHON, '').split('/');
  const last = parts.pop() ?? '';
  return last === '__init__' ? (parts.pop() ?? '') : last;
}

/**
 * Unchanged files of the tree that import one of `targets` (changed files whose changed declarations
 * can break them); at most `max`. `changed` are every changed file, which are checked anyway.
 */
export function pyImportersOf(
  files: ReadonlyMap<string, string>,
  targets: ReadonlySet<string>,
  changed: ReadonlySet<string>,
  max: number,
): string[] {
  const stems = [...new Set([...targets].map(stem))].filter((s) => s.length > 0);
  const out: string[] = [];
  for (const [path, text] of files) {
    if (out.length >= max) break;
    if (changed.has(path) || !stems.some((s) => text.includes(s))) continue;
    if (importsOneOf(path, text, targets)) out.push(path);
  }
  return out;
}
