/** One replacement of whole head lines (1-based, inclusive): what a review suggestion can express. */
export interface LineSuggestion {
  path: string;
  startLine: number;
  endLine: number;
  replacement: string;
}

/** A suggestion that rewrites more head lines than this is no longer a readable review comment. */
const MAX_HEAD_LINES = 40;

/**
 * The change from `before` to `after` as one replacement of whole lines of `before` (1-based,
 * inclusive), or null when there is no change, when it touches the file's final line break (a
 * suggestion cannot express that) or when it would rewrite more than `maxHeadLines` lines.
 * Pure insertions and deletions are anchored on a neighbouring unchanged line, because a suggestion
 * always replaces at least one line.
 */
export function lineSuggestion(path: string, before: string, after: string, maxHeadLines = MAX_HEAD_LINES): LineSuggestion | null {
  if (before === after) return null;
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let tail = 0;
  while (tail < a.length - start && tail < b.length - start && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  let endA = a.length - tail;
  let endB = b.length - tail;
  if (endA === start || endB === start) {
    if (start > 0) start--;
    else if (endA < a.length && endB < b.length) {
      endA++;
      endB++;
    } else return null;
  }
  // The element after the last line break is not a line a reviewer can select.
  if (endA === a.length || endB === b.length) return null;
  if (endA - start > maxHeadLines) return null;
  return { path, startLine: start + 1, endLine: endA, replacement: b.slice(start, endB).join('\n') };
}

/** `text` with the suggestion applied: lines startLine..endLine replaced by the replacement's lines. */
export function applySuggestion(text: string, s: LineSuggestion): string {
  const lines = text.split('\n');
  lines.splice(s.startLine - 1, s.endLine - s.startLine + 1, ...s.replacement.split('\n'));
  return lines.join('\n');
}
