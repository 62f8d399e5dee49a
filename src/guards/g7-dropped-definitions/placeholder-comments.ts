import type { LangId } from '../../repo/languages.js';

/**
 * "Placeholder" comments: the text an LLM writes instead of code it did not reproduce —
 * `# init_schema and seed remain unchanged`, `// ... existing code ...`, `# rest of the file is the
 * same`. When definitions disappear from a file and such a comment appears, the comment is the
 * evidence that the deletion was not intended.
 */
export interface PlaceholderComment {
  /** 1-based head line. */
  line: number;
  /** The whole comment, trimmed (for quoting). */
  text: string;
}

/** Phrases that only make sense as a stand-in for omitted code. */
const GENERIC = [
  /\b(?:remains?|remained|stays?|is|are|kept|left)\s+(?:unchanged|the same|as[- ]is|intact|untouched|unmodified)\b/i,
  /\b(?:rest|remainder) of (?:the )?(?:code|file|module|class|implementation|functions?|methods?|helpers?|tests?|definitions?)\b/i,
  /\bexisting (?:code|helpers?|functions?|methods?|implementation|logic|tests?|fixtures?|definitions?|classes|imports?)\b/i,
  /\b(?:same as (?:before|above|original)|omitted for brevity|for brevity|code omitted|truncated)\b/i,
  /\b(?:previous|original|other) (?:code|implementation|functions?|methods?|helpers?)\b.*\b(?:here|unchanged|same|omitted|go(?:es)? here)\b/i,
  // starts with an ellipsis (`// ... existing code ...`, `# ...`); a sentence that trails off does not count
  /^(?:\.\.\.|…)/,
];

/** Weaker words that count only when the comment also names a definition that is gone. */
const NAMING = /\b(?:unchanged|untouched|unmodified|as before|as-is|the same|kept|still here|not shown|omitted|elided)\b/i;

const HASH_LANGS = new Set<LangId>(['python']);

/** The comment text on a line, or null when the line has no comment. */
export function commentOf(line: string, lang: LangId): string | null {
  const hash = HASH_LANGS.has(lang) ? /(?:^|\s)#+\s?(.*)$/.exec(line) : null;
  if (hash) return hash[1]!.trim();
  if (HASH_LANGS.has(lang)) return null;
  const slash = /(?:^|\s|;|\{|\})\/\/+\s?(.*)$/.exec(line);
  if (slash) return slash[1]!.trim();
  const block = /\/\*+\s?(.*?)\s*(?:\*\/)?\s*$/.exec(line);
  if (block) return block[1]!.trim();
  const star = /^\s*\*\s?(.*?)\s*(?:\*\/)?\s*$/.exec(line);
  return star ? star[1]!.trim() : null;
}

export function isGenericPlaceholder(comment: string): boolean {
  return GENERIC.some((re) => re.test(comment));
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** True when the comment mentions `name` as a whole word. */
export function mentions(comment: string, name: string): boolean {
  return new RegExp(`(?<![\\w$])${escapeRe(name)}(?![\\w$])`).test(comment);
}

/** True when the comment is a placeholder that stands in for `name`. */
export function placeholderFor(comment: string, name: string): boolean {
  return mentions(comment, name) && (isGenericPlaceholder(comment) || NAMING.test(comment));
}

/**
 * Comments on the given head lines (the lines the PR added) that look like placeholders, either
 * generically or because they name one of `names`.
 */
export function placeholderComments(
  text: string,
  lang: LangId,
  onLines: (line: number) => boolean,
  names: readonly string[],
): PlaceholderComment[] {
  const out: PlaceholderComment[] = [];
  text.split('\n').forEach((raw, i) => {
    if (!onLines(i + 1)) return;
    const comment = commentOf(raw, lang);
    if (!comment) return;
    if (isGenericPlaceholder(comment) || names.some((n) => placeholderFor(comment, n)))
      out.push({ line: i + 1, text: raw.trim().slice(0, 160) });
  });
  return out;
}
