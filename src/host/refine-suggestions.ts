import { git } from '../core/git.js';
import type { Suggestion } from './review-host.js';

/** One changed stretch of a file: head lines `start`–`start + count - 1` replaced by `lines`. */
export interface Hunk {
  path: string;
  /** First head line replaced (for a pure insertion: the line after which the new lines go; 0 = before line 1). */
  start: number;
  /** Head lines replaced (0 for a pure insertion). */
  count: number;
  lines: string[];
}

/** More hunks than this, or a hunk longer than this many lines, is shown as a diff rather than as suggestions. */
export const MAX_SUGGESTIONS = 20;
export const MAX_SUGGESTION_LINES = 80;

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** The hunks of a zero-context unified diff of one file (`git diff -U0`). */
export function parseZeroContextHunks(path: string, diff: string): Hunk[] {
  const out: Hunk[] = [];
  let cur: Hunk | null = null;
  for (const line of diff.split('\n')) {
    const m = HUNK_HEADER.exec(line);
    if (m) {
      cur = { path, start: Number(m[1]), count: m[2] === undefined ? 1 : Number(m[2]), lines: [] };
      out.push(cur);
      continue;
    }
    if (cur && line.startsWith('+') && !line.startsWith('+++')) cur.lines.push(line.slice(1));
  }
  return out;
}

/** New-side line ranges of the PR's own diff (with context): the lines GitHub accepts review comments on. */
export function commentableRanges(diff: string): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  for (const line of diff.split('\n')) {
    const m = HUNK_HEADER.exec(line);
    if (!m) continue;
    const start = Number(m[3]);
    const count = m[4] === undefined ? 1 : Number(m[4]);
    if (count > 0) out.push({ start, end: start + count - 1 });
  }
  return out;
}

/**
 * A hunk as a suggestion on head lines, given the head file's lines. A pure insertion becomes a
 * replacement of its neighbouring head line (kept) plus the new lines, since a suggestion must
 * replace at least one existing line.
 */
export function hunkToSuggestion(h: Hunk, headLines: readonly string[], note: string): Suggestion | null {
  if (h.count > 0) {
    return { path: h.path, startLine: h.start, endLine: h.start + h.count - 1, replacement: h.lines.join('\n'), note };
  }
  if (headLines.length === 0) return null;
  if (h.start === 0) {
    return { path: h.path, startLine: 1, endLine: 1, replacement: [...h.lines, headLines[0]!].join('\n'), note };
  }
  const anchor = headLines[h.start - 1];
  if (anchor === undefined) return null;
  return { path: h.path, startLine: h.start, endLine: h.start, replacement: [anchor, ...h.lines].join('\n'), note };
}

export interface DerivedSuggestions {
  suggestions: Suggestion[];
  /** Paths (or parts of them) that cannot be suggested line by line: shown as a diff in the review body. */
  leftOver: string[];
}

/**
 * Derives review suggestions from a kept refine patch: each contiguous changed stretch of each file
 * (head → candidate, in the mirror) becomes one suggestion, when it lies on lines of the PR's own diff
 * (GitHub refuses review comments elsewhere) and the patch is small enough to review that way. What
 * cannot be placed is listed in `leftOver`, for the caller to show as a diff.
 */
export async function deriveSuggestions(
  repoDir: string,
  refs: { mergeBase: string; head: string; candidate: string },
  paths: readonly string[],
  note: (path: string) => string,
): Promise<DerivedSuggestions> {
  const suggestions: Suggestion[] = [];
  const leftOver: string[] = [];
  for (const path of paths) {
    const diffArgs = ['-c', 'core.quotePath=false', 'diff', '--no-ext-diff', '--no-textconv', '--no-color', '--no-renames'];
    const patch = await git(repoDir, [...diffArgs, '-U0', refs.head, refs.candidate, '--', path]);
    const hunks = parseZeroContextHunks(path, patch);
    const headText = await git(repoDir, ['cat-file', '-p', `${refs.head}:${path}`]).catch(() => null);
    if (headText === null || hunks.length === 0) {
      leftOver.push(path);
      continue;
    }
    const prDiff = await git(repoDir, [...diffArgs, '-U3', refs.mergeBase, refs.head, '--', path]);
    const ranges = commentableRanges(prDiff);
    const headLines = headText.replace(/\n$/, '').split('\n');
    const placed: Suggestion[] = [];
    let fits = hunks.length <= MAX_SUGGESTIONS;
    for (const h of fits ? hunks : []) {
      const s = hunkToSuggestion(h, headLines, note(path));
      const inDiff = s && ranges.some((r) => s.startLine >= r.start && s.endLine <= r.end);
      const small = s && s.endLine - s.startLine < MAX_SUGGESTION_LINES && h.lines.length <= MAX_SUGGESTION_LINES;
      if (!s || !inDiff || !small) {
        fits = false;
        break;
      }
      placed.push(s);
    }
    // A file is suggested whole or not at all: half a fix applied from suggestions could be worse than none.
    if (fits) suggestions.push(...placed);
    else leftOver.push(path);
  }
  return { suggestions, leftOver };
}
