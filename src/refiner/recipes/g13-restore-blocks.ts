import { evidenceAs } from '../../core/evidence.js';
import type { Finding } from '../../core/finding.js';
import { g13CodeBlocksEvidence } from '../../guards/g13-doc-preservation/evidence.js';
import { blockKey, codeBlocksOf, type CodeBlock } from '../../core/fenced-blocks.js';
import type { Recipe, RecipeContext, RecipeFix } from '../types.js';
import { fixOf } from './line-suggestion.js';

/**
 * G13: fenced code blocks a doc edit destroyed come back from the base, verbatim. Each one goes
 * where its base neighbours (the nearest prose line above or below it that the doc still has, once)
 * put it; a code block the PR put in its place (gutted to "..." or rewritten) is replaced.
 * Only the blocks G13 lists as lost are restored (blocks that moved to another doc stay moved).
 */

/** How far from a block to look for a neighbour line the current doc still has. */
const ANCHOR_REACH = 20;

function lastLineOf(b: CodeBlock): number {
  return b.closeLine ?? b.body[b.body.length - 1]?.line ?? b.openLine;
}

/** 0-based index of the one current line equal (trimmed) to `text`, or -1. */
function uniqueIndex(lines: readonly string[], text: string): number {
  let at = -1;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== text) continue;
    if (at >= 0) return -1;
    at = i;
  }
  return at;
}

/** The nearest base line (0-based) in `[from, to)` walked in `step` direction that is unique in the current doc. */
function anchor(baseLines: readonly string[], cur: readonly string[], from: number, step: 1 | -1): { base: number; cur: number } | null {
  for (let k = 0, i = from; k < ANCHOR_REACH && i >= 0 && i < baseLines.length; k++, i += step) {
    const t = baseLines[i]!.trim();
    if (!t || /^(`{3,}|~{3,})/.test(t)) continue;
    const at = uniqueIndex(cur, t);
    if (at >= 0) return { base: i, cur: at };
  }
  return null;
}

/** `lines` with `block` (a base block) put back; null when no position is certain. */
function putBack(
  path: string,
  baseLines: readonly string[],
  lines: string[],
  block: CodeBlock,
  baseKeys: ReadonlySet<string>,
): string[] | null {
  const open = block.openLine - 1;
  const end = lastLineOf(block) - 1;
  const text = baseLines.slice(open, end + 1);
  const above = anchor(baseLines, lines, open - 1, -1);
  const below = anchor(baseLines, lines, end + 1, 1);
  if (above && below && below.cur <= above.cur) return null;
  const from = above ? above.cur + 1 : 0;
  const to = below ? below.cur : lines.length;
  if (!above && !below) return null;
  // a block the PR put where the base one stood (its body gutted or rewritten) is replaced
  const inside = (b: CodeBlock) => b.openLine - 1 >= from && lastLineOf(b) - 1 < to;
  const standIns = codeBlocksOf(path, lines.join('\n')).filter((b) => inside(b) && !baseKeys.has(blockKey(b)));
  if (standIns.length === 1) {
    const s = standIns[0]!;
    return [...lines.slice(0, s.openLine - 1), ...text, ...lines.slice(lastLineOf(s))];
  }
  if (standIns.length > 1) return null;
  if (above) return [...lines.slice(0, from), ...baseLines.slice(above.base + 1, open), ...text, ...lines.slice(from)];
  if (!below) return null;
  return [...lines.slice(0, to), ...text, ...baseLines.slice(end + 1, below.base), ...lines.slice(to)];
}

async function restore(finding: Finding, ctx: RecipeContext): Promise<RecipeFix | null> {
  const path = finding.path;
  if (!path) return null; // every finding this recipe handles names its file
  const [base, current] = await Promise.all([ctx.readBase(path), ctx.readCurrent(path)]);
  if (base === null || current === null) return null;
  const baseBlocks = codeBlocksOf(path, base);
  const baseKeys = new Set(baseBlocks.map(blockKey));
  const present = new Set(codeBlocksOf(path, current).map(blockKey));
  const listed = new Set(evidenceAs(g13CodeBlocksEvidence, finding)?.removedBlocks.map((r) => r.baseLine));
  const gone = baseBlocks.filter((b) => listed.has(b.openLine) && blockKey(b) !== '' && !present.has(blockKey(b)));
  if (gone.length === 0) return null;
  const baseLines = base.split('\n');
  let lines: string[] | null = current.split('\n');
  for (const block of gone) {
    lines = putBack(path, baseLines, lines, block, baseKeys);
    if (!lines) return null;
  }
  const after = lines.join('\n');
  const now = new Set(codeBlocksOf(path, after).map(blockKey));
  if (!gone.every((b) => now.has(blockKey(b)))) return null;
  return fixOf(ctx, {
    recipe: 'g13-restore-blocks',
    findingIds: [finding.id],
    path,
    before: current,
    after,
    summary: `restored ${gone.length} code block${gone.length === 1 ? '' : 's'} of ${path} from the base`,
  });
}

export const g13RestoreBlocks: Recipe = {
  id: 'g13-restore-blocks',
  handles: (f) =>
    f.guard === 'G13' &&
    f.category === 'doc-destroyed' &&
    !!f.path &&
    (evidenceAs(g13CodeBlocksEvidence, f)?.removedBlocks.length ?? 0) > 0,
  fix: restore,
};
