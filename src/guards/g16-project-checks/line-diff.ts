/**
 * Which lines of a file a formatter changes: the lines of `before` that are not kept as they are in
 * `after` (an LCS over lines between the common head and tail). A line the formatter only inserts is
 * charged to the line before it (or the first line), so an added blank line still points at the code
 * it belongs to. The middle is compared line by line only up to a size; beyond that, all of it counts
 * as changed.
 */
const MAX_CELLS = 4_000_000;

export function changedLines(before: string, after: string): number[] {
  if (before === after) return [];
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let tail = 0;
  while (tail < a.length - start && tail < b.length - start && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(start, a.length - tail);
  const midB = b.slice(start, b.length - tail);
  const changed = new Set<number>();
  const charge = (indexInMid: number) => changed.add(Math.max(1, Math.min(a.length, start + indexInMid + 1)));
  if (midA.length * midB.length > MAX_CELLS) {
    for (let i = 0; i < midA.length; i++) charge(i);
    if (midA.length === 0) charge(-1);
    return [...changed].sort((x, y) => x - y);
  }
  // lcs[i][j]: the longest common subsequence of midA[i..] and midB[j..]
  const n = midA.length;
  const m = midB.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = midA[i] === midB[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && midA[i] === midB[j]) {
      i++;
      j++;
    } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      charge(i); // a line removed or rewritten (deletions first, so a rewrite is charged to its own line)
      i++;
    } else {
      charge(i - 1); // an inserted line: the line before it
      j++;
    }
  }
  return [...changed].sort((x, y) => x - y);
}
