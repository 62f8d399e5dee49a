import type { Definition } from '../../repo/top-level-definitions.js';
import type { HeadHit } from '../shared/head-search.js';

/**
 * Evidence that a definition the PR removed is still needed at head: a line of the head tree that
 * imports it from the file that lost it, names it qualified by that module, or uses it bare where
 * only that definition could answer. Deliberately conservative: a mention that could as well mean
 * something else (a local variable, another class's method, a string) is not evidence.
 */
export interface Reference {
  path: string;
  line: number;
  text: string;
  how: 'import' | 'qualified' | 'bare' | 'member' | 'all';
}

export interface ReferenceVerdict {
  refs: Reference[];
  /** A re-export elsewhere that still serves the name (package `__init__`, `export … from`, `pub use`). */
  servedBy?: Reference;
}

/** What the classifier knows about the definition and where it lived. */
export interface Subject {
  def: Definition;
  /** Head path of the file that lost the definition. */
  path: string;
  family: string;
  /** Head text of that file. */
  headText: string;
}

/** Head texts of files with hits, read on demand. */
export type TextOf = (path: string) => string | undefined;

export const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
export const word = (n: string) => new RegExp(`(?<![\\w$])${esc(n)}(?![\\w$])`, 'g');

function occurrences(text: string, name: string): number[] {
  return [...text.matchAll(word(name))].map((m) => m.index);
}

export function isComment(family: string, text: string): boolean {
  const t = text.trimStart();
  if (family === 'python') return t.startsWith('#');
  return t.startsWith('//') || t.startsWith('/*') || t.startsWith('*');
}

/** Crude: an odd number of unescaped quotes of one kind before `idx` on the line. */
function inString(text: string, idx: number, family: string): boolean {
  const head = text.slice(0, idx).replace(/\\./g, '');
  const quotes = family === 'rust' || family === 'go' || family === 'java' ? ['"'] : ['"', "'", '`'];
  if (family === 'go') quotes.push('`');
  return quotes.some((q) => (head.split(q).length - 1) % 2 === 1);
}

export function lineOf(text: string, index: number): number {
  let n = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

export function firstLine(s: string): string {
  return s.split('\n')[0]!.trim().slice(0, 160);
}

/** Multi-line strings and block comments: Python docstrings, JS template literals, C-style block comments, Go raw strings. */
const MULTILINE: Record<string, RegExp> = {
  python: /"""[\s\S]*?"""|'''[\s\S]*?'''/g,
  js: /\/\*[\s\S]*?\*\/|`(?:\\[\s\S]|[^\\`])*`/g,
  go: /\/\*[\s\S]*?\*\/|`[^`]*`/g,
  rust: /\/\*[\s\S]*?\*\//g,
  java: /\/\*[\s\S]*?\*\/|"""[\s\S]*?"""/g,
};

const maskCache = new Map<string, Set<number>>();

/** 1-based lines that a multi-line string or comment of `text` touches (memoised per text). */
function maskedLines(text: string, family: string): Set<number> {
  const cached = maskCache.get(text);
  if (cached) return cached;
  const out = new Set<number>();
  const re = MULTILINE[family];
  if (re) {
    for (const m of text.matchAll(new RegExp(re.source, 'g'))) {
      if (!m[0].includes('\n')) continue;
      const first = lineOf(text, m.index);
      const last = first + (m[0].match(/\n/g)?.length ?? 0);
      for (let l = first; l <= last; l++) out.add(l);
    }
  }
  if (maskCache.size > 500) maskCache.clear();
  maskCache.set(text, out);
  return out;
}

/** Hits of a name as usable occurrences: outside comments and strings (`text`, when known, masks multi-line ones). */
export function* uses(
  hits: readonly HeadHit[],
  name: string,
  family: string,
  text?: string,
): Generator<{ hit: HeadHit; idx: number; before: string; after: string }> {
  const masked = text === undefined ? null : maskedLines(text, family);
  for (const hit of hits) {
    if (isComment(family, hit.text) || masked?.has(hit.line)) continue;
    for (const idx of occurrences(hit.text, name)) {
      if (inString(hit.text, idx, family)) continue;
      yield { hit, idx, before: hit.text.slice(0, idx), after: hit.text.slice(idx + name.length) };
    }
  }
}

export const ref = (hit: HeadHit, how: Reference['how']): Reference => ({
  path: hit.path,
  line: hit.line,
  text: hit.text.trim().slice(0, 160),
  how,
});

export function stripExt(path: string): string {
  return path.replace(/\.d\.ts$/, '').replace(/\.[^./]+$/, '');
}

/** The hits grouped by their file. */
export function groupByPath(hits: readonly HeadHit[]): Map<string, HeadHit[]> {
  const m = new Map<string, HeadHit[]>();
  for (const h of hits) {
    const list = m.get(h.path) ?? [];
    list.push(h);
    m.set(h.path, list);
  }
  return m;
}
