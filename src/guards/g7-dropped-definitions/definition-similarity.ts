/**
 * How alike two definitions are once their own names are taken out (see `shapeOf`): 1 for the same
 * text, otherwise the Dice coefficient of their token bigrams (multiset). Cheap and linear, and a
 * renamed function with one or two small edits still scores above 0.9.
 */
function tokens(shape: string): string[] {
  return shape.match(/[\w$§]+|[^\s\w$§]/g) ?? [];
}

function bigrams(toks: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i + 1 < toks.length; i++) {
    const k = `${toks[i]}\u0000${toks[i + 1]}`;
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

export function shapeSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const ta = tokens(a);
  const tb = tokens(b);
  if (ta.length < 2 || tb.length < 2) return 0;
  const ba = bigrams(ta);
  const bb = bigrams(tb);
  let shared = 0;
  for (const [k, n] of ba) shared += Math.min(n, bb.get(k) ?? 0);
  return (2 * shared) / (ta.length - 1 + (tb.length - 1));
}

/** Similarity from which a vanished definition counts as renamed. */
export const RENAME_SIMILARITY = 0.9;
