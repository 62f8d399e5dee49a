import { codeBlocksOf } from '../core/fenced-blocks.js';

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

/** Heading source → the text GitHub shows (links, images, code ticks, emphasis and HTML tags removed). */
function renderedText(source: string): string {
  return source
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`+/g, '')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|\W)[*_](\S(?:.*?\S)?)[*_](?=\W|$)/g, '$1$2')
    .replace(/~~(.+?)~~/g, '$1')
    .trim();
}

const ATX = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const CUSTOM_ID = /[ \t]*\{#([\w.:-]+)[^}]*\}[ \t]*$/;
const HTML_ID = /<[a-z][^>]*?\s(?:id|name)\s*=\s*["']([^"']+)["']/gi;

/**
 * Every anchor a Markdown file offers: heading slugs (duplicates get -1, -2 … as on GitHub),
 * `{#custom-id}` heading attributes of docs generators, and `id`/`name` attributes of HTML tags.
 * Anchors are returned lower-cased; compare fragments lower-cased too.
 */
export function markdownAnchors(path: string, text: string): Set<string> {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const inCode = new Set<number>();
  for (const block of codeBlocksOf(path, text)) {
    const last = block.closeLine ?? block.body.at(-1)?.line ?? block.openLine;
    for (let l = block.openLine; l <= last; l++) inCode.add(l);
  }
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const addHeading = (raw: string) => {
    const custom = CUSTOM_ID.exec(raw);
    if (custom) anchors.add(custom[1]!.toLowerCase());
    const slug = githubSlug(custom ? raw.slice(0, custom.index) : raw);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  };
  lines.forEach((line, i) => {
    if (inCode.has(i + 1)) return;
    for (const m of line.matchAll(HTML_ID)) anchors.add(m[1]!.toLowerCase());
    const atx = ATX.exec(line);
    if (atx) return addHeading(atx[2]!);
    const prev = lines[i - 1];
    if (i > 0 && SETEXT.test(line) && prev !== undefined && prev.trim() !== '' && !inCode.has(i) && !ATX.test(prev) && !/^\s*[-*+]\s/.test(prev)) {
      addHeading(prev.trim());
    }
  });
  return anchors;
}
