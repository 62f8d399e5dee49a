/**
 * The two-character text backslash-n ("\n" written out) inside one line of code. An LLM that
 * double-escapes its output writes a whole code block as one line joined by such sequences; a code
 * example that puts an escape inside a string literal (`printf "a\nb\n"`, `"line1\nline2"` in JSON)
 * is legitimate. Only sequences outside quoted strings count as corruption.
 */

/** Character spans [start, end] of quoted strings that open and close on this line. */
function stringSpans(line: string): [number, number][] {
  const spans: [number, number][] = [];
  let i = 0;
  while (i < line.length) {
    const ch = line[i]!;
    if ((ch === '"' || ch === "'" || ch === '`') && !escaped(line, i)) {
      let j = i + 1;
      while (j < line.length && !(line[j] === ch && !escaped(line, j))) j++;
      if (j < line.length) {
        spans.push([i, j]);
        i = j + 1;
        continue;
      }
      // an unmatched quote (an apostrophe in prose, say) opens no string
    }
    i++;
  }
  return spans;
}

/** True when the character at `i` is preceded by an odd number of backslashes. */
function escaped(line: string, i: number): boolean {
  let n = 0;
  for (let k = i - 1; k >= 0 && line[k] === '\\'; k--) n++;
  return n % 2 === 1;
}

/** Offsets of every written-out `\n` (backslash not itself escaped, followed by `n`). */
function literalNewlineOffsets(line: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < line.length - 1; i++) {
    if (line[i] === '\\' && line[i + 1] === 'n' && !escaped(line, i)) out.push(i);
  }
  return out;
}

export interface LiteralNewlineCount {
  /** Every written-out `\n` on the line. */
  total: number;
  /** Those outside quoted strings: the corruption signature. */
  outsideStrings: number;
  /** Offsets of the ones outside strings. */
  offsets: number[];
}

export function countLiteralNewlines(line: string): LiteralNewlineCount {
  const all = literalNewlineOffsets(line);
  if (all.length === 0) return { total: 0, outsideStrings: 0, offsets: [] };
  // Spans are sorted and disjoint, offsets ascending: one merge pass keeps this linear.
  const spans = stringSpans(line);
  const offsets: number[] = [];
  let k = 0;
  for (const o of all) {
    while (k < spans.length && spans[k]![1] <= o) k++;
    const span = spans[k];
    if (!(span && o > span[0] && o < span[1])) offsets.push(o);
  }
  return { total: all.length, outsideStrings: offsets.length, offsets };
}

/**
 * The line with its written-out `\n` (outside strings) turned into real line breaks; every new line
 * gets the original line's indentation; a trailing break adds no empty line.
 */
export function expandLiteralNewlines(line: string): string {
  const { offsets } = countLiteralNewlines(line);
  if (offsets.length === 0) return line;
  const indent = /^[ \t]*/.exec(line)?.[0] ?? '';
  const pieces: string[] = [];
  let from = 0;
  for (const o of offsets) {
    pieces.push(line.slice(from, o));
    from = o + 2;
  }
  pieces.push(line.slice(from));
  if (pieces.length > 1 && pieces[pieces.length - 1]!.trim() === '') pieces.pop();
  return pieces.map((p, i) => (i === 0 ? p.trimEnd() : indent + p.trimEnd())).join('\n');
}
