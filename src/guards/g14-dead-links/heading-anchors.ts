import { codeBlocksOf } from '../../core/fenced-blocks.js';

/**
 * GitHub's heading slug: the rendered heading text lower-cased, every character that is not a
 * letter, digit, mark, space, hyphen or underscore removed, and each space turned into a hyphen.
 */
export function githubSlug(heading: string): string {
  return renderedText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/**
 * The heading id VitePress (markdown-it-anchor with @mdit-vue's slugify) and similar generators give:
 * accents stripped, runs of spaces and punctuation turned into one hyphen, trimmed, lower-cased, and a
 * leading digit prefixed with `_`.
 */
export function siteSlug(heading: string): string {
  return renderedText(heading)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\u0000-\u001f]/g, '')
    .replace(/[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .replace(/^(\d)/, '_$1')
    .toLowerCase();
}

/**
 * Heading source → the text GitHub shows (links, images, code ticks, emphasis and HTML tags removed).
 * Every repetition is bounded, so a hostile heading costs linear time, not a rescan per bracket.
 */
function renderedText(source: string): string {
  // Code spans keep their text as written (`<VPTeamMembers>` is text, not a tag); the rest is rendered.
  return source
    .split(/(`+[^`]*`+)/)
    .map((part, i) => (i % 2 === 1 ? part.replace(/`/g, '') : renderedProse(part)))
    .join('')
    .trim();
}

function renderedProse(source: string): string {
  return source
    .replace(/!\[([^\]\n]{0,500})\]\([^)\n]{0,2000}\)/g, '$1')
    .replace(/\[([^\]\n]{0,500})\]\([^)\n]{0,2000}\)/g, '$1')
    .replace(/\[([^\]\n]{0,500})\]\[[^\]\n]{0,500}\]/g, '$1')
    .replace(/<[^<>\n]{1,2000}>/g, '')
    .replace(/`+/g, '')
    .replace(/(\*\*|__)([^\n]{1,500}?)\1/g, '$2')
    .replace(/(^|\W)[*_](\S(?:[^\n]{0,500}?\S)?)[*_](?=\W|$)/g, '$1$2')
    .replace(/~~([^\n]{1,500}?)~~/g, '$1');
}

const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const INLINE_ATTR_ID = /\{:?[ \t]{0,20}(?:[.\w-]{1,100}[ \t]{1,20}){0,10}#([\w.:-]{1,200})[^}\n]{0,500}\}/g;
const HTML_ID = /<[a-z][^<>]{0,1000}?\s(?:id|name)\s*=\s*["']([^"'<>\n]{1,500})["']/gi;

/** The text of an ATX heading (`## Title ##` → `Title`), or null; parsed by hand to stay linear. */
export function atxHeading(raw: string): string | null {
  // A heading inside a block quote (`> #### name`) gets an anchor too.
  let q = 0;
  while (q < raw.length && q < 64 && (raw[q] === '>' || raw[q] === ' ')) q++;
  const line = raw.slice(0, q).includes('>') ? raw.slice(q) : raw;
  let i = 0;
  while (i < 3 && line[i] === ' ') i++;
  let hashes = 0;
  while (line[i + hashes] === '#') hashes++;
  if (hashes < 1 || hashes > 6) return null;
  i += hashes;
  if (i < line.length && line[i] !== ' ' && line[i] !== '\t') return null;
  let end = line.length;
  while (end > i && (line[end - 1] === ' ' || line[end - 1] === '\t')) end--;
  // an optional closing sequence of #s, preceded by a space
  let k = end;
  while (k > i && line[k - 1] === '#') k--;
  if (k < end && (k === i || line[k - 1] === ' ' || line[k - 1] === '\t')) {
    end = k;
    while (end > i && (line[end - 1] === ' ' || line[end - 1] === '\t')) end--;
  }
  return line.slice(i, end).trim();
}

/** A trailing `{#custom-id …}` attribute of a heading: the id and where the attribute starts, or null. */
export function customHeadingId(raw: string): { id: string; at: number } | null {
  const text = raw.trimEnd();
  if (!text.endsWith('}')) return null;
  const at = text.lastIndexOf('{');
  if (at < 0) return null;
  // `{#id}`, and the attr_list forms `{ #id }`, `{: #id .class }` of Python-Markdown (MkDocs)
  const m = /^\{:?[ \t]*(?:[.\w-]+[ \t]+)*#([\w.:-]+)[^}]*\}$/.exec(text.slice(at));
  return m ? { id: m[1]!, at } : null;
}

/**
 * Every anchor a Markdown file offers: heading slugs (duplicates get -1, -2 … as on GitHub),
 * `{#custom-id}` heading attributes of docs generators, and `id`/`name` attributes of HTML tags.
 * Anchors are returned lower-cased; compare fragments lower-cased too.
 */
export function markdownAnchors(path: string, text: string, opts: { siteSlugs?: boolean } = {}): Set<string> {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const inCode = new Set<number>();
  for (const block of codeBlocksOf(path, text)) {
    const last = block.closeLine ?? block.body.at(-1)?.line ?? block.openLine;
    for (let l = block.openLine; l <= last; l++) inCode.add(l);
  }
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const siteSeen = new Map<string, number>();
  const addHeading = (raw: string) => {
    const custom = customHeadingId(raw);
    if (custom) anchors.add(custom.id.toLowerCase());
    const heading = custom ? raw.slice(0, custom.at) : raw;
    const slug = githubSlug(heading);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
    if (opts.siteSlugs && !custom) {
      const site = siteSlug(heading);
      const k = siteSeen.get(site) ?? 0;
      siteSeen.set(site, k + 1);
      anchors.add(k === 0 ? site : `${site}-${k}`);
    }
  };
  lines.forEach((line, i) => {
    if (inCode.has(i + 1)) return;
    for (const m of line.matchAll(HTML_ID)) anchors.add(m[1]!.toLowerCase());
    // attr_list ids on inline elements (`**locale**{ #mkdocs-locale }`), as docs generators render them
    if (line.includes('{')) for (const m of line.matchAll(INLINE_ATTR_ID)) anchors.add(m[1]!.toLowerCase());
    const atx = atxHeading(line);
    if (atx !== null) {
      addHeading(atx);
      return;
    }
    const prev = lines[i - 1];
    if (
      i > 0 &&
      SETEXT.test(line) &&
      prev !== undefined &&
      prev.trim() !== '' &&
      !inCode.has(i) &&
      atxHeading(prev) === null &&
      !/^\s*[-*+]\s/.test(prev)
    ) {
      addHeading(prev.trim());
    }
  });
  return anchors;
}
