import { posix } from 'node:path';
import { readBlobs } from '../../core/git.js';
import type { GuardContext } from '../../core/guard.js';
import { docSites, sitesOf, siteCandidates } from './doc-sites.js';
import { markdownAnchors } from './heading-anchors.js';
import { editDistance } from '../../core/edit-distance.js';

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
 * Where GitHub looks for a relative link target: against the doc's folder, or from the repository
 * root for a leading `/`. Null when the path climbs out of the repository.
 */
export function githubPathFor(docPath: string, target: string): string | null {
  const path = decode(target).replace(/\\/g, '/');
  const joined = path.startsWith('/') ? path.replace(/^\/+/, '') : posix.join(posix.dirname(docPath), path);
  const norm = posix.normalize(joined).replace(/\/+$/, '');
  if (norm === '..' || norm.startsWith('../') || posix.isAbsolute(norm)) return null;
  return norm === '.' ? '' : norm;
}

export interface LocalResolution {
  /** The repo path the link reaches (GitHub's reading, or a docs site's), or null. */
  found: string | null;
  /** The paths looked at, for the message (GitHub's reading first). */
  tried: string[];
  /** When only the repository root has the target: the path to link instead (relative to the doc). */
  fromRoot?: { path: string; fix: string };
}

function exists(tree: HeadTree, path: string): boolean {
  return tree.files.has(path) || tree.dirs.has(path) || tree.submodules.some((s) => path.startsWith(`${s}/`));
}

/**
 * Where a local link target lives at head. GitHub's reading decides; a docs site (mkdocs, VitePress,
 * Docusaurus, Sphinx) that serves the doc adds the forms it resolves. A target that exists only when
 * read from the repository root (the usual mistake of a link moved into `docs/`) is not found, and
 * `fromRoot` carries the relative path that works.
 */
export async function resolveLocalTarget(docPath: string, target: string, ctx: GuardContext): Promise<LocalResolution> {
  const tree = await headTree(ctx);
  const github = githubPathFor(docPath, target);
  const tried = github === null ? [] : [github];
  if (github !== null && exists(tree, github)) return { found: github, tried };
  const path = decode(target).replace(/\\/g, '/');
  const sites = await docSites(ctx);
  for (const site of sitesOf(docPath, sites)) {
    for (const candidate of siteCandidates(docPath, path, site))
      if (exists(tree, candidate) && candidate !== '') return { found: candidate, tried };
  }
  // An absolute link in a repository that builds docs sites is a site URL; translations built by a
  // project's own tooling (not a config we can read) share the main site's root.
  if (path.startsWith('/') && /\.(md|mdx|markdown|rst)$/i.test(docPath)) {
    for (const site of sites) {
      for (const candidate of siteCandidates(docPath, path, site))
        if (exists(tree, candidate) && candidate !== '') return { found: candidate, tried };
    }
  }
  if (github !== null && !path.startsWith('/')) {
    const fromRoot = posix.normalize(path).replace(/\/+$/, '');
    if (fromRoot !== '.' && !fromRoot.startsWith('../') && fromRoot !== github && exists(tree, fromRoot)) {
      const rel = posix.relative(posix.dirname(docPath) === '.' ? '' : posix.dirname(docPath), fromRoot) || '.';
      return { found: null, tried, fromRoot: { path: fromRoot, fix: path.endsWith('/') ? `${rel}/` : rel } };
    }
  }
  return { found: null, tried };
}

/** The text of a head file, following symlinks inside the repository (a doc linked to ../README.md). */
async function readFollowingLinks(path: string, ctx: GuardContext): Promise<string | null> {
  const entries = await ctx.head.entries();
  let current = path;
  for (let hop = 0; hop < 8; hop++) {
    const entry = entries.get(current);
    if (!entry) return null;
    if (entry.mode !== '120000') return ctx.head.readText(current);
    const target = (await readBlobs(ctx.head.repoDir, [entry.oid], 4096)).get(entry.oid)?.content?.toString('utf8') ?? '';
    const next = posix.normalize(posix.join(posix.dirname(current), target.trim()));
    if (next.startsWith('../') || posix.isAbsolute(next)) return null;
    current = next;
  }
  return null;
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
  const source = text ?? (await readFollowingLinks(file, ctx));
  if (source === null) return null;
  // Content generated at build time (mkdocstrings/mkdocs-click `::: x` blocks) has anchors we cannot see.
  if (/^:::[ \t]+\S/m.test(source)) return null;
  // Inside a docs site the generator's own heading ids count too (VitePress slugs differ from GitHub's).
  const siteSlugs = sitesOf(file, await docSites(ctx)).some((s) => s.kind === 'vitepress' || s.kind === 'mkdocs');
  const anchors = await ctx.memo(`g14:anchors:${file}`, async () => {
    const own = markdownAnchors(file, source, { siteSlugs });
    // pymdownx.snippets `--8<-- "CONTRIBUTING.md"` pulls another file's headings into the page.
    for (const m of source.matchAll(/^[ \t]*-{1,3}8<-{1,3}[ \t]+["']([^"'\n]+)["']/gm)) {
      for (const candidate of [m[1]!, posix.join(posix.dirname(file), m[1]!)]) {
        const included = await readFollowingLinks(posix.normalize(candidate), ctx);
        if (included === null) continue;
        for (const a of markdownAnchors(candidate, included, { siteSlugs })) own.add(a);
        break;
      }
    }
    return own;
  });
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
