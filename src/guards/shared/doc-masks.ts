/**
 * Masks for reading Markdown without a full parser: HTML comments and code spans replaced by spaces
 * (same length, line breaks kept), so offsets and line numbers stay valid. Both run in one pass over
 * the text: hostile input (an unclosed `<!--`, 100k backticks) costs linear time.
 */

/** Blanks every character but line breaks (same length). */
export const blank = (s: string) => s.replace(/[^\n]/g, ' ');

/** HTML comments blanked, scanning once: an unclosed `<!--` ends the scan (nothing after it closes). */
export function maskComments(text: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const open = text.indexOf('<!--', from);
    if (open < 0) break;
    const close = text.indexOf('-->', open + 4);
    if (close < 0) break;
    out += text.slice(from, open) + blank(text.slice(open, close + 3));
    from = close + 3;
  }
  return out + text.slice(from);
}

/**
 * Markdown code spans blanked, in one pass (CommonMark: a run of N backticks opens a span that the
 * next run of exactly N backticks closes; a run without a partner is literal). Spans holding a blank
 * line are left alone (a paragraph break ends a span in practice). Linear: each run is visited once and
 * its partner is found through a precomputed "next run of the same length" table.
 */
export function maskCodeSpans(text: string): string {
  const runs: { start: number; len: number }[] = [];
  for (let i = 0; i < text.length;) {
    if (text.charCodeAt(i) !== 96) {
      i++;
      continue;
    }
    let j = i;
    while (j < text.length && text.charCodeAt(j) === 96) j++;
    runs.push({ start: i, len: j - i });
    i = j;
  }
  if (runs.length < 2) return text;
  const next = new Int32Array(runs.length).fill(-1);
  const lastOfLen = new Map<number, number>();
  for (let r = runs.length - 1; r >= 0; r--) {
    next[r] = lastOfLen.get(runs[r]!.len) ?? -1;
    lastOfLen.set(runs[r]!.len, r);
  }
  let out = '';
  let from = 0;
  for (let r = 0; r < runs.length;) {
    const partner = next[r]!;
    if (partner < 0) {
      r++;
      continue;
    }
    const start = runs[r]!.start;
    const end = runs[partner]!.start + runs[partner]!.len;
    const span = text.slice(start, end);
    out += text.slice(from, start) + (span.includes('\n\n') ? span : blank(span));
    from = end;
    r = partner + 1;
  }
  return out + text.slice(from);
}
