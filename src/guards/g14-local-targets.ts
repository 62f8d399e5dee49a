import { posix } from 'node:path';
import type { GuardContext } from '../core/guard.js';
import { markdownAnchors } from './g14-heading-anchors.js';
import { editDistance } from '../core/edit-distance.js';

interface HeadTree {
  files: Set<string>;
  dirs: Set<string>;
  /** Submodule paths: anything below them cannot be checked. */
  submodules: string[];
}

function headTree(ctx: GuardContext): Promise<HeadTree> {
  return ctx.memo('g14:head-tree', async () => {
    const entries = await ctx.head.entries();
    const files = new Set<string>();
    const dirs = new Set<string>(['']);
    const submodules: string[] = [];
    for (const [path, entry] of entries) {
      if (entry.mode === '160000') submodules.push(path);
      files.add(path);
      for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) dirs.add(path.slice(0, i));
    }
    return { files, dirs, submodules };
  });
}

function decode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * Repo-relative candidates for a link target: beside the doc, then from the repo root (a leading
 * `/` means the repo root only). Candidates that climb out of the repository are dropped.
 */
export function candidatesFor(docPath: string, target: string): string[] {
  const path = decode(target).replace(/\\/g, '/');
  const raw = path.startsWith('/') ? [path.replace(/^\/+/, '')] : [posix.join(posix.dirname(docPath), path), path];
  const out: string[] = [];
  for (const candidate of raw) {
    const norm = posix.normalize(candidate).replace(/\/+$/, '');
    if (norm === '..' || norm.startsWith('../') || posix.isAbsolute(norm)) continue;
    const clean = norm === '.' ? '' : norm;
    if (!out.includes(clean)) out.push(clean);
  }
  return out;
}

/**
 * Other spellings of a doc target that docs generators accept (MkDocs, Docusaurus, Sphinx): an
 * extension-less page, `page.html` for `page.md`/`page.rst`, and a folder's README/index page.
 */
function docsSiteForms(path: string): string[] {
  const stem = path.replace(/\.html?$/i, '');
  const forms = [`${stem}.md`, `${stem}.mdx`, `${stem}.rst`];
  return /\.html?$/i.test(path) || !/\.[A-Za-z0-9]+$/.test(path) ? forms : [];
}

/** Where a local link target lives at head, with the paths that were tried. */
export async function resolveLocalTarget(docPath: string, target: string, ctx: GuardContext): Promise<{ found: string | null; tried: string[] }> {
  const tree = await headTree(ctx);
  const tried = candidatesFor(docPath, target);
  for (const candidate of tried) {
    if (tree.files.has(candidate) || tree.dirs.has(candidate)) return { found: candidate, tried };
    if (tree.submodules.some((s) => candidate.startsWith(`${s}/`))) return { found: candidate, tried };
  }
  for (const candidate of tried) {
    for (const form of docsSiteForms(candidate)) if (tree.files.has(form)) return { found: form, tried };
  }
  return { found: null, tried };
}

export interface AnchorProblem {
  /** The doc whose anchors were searched. */
  file: string;
  fragment: string;
  closest?: string;
}

/**
 * Checks `#fragment` against the anchors of a Markdown file at head. Non-Markdown targets, GitHub
 * line anchors (`#L10`, `#L10-L20`) and empty fragments are not checked.
 */
export async function checkAnchor(file: string, fragment: string, ctx: GuardContext, text?: string): Promise<AnchorProblem | null> {
  const wanted = decode(fragment).toLowerCase();
  if (!wanted || /^l\d+(-l\d+)?$/.test(wanted) || !/\.(md|mdx|markdown)$/i.test(file)) return null;
  const source = text ?? (await ctx.head.readText(file));
  if (source === null) return null;
  const anchors = await ctx.memo(`g14:anchors:${file}`, async () => markdownAnchors(file, source));
  if (anchors.has(wanted)) return null;
  let closest: string | undefined;
  let best = Infinity;
  for (const anchor of anchors) {
    const d = editDistance(wanted, anchor);
    if (d < best) {
      best = d;
      closest = anchor;
    }
  }
  return { file, fragment, ...(closest !== undefined && best <= Math.max(2, Math.floor(wanted.length / 4)) ? { closest } : {}) };
}
