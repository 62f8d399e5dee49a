import { evidenceAs } from '../../core/evidence.js';
import type { Finding } from '../../core/finding.js';
import { g13LiteralNewlinesEvidence } from '../../guards/g13-doc-preservation/evidence.js';
import { codeBlocksOf } from '../../core/fenced-blocks.js';
import { countLiteralNewlines, expandLiteralNewlines } from '../../core/literal-newlines.js';
import type { Recipe, RecipeContext, RecipeFix } from '../types.js';
import { fixOf } from './line-suggestion.js';

/**
 * G13: code lines squeezed into one line with written-out `\n` go back to real lines. Every such
 * line of the doc's code blocks is split in one go (the lines that were already there at base, such
 * as a legitimate `printf "a\nb"` example, are left alone), so the fix does not depend on line
 * numbers an earlier split has moved.
 */
async function split(finding: Finding, ctx: RecipeContext): Promise<RecipeFix | null> {
  const path = finding.path;
  if (!path) return null; // every finding this recipe handles names its file
  const [base, current] = await Promise.all([ctx.readBase(path), ctx.readCurrent(path)]);
  if (current === null) return null;
  const before = new Set(base === null ? [] : codeBlocksOf(path, base).flatMap((b) => b.body.map((l) => l.text.trim())));
  const lines = current.split('\n');
  const fixed = new Map<number, string>();
  for (const block of codeBlocksOf(path, current)) {
    for (const l of block.body) {
      if (before.has(l.text.trim()) || countLiteralNewlines(l.text).outsideStrings < 2) continue;
      // the raw line, not the block's text (reStructuredText bodies are dedented)
      const raw = lines[l.line - 1]!;
      const cr = raw.endsWith('\r') ? '\r' : '';
      fixed.set(
        l.line - 1,
        expandLiteralNewlines(raw.slice(0, raw.length - cr.length))
          .split('\n')
          .join(`${cr}\n`) + cr,
      );
    }
  }
  if (fixed.size === 0) return null;
  const after = lines.map((l, i) => fixed.get(i) ?? l).join('\n');
  return fixOf(ctx, {
    recipe: 'g13-literal-newlines',
    findingIds: [finding.id],
    path,
    before: current,
    after,
    summary: `split ${fixed.size} code line${fixed.size === 1 ? '' : 's'} of ${path} at the written-out \\n`,
  });
}

export const g13LiteralNewlines: Recipe = {
  id: 'g13-literal-newlines',
  handles: (f) =>
    f.guard === 'G13' && f.category === 'doc-destroyed' && !!f.path && evidenceAs(g13LiteralNewlinesEvidence, f) !== undefined,
  fix: split,
};
