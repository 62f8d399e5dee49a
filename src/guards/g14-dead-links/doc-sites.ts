import { posix } from 'node:path';
import type { GuardContext } from '../../core/guard.js';

/**
 * Documentation sites a repository builds. GitHub renders every Markdown file on its own and resolves
 * links against the file's folder; a docs generator resolves more (extension-less pages, `.html` for
 * `.md`, absolute links from its docs root, a `public/` or `static/` folder). A link in a doc under a
 * site's root is accepted when either reading finds the target.
 */
export type DocSiteKind = 'mkdocs' | 'vitepress' | 'docusaurus' | 'sphinx';

export interface DocSite {
  kind: DocSiteKind;
  /** The folder holding the site's pages ('' = repository root). */
  root: string;
  /** Folders served at the site root besides the pages (VitePress `public/`, Docusaurus `static/`). */
  assetRoots: string[];
  /** The config file that told us. */
  config: string;
}

const dirOf = (path: string) => (posix.dirname(path) === '.' ? '' : posix.dirname(path));
const join = (...parts: string[]) => posix.join(...parts.filter(Boolean)).replace(/^\.$/, '');

/** `docs_dir` of an mkdocs.yml, read with a line pattern (the file may hold `!!python/name:` tags). */
export function mkdocsDocsDir(text: string | null): string {
  const m = /^docs_dir[ \t]*:[ \t]*['"]?([^'"\s#]+)['"]?/m.exec(text ?? '');
  return m ? m[1]!.replace(/\/+$/, '') : 'docs';
}

/** `srcDir` of a VitePress config, when it is a plain string literal. */
function vitepressSrcDir(text: string | null): string {
  const m = /\bsrcDir[ \t]*:[ \t]*['"`]([^'"`\n]+)['"`]/.exec(text ?? '');
  return m ? m[1]!.replace(/^\.\/?/, '').replace(/\/+$/, '') : '';
}

/** Every docs site of the head tree (memoised per run). */
export function docSites(ctx: GuardContext): Promise<DocSite[]> {
  return ctx.memo('g14:doc-sites', async () => {
    const entries = await ctx.head.entries();
    const paths = [...entries.keys()].filter((p) => !/(^|\/)node_modules\//.test(p));
    const sites: DocSite[] = [];
    for (const path of paths) {
      const base = path.slice(path.lastIndexOf('/') + 1);
      const dir = dirOf(path);
      if (base === 'mkdocs.yml' || base === 'mkdocs.yaml') {
        sites.push({ kind: 'mkdocs', root: join(dir, mkdocsDocsDir(await ctx.head.readText(path))), assetRoots: [], config: path });
      } else if (/(^|\/)\.vitepress\/config\.(?:js|ts|mjs|mts|cjs|cts)$/.test(path)) {
        const siteDir = dirOf(dir);
        const root = join(siteDir, vitepressSrcDir(await ctx.head.readText(path)));
        sites.push({ kind: 'vitepress', root, assetRoots: [join(root, 'public')], config: path });
      } else if (/^docusaurus\.config\.(?:js|ts|mjs|cjs|mts|cts)$/.test(base)) {
        sites.push({ kind: 'docusaurus', root: dir, assetRoots: [join(dir, 'static')], config: path });
      } else if (base === 'conf.py' && ['index.rst', 'index.md', 'contents.rst'].some((i) => entries.has(join(dir, i)))) {
        sites.push({ kind: 'sphinx', root: dir, assetRoots: [], config: path });
      }
    }
    return sites;
  });
}

/** The sites whose pages include `docPath` (deepest root first). */
export function sitesOf(docPath: string, sites: DocSite[]): DocSite[] {
  return sites.filter((s) => s.root === '' || docPath.startsWith(`${s.root}/`)).sort((a, b) => b.root.length - a.root.length);
}

/**
 * The page files a generator serves for a link path: the path itself, an extension-less page
 * (`guide/intro` → `guide/intro.md`), `.html` for `.md`/`.rst`, and a folder's index page.
 */
export function pageForms(path: string): string[] {
  const clean = path.replace(/\/+$/, '');
  const forms = [clean];
  const stem = clean.replace(/\.html?$/i, '');
  if (/\.html?$/i.test(clean) || !/\.[A-Za-z0-9]+$/.test(clean)) forms.push(`${stem}.md`, `${stem}.mdx`, `${stem}.rst`);
  for (const index of ['index.md', 'index.mdx', 'README.md', 'index.rst']) forms.push(join(clean, index));
  return [...new Set(forms)];
}

/**
 * Repo paths a docs site may serve for `target` written in `docPath`: relative to the doc's folder,
 * and for a leading `/` relative to the site root and its asset folders. Docusaurus also serves
 * `/docs/x` from its `docs/` folder. Paths that climb out of the repository are dropped.
 */
export function siteCandidates(docPath: string, target: string, site: DocSite): string[] {
  const bases = target.startsWith('/')
    ? [site.root, ...site.assetRoots].map((r) => join(r, target.replace(/^\/+/, '')))
    : [join(dirOf(docPath), target)];
  // MkDocs serves `guide/page.md` at `guide/page/` (directory URLs): raw HTML and images written
  // relative to that URL are one level deeper than the file.
  if (site.kind === 'mkdocs' && !target.startsWith('/') && !/(^|\/)(index|README)\.md$/i.test(docPath)) {
    bases.push(join(docPath.replace(/\.(md|markdown)$/i, ''), target));
  }
  const out: string[] = [];
  for (const b of bases) {
    const norm = posix.normalize(b);
    if (norm === '..' || norm.startsWith('../')) continue;
    for (const form of pageForms(norm === '.' ? '' : norm)) if (!out.includes(form)) out.push(form);
  }
  return out;
}
