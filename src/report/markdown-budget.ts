import { clip } from './format-helpers.js';

export interface FitResult {
  text: string;
  /** Blocks included whole. */
  shown: number;
  /** Blocks left out (the tail). */
  omitted: number;
}

/**
 * Joins `head` and as many whole `blocks` (table rows, finding sections) as fit in `max` UTF-16 code
 * units, the way GitHub counts check-run output. A block is never cut: once one does not fit, it and
 * every block after it are left out and `more(count)` is appended, with room for that line reserved
 * up front. The result never exceeds `max`.
 */
export function fitBlocks(head: string, blocks: string[], more: (omitted: number) => string, max: number): FitResult {
  const reserve = blocks.length > 0 ? Math.max(more(blocks.length).length, more(1).length) : 0;
  let text = head;
  if (text.length + reserve > max) text = cutAtLine(text, Math.max(0, max - reserve));
  let shown = 0;
  for (const block of blocks) {
    const remainingAfter = blocks.length - shown - 1;
    const need = block.length + (remainingAfter > 0 ? reserve : 0);
    if (text.length + need > max) break;
    text += block;
    shown++;
  }
  const omitted = blocks.length - shown;
  if (omitted > 0) text += more(omitted);
  return { text: clip(text, max), shown, omitted };
}

const CUT_NOTE = '\n\n… (cut here to stay within GitHub’s size limit)\n';

/** Cuts text at the last line break that leaves room for a note saying so. */
function cutAtLine(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max < CUT_NOTE.length) return clip(text, max);
  const limit = max - CUT_NOTE.length;
  const at = text.lastIndexOf('\n', limit);
  return (at > 0 ? text.slice(0, at) : clip(text, limit)) + CUT_NOTE;
}
