import { codeBlocksOf } from '../../core/fenced-blocks.js';
import type { DocKind } from '../shared/doc-files.js';
import { blank, maskCodeSpans, maskComments } from '../shared/doc-masks.js';

/** A link target written in a doc. */
export interface DocLink {
  /** The target as written (angle brackets and title removed). */
  target: string;
  /** 1-based line where the target is written. */
  line: number;
  kind: 'link' | 'image' | 'reference' | 'autolink' | 'url' | 'html' | 'rst';
}

/**
 * The text with everything that cannot hold a rendered link blanked out (same length, line breaks
 * kept): fenced/literal code blocks, inline code spans and HTML comments.
 */
function maskCode(path: string, text: string, kind: DocKind): string {
  const lines = text.split('\n');
  if (kind !== 'text') {
    for (const block of codeBlocksOf(path, text)) {
      const last = block.closeLine ?? block.body.at(-1)?.line ?? block.openLine;
      for (let l = block.openLine; l <= last; l++) lines[l - 1] = ' '.repeat(lines[l - 1]?.length ?? 0);
    }
  }
  let masked = maskComments(lines.join('\n'));
  if (kind === 'rst') masked = masked.replace(/``[^`\n]+``/g, blank);
  else if (kind === 'markdown') masked = maskCodeSpans(masked);
  return masked;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

function lineOfOffset(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/**
 * For every `]`, the `[` it closes within the same paragraph (-1 when none), in one forward pass with
 * a stack (escaped brackets do not count; a blank line empties the stack).
 */
export function bracketPairs(text: string): Map<number, number> {
  const pairs = new Map<number, number>();
  const stack: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 92 /* \\ */) {
      i++;
      continue;
    }
    if (ch === 10 && text.charCodeAt(i + 1) === 10) stack.length = 0;
    else if (ch === 91 /* [ */) stack.push(i);
    else if (ch === 93 /* ] */) pairs.set(i, stack.pop() ?? -1);
  }
  return pairs;
}

/**
 * `text.indexOf(ch, from)` answered from a sorted list of the character's positions (built once per
 * character), so looking for a closer that never comes costs a binary search, not a rescan of the text.
 */
class CharIndex {
  private readonly positions = new Map<string, number[]>();
  constructor(private readonly text: string) {}
  indexOf(ch: string, from: number): number {
    let list = this.positions.get(ch);
    if (!list) {
      list = [];
      for (let i = this.text.indexOf(ch); i >= 0; i = this.text.indexOf(ch, i + 1)) list.push(i);
      this.positions.set(ch, list);
    }
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]! < from) lo = mid + 1;
      else hi = mid;
    }
    return lo < list.length ? list[lo]! : -1;
  }
}

/** Deepest parenthesis nesting read inside a link destination (cmark's limit as well). */
const MAX_PAREN_DEPTH = 32;

/** Parses `(dest "title")` starting at the `(`; returns the destination and its offset, or null. */
function inlineDestination(text: string, open: number, find: CharIndex): { target: string; at: number } | null {
  let i = open + 1;
  while (text[i] === ' ' || text[i] === '\t') i++;
  if (text[i] === '\n') i++;
  while (text[i] === ' ' || text[i] === '\t') i++;
  const at = i;
  let target: string;
  if (text[i] === '<') {
    const end = find.indexOf('>', i);
    const newline = find.indexOf('\n', i);
    if (end < 0 || (newline >= 0 && newline < end)) return null;
    target = text.slice(i + 1, end);
    i = end + 1;
  } else {
    let depth = 0;
    const start = i;
    for (; i < text.length; i++) {
      const ch = text[i]!;
      if (ch === '\\') {
        i++;
        continue;
      }
      if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f' || ch === '\v') break;
      if (ch === '(' && ++depth > MAX_PAREN_DEPTH) return null;
      else if (ch === ')') {
        if (depth === 0) break;
        depth--;
      }
    }
    target = text.slice(start, i);
  }
  while (/[ \t\n]/.test(text[i] ?? '')) i++;
  const quote = text[i];
  if (quote === '"' || quote === "'" || quote === '(') {
    const closer = quote === '(' ? ')' : quote;
    const end = find.indexOf(closer, i + 1);
    if (end < 0) return null;
    i = end + 1;
    while (/[ \t\n]/.test(text[i] ?? '')) i++;
  }
  if (text[i] !== ')') return null;
  return { target, at };
}

const REFERENCE_DEF = /^ {0,3}\[((?:[^\]\\\n]|\\.)+)\]:[ \t]*(<[^>\n]*>|\S+)/gm;
const AUTOLINK = /<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>/g;
const BARE_URL = /\bhttps?:\/\/[^\s<>"'`\][]+/g;
// Bounded attribute scan: a tag that never closes cannot make every later `<a` rescan the rest of the text.
const HTML_ATTR = /<(?:a|img|source|video|audio)\b[^<>]{0,1000}?\s(?:href|src)\s*=\s*(?:"([^"<>\n]{0,4000})"|'([^'<>\n]{0,4000})')/gi;
const RST_INLINE = /`[^`<]*<([^>`\n]+)>`__?/g;
const RST_DIRECTIVE = /^[ \t]*\.\.[ \t]+(?:image|figure)::[ \t]*(\S+)/gm;
const RST_TARGET = /^[ \t]*\.\.[ \t]+_[^:\n]+:[ \t]+(\S+)[ \t]*$/gm;

/**
 * True when the line starting at `at` continues a paragraph: the line before it has text and is
 * neither a heading nor another reference definition (CommonMark: a definition cannot interrupt one).
 */
function continuesParagraph(text: string, at: number): boolean {
  if (at === 0) return false;
  const prevStart = text.lastIndexOf('\n', at - 2) + 1;
  const prev = text.slice(prevStart, at - 1);
  if (prev.trim() === '') return false;
  return !/^ {0,3}(?:\[[^\]\n]+\]:|#{1,6}(?:[ \t]|$)|[-*_=]{3,}[ \t]*$)/.test(prev);
}

/** A bare URL without the punctuation that ends the sentence around it (one pass, from the end). */
export function trimUrl(url: string): string {
  let end = url.length;
  while (end > 0 && '.,;:!?*_~'.includes(url[end - 1]!)) end--;
  let open = 0;
  let close = 0;
  for (let i = 0; i < end; i++) {
    if (url.charCodeAt(i) === 40) open++;
    else if (url.charCodeAt(i) === 41) close++;
  }
  while (end > 0 && url[end - 1] === ')' && open < close) {
    end--;
    close--;
  }
  return url.slice(0, end);
}

/** Every link target written in a doc, outside code. */
export function extractLinks(path: string, text: string, kind: DocKind): DocLink[] {
  const masked = maskCode(path, text, kind);
  const starts = lineStarts(masked);
  const out: DocLink[] = [];
  const covered = new Uint8Array(masked.length + 1);
  /** `offset` is where the target starts in the text. */
  const add = (target: string, offset: number, k: DocLink['kind']) => {
    if (!target) return;
    out.push({ target, line: lineOfOffset(starts, offset), kind: k });
    covered.fill(1, offset, Math.min(masked.length, offset + target.length));
  };
  if (kind === 'markdown') {
    const pairs = bracketPairs(masked);
    const find = new CharIndex(masked);
    for (let close = masked.indexOf(']('); close >= 0; close = masked.indexOf('](', close + 1)) {
      const open = pairs.get(close) ?? -1;
      if (open < 0) continue;
      const dest = inlineDestination(masked, close + 1, find);
      if (dest) add(dest.target, dest.at, masked[open - 1] === '!' ? 'image' : 'link');
    }
    for (const m of masked.matchAll(REFERENCE_DEF)) {
      if (m[1]!.startsWith('^')) continue; // footnote, not a link
      if (continuesParagraph(masked, m.index)) continue; // a definition cannot interrupt a paragraph
      add(m[2]!.replace(/^<|>$/g, ''), m.index + m[0].length - m[2]!.length, 'reference');
    }
    for (const m of masked.matchAll(AUTOLINK)) add(m[1]!, m.index + 1, 'autolink');
    for (const m of masked.matchAll(HTML_ATTR)) {
      const value = m[1] ?? m[2] ?? '';
      add(value.trim(), m.index + m[0].length - value.length - 1, 'html');
    }
  }
  if (kind === 'rst') {
    for (const m of masked.matchAll(RST_INLINE)) add(m[1]!.trim(), m.index + m[0].lastIndexOf('<') + 1, 'rst');
    for (const m of masked.matchAll(RST_DIRECTIVE)) add(m[1]!, m.index + m[0].length - m[1]!.length, 'image');
    for (const m of masked.matchAll(RST_TARGET)) if (!m[1]!.endsWith('_')) add(m[1]!, m.index + m[0].length - m[1]!.length, 'rst');
  }
  // Bare URLs (GFM autolink literals, plain-text docs) that are not part of a target found above.
  for (const m of masked.matchAll(BARE_URL)) {
    if (covered[m.index] === 1) continue;
    add(trimUrl(m[0]), m.index, 'url');
  }
  return out;
}
