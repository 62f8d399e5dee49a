import { codeBlocksOf } from '../core/fenced-blocks.js';
import type { DocKind } from './doc-files.js';

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
      const last = block.closeLine ?? (block.body.at(-1)?.line ?? block.openLine);
      for (let l = block.openLine; l <= last; l++) lines[l - 1] = ' '.repeat(lines[l - 1]?.length ?? 0);
    }
  }
  let masked = lines.join('\n');
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  masked = masked.replace(/<!--[\s\S]*?-->/g, blank);
  if (kind === 'rst') masked = masked.replace(/``[^`\n]+``/g, blank);
  else if (kind === 'markdown') masked = masked.replace(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, (m) => (m.includes('\n\n') ? m : blank(m)));
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

/** The `[` that opens the bracket closed at `close`, within the same paragraph; -1 when none. */
function openingBracket(text: string, close: number): number {
  let depth = 0;
  for (let i = close - 1; i >= 0; i--) {
    const ch = text[i];
    if (ch === '\n' && text[i - 1] === '\n') return -1;
    if (text[i - 1] === '\\') continue;
    if (ch === ']') depth++;
    else if (ch === '[') {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

/** Parses `(dest "title")` starting at the `(`; returns the destination and its offset, or null. */
function inlineDestination(text: string, open: number): { target: string; at: number } | null {
  let i = open + 1;
  while (text[i] === ' ' || text[i] === '\t') i++;
  if (text[i] === '\n') i++;
  while (text[i] === ' ' || text[i] === '\t') i++;
  const at = i;
  let target: string;
  if (text[i] === '<') {
    const end = text.indexOf('>', i);
    if (end < 0 || text.slice(i, end).includes('\n')) return null;
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
      if (/\s/.test(ch)) break;
      if (ch === '(') depth++;
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
    const end = text.indexOf(closer, i + 1);
    if (end < 0) return null;
    i = end + 1;
    while (/[ \t\n]/.test(text[i] ?? '')) i++;
  }
  if (text[i] !== ')') return null;
  return { target, at };
}

const REFERENCE_DEF = /^ {0,3}\[((?:[^\]\\\n]|\\.)+)\]:[ \t]*(<[^>\n]*>|\S+)/gm;
const AUTOLINK = /<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>/g;
const BARE_URL = /\bhttps?:\/\/[^\s<>"'`\]\[]+/g;
const HTML_ATTR = /<(?:a|img|source|video|audio)\b[^>]*?\s(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;
const RST_INLINE = /`[^`<]*<([^>`\n]+)>`__?/g;
const RST_DIRECTIVE = /^[ \t]*\.\.[ \t]+(?:image|figure)::[ \t]*(\S+)/gm;
const RST_TARGET = /^[ \t]*\.\.[ \t]+_[^:\n]+:[ \t]+(\S+)[ \t]*$/gm;

/** A bare URL without the punctuation that ends the sentence around it. */
function trimUrl(url: string): string {
  let out = url.replace(/[.,;:!?*_~]+$/, '');
  while (out.endsWith(')') && (out.match(/\(/g)?.length ?? 0) < (out.match(/\)/g)?.length ?? 0)) out = out.slice(0, -1);
  return out;
}

/** Every link target written in a doc, outside code. */
export function extractLinks(path: string, text: string, kind: DocKind): DocLink[] {
  const masked = maskCode(path, text, kind);
  const starts = lineStarts(masked);
  const out: DocLink[] = [];
  const covered: [number, number][] = [];
  /** `offset` is where the target starts in the text. */
  const add = (target: string, offset: number, k: DocLink['kind']) => {
    if (!target) return;
    out.push({ target, line: lineOfOffset(starts, offset), kind: k });
    covered.push([offset, offset + target.length]);
  };
  if (kind === 'markdown') {
    for (let close = masked.indexOf(']('); close >= 0; close = masked.indexOf('](', close + 1)) {
      const open = openingBracket(masked, close);
      if (open < 0) continue;
      const dest = inlineDestination(masked, close + 1);
      if (dest) add(dest.target, dest.at, masked[open - 1] === '!' ? 'image' : 'link');
    }
    for (const m of masked.matchAll(REFERENCE_DEF)) {
      if (m[1]!.startsWith('^')) continue; // footnote, not a link
      add(m[2]!.replace(/^<|>$/g, ''), m.index! + m[0].length - m[2]!.length, 'reference');
    }
    for (const m of masked.matchAll(AUTOLINK)) add(m[1]!, m.index! + 1, 'autolink');
    for (const m of masked.matchAll(HTML_ATTR)) {
      const value = m[1] ?? m[2] ?? '';
      add(value.trim(), m.index! + m[0].length - value.length - 1, 'html');
    }
  }
  if (kind === 'rst') {
    for (const m of masked.matchAll(RST_INLINE)) add(m[1]!.trim(), m.index! + m[0].lastIndexOf('<') + 1, 'rst');
    for (const m of masked.matchAll(RST_DIRECTIVE)) add(m[1]!, m.index! + m[0].length - m[1]!.length, 'image');
    for (const m of masked.matchAll(RST_TARGET)) if (!m[1]!.endsWith('_')) add(m[1]!, m.index! + m[0].length - m[1]!.length, 'rst');
  }
  // Bare URLs (GFM autolink literals, plain-text docs) that are not part of a target found above.
  for (const m of masked.matchAll(BARE_URL)) {
    if (covered.some(([a, b]) => m.index! >= a && m.index! < b)) continue;
    add(trimUrl(m[0]), m.index!, 'url');
  }
  return out;
}
