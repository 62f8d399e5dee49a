import type { Revision } from '../../core/revision.js';

/** JavaScript and TypeScript sources, declaration files included. */
export const SCRIPT = /\.(?:[cm]?[jt]sx?)$/;
/** Declaration files: ambient types the project's own tsconfig would include. */
export const DECLARATION = /\.d\.[cm]?ts$/;
/** Folders of generated or installed code: never loaded (their imports stay unresolved, i.e. `any`). */
const SKIPPED_DIR = /(?:^|\/)(?:node_modules|dist|build|out|coverage|vendor|\.git|\.next|\.nuxt)\//;
const MINIFIED = /\.min\.[cm]?js$/;

/** What one program may load from a tree: bounded so that a huge monorepo costs a bounded time. */
export interface TreeLimits {
  /** Source files read from the tree (the rest stays unresolved). */
  maxFiles: number;
  /** Total bytes of those files. */
  maxBytes: number;
}

export const DEFAULT_TREE_LIMITS: TreeLimits = { maxFiles: 4000, maxBytes: 24 * 1024 * 1024 };

/** The texts of a tree the probe may see: its JS/TS sources (capped), package.json files and the root tsconfig. */
export interface TreeFiles {
  /** Repo-relative path → text. */
  files: Map<string, string>;
  /** True when the tree had more sources than the limits allowed. */
  truncated: boolean;
}

/** Length of the common directory prefix of two paths, in path segments. */
function sharedDepth(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  let n = 0;
  while (n < x.length - 1 && n < y.length - 1 && x[n] === y[n]) n++;
  return n;
}

/**
 * Reads the sources of `rev` that a program over `wanted` may need. When the tree is larger than the
 * limits, the wanted files come first, then the files sharing the deepest folder with one of them.
 */
export function loadTree(rev: Revision, wanted: readonly string[], limits: TreeLimits): Promise<TreeFiles> {
  return loadTreeWhere(
    rev,
    (p) => (SCRIPT.test(p) || p.endsWith('package.json') || p === 'tsconfig.json') && !SKIPPED_DIR.test(p) && !MINIFIED.test(p),
    wanted,
    limits,
  );
}

/** {@link loadTree} over the tree files `include` accepts (G17's Python half reads `.py`/`.pyi` this way). */
export async function loadTreeWhere(
  rev: Revision,
  include: (path: string) => boolean,
  wanted: readonly string[],
  limits: TreeLimits,
): Promise<TreeFiles> {
  const all = (await rev.paths()).filter(include);
  const wantedSet = new Set(wanted);
  const rank = (p: string) => (wantedSet.has(p) ? 1000 : Math.max(0, ...wanted.map((w) => sharedDepth(p, w))));
  const ordered = all.length > limits.maxFiles ? [...all].sort((a, b) => rank(b) - rank(a) || a.localeCompare(b)) : all;
  const picked = ordered.slice(0, limits.maxFiles);
  const texts = await rev.readTexts(picked);
  const files = new Map<string, string>();
  let bytes = 0;
  let truncated = picked.length < all.length;
  for (const p of picked) {
    const text = texts.get(p);
    if (text === undefined) continue;
    if (bytes + text.length > limits.maxBytes && !wantedSet.has(p)) {
      truncated = true;
      continue;
    }
    bytes += text.length;
    files.set(p, text);
  }
  return { files, truncated };
}
