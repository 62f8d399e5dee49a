import { inRanges, type LineRange } from './diff-hunks.js';

/** Number of lines inside `ranges` that are ≤ `line`. */
function linesUpTo(ranges: readonly LineRange[], line: number): number {
  let n = 0;
  for (const r of ranges) {
    if (r.start > line) continue;
    n += Math.min(r.end, line) - r.start + 1;
  }
  return n;
}

/** The head line of the k-th (1-based) head line that the PR did not add; 0 for k = 0. */
function kthUnaddedHeadLine(added: readonly LineRange[], k: number): number {
  if (k <= 0) return 0;
  let h = k;
  for (const r of [...added].sort((a, b) => a.start - b.start)) {
    if (r.start <= h) h += r.end - r.start + 1;
    else break;
  }
  return h;
}

/**
 * Where a base line lives at head. An unchanged base line maps to its head line; a removed base
 * line maps to the head line right after the last unchanged line before it — the first line of
 * the hunk that replaced it, or the line that now follows a pure deletion. Clamped to 1..headLines.
 *
 * Works from the added/removed ranges alone: unchanged lines keep their order, so the k-th surviving
 * base line is the k-th head line the PR did not add.
 */
export function headLineForBaseLine(
  baseLine: number,
  removed: readonly LineRange[],
  added: readonly LineRange[],
  headLines: number,
): number {
  let p = baseLine;
  const wasRemoved = inRanges(removed, p);
  while (p > 0 && inRanges(removed, p)) p--;
  const survivors = p - linesUpTo(removed, p);
  let h = kthUnaddedHeadLine(added, survivors);
  if (wasRemoved) h += 1;
  return Math.max(1, Math.min(h, Math.max(1, headLines)));
}

/** The first head line the PR added, or null for a change without added lines. */
export function firstAddedLine(added: readonly LineRange[]): number | null {
  let best: number | null = null;
  for (const r of added) if (best === null || r.start < best) best = r.start;
  return best;
}
