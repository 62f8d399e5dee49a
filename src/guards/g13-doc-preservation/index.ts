import type { Guard, GuardContext, GuardFinding } from '../../core/guard.js';
import { blockKey, codeBlocksOf, codeChars, type CodeBlock } from '../../core/fenced-blocks.js';
import { firstAddedLine, headLineForBaseLine } from '../../core/line-map.js';
import { countLiteralNewlines, expandLiteralNewlines } from '../../core/literal-newlines.js';
import { isAddedLine, type ChangedFile } from '../../core/patch-set.js';
import { splitLines } from '../../core/text-content.js';
import { docKindOf } from '../shared/doc-files.js';
import { landingOf, movedBlocks, movedText, type Landing } from './moved-content.js';
import { G13_EVIDENCE, type G13CodeBlocksEvidence, type G13LiteralNewlinesEvidence, type G13ShrinkEvidence } from './evidence.js';

/**
 * G13: edits of an existing doc that destroy it — fenced code cut below a floor, code lines the PR
 * squeezed into one line with written-out `\n`, or the whole doc cut below a floor. All three checks
 * run and report; none hides another.
 */

/** At most this many literal-newline findings per file (the rest are counted in the last one). */
const MAX_NEWLINE_FINDINGS = 10;

const pct = (x: number) => `${Math.floor(x * 100)} %`;
const snippet = (s: string, n = 80) => {
  const t = s.trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};
const blockName = (b: CodeBlock) => (b.info ? `${b.info.split(/\s+/)[0]} block` : 'code block');

function anchorOf(file: ChangedFile, baseLine: number | undefined): number {
  const headLines = splitLines(file.head.text ?? '').length;
  if (baseLine !== undefined) return headLineForBaseLine(baseLine, file.removed, file.added, headLines);
  return firstAddedLine(file.added) ?? 1;
}

function codeBlockLoss(
  file: ChangedFile,
  baseBlocks: CodeBlock[],
  headBlocks: CodeBlock[],
  ctx: GuardContext,
  landing: Landing,
): GuardFinding[] {
  const { codeBlockFloor, codeBlockMinChars } = ctx.config.docs;
  const o = codeChars(baseBlocks);
  const n = codeChars(headBlocks);
  if (o === 0 || o < codeBlockMinChars || n >= codeBlockFloor * o) return [];
  const kept = new Set(headBlocks.map(blockKey));
  const gone = baseBlocks.filter((b) => blockKey(b) !== '' && !kept.has(blockKey(b)));
  // Blocks that landed in another doc of this PR moved; they count as kept.
  const moved = movedBlocks(file, gone, landing);
  const movedSet = new Set(moved.map((m) => m.block));
  if (n + codeChars(moved.map((m) => m.block)) >= codeBlockFloor * o) return [];
  const lost = gone.filter((b) => !movedSet.has(b));
  const first = lost[0];
  const example = first
    ? ` The first one gone is the ${blockName(first)} at base line ${first.openLine}: "${snippet(first.body.find((l) => l.text.trim())?.text ?? '')}".`
    : '';
  return [
    {
      category: 'doc-destroyed',
      severity: 'fail',
      path: file.path,
      line: anchorOf(file, first?.openLine),
      message:
        `${file.path} keeps ${n} of its ${o} characters of fenced code (${pct(n / o)}; the floor is ${pct(codeBlockFloor)}): ` +
        `${lost.length} of ${baseBlocks.length} code blocks of the base version are gone.${example}`,
      remediation: `Put the removed code examples of ${file.path} back verbatim; a doc edit keeps its runnable examples. Replace an obsolete example with a working one, not with prose.`,
      evidence: {
        baseCodeChars: o,
        headCodeChars: n,
        removedBlocks: lost.slice(0, 10).map((b) => ({ baseLine: b.openLine, info: b.info, firstLine: snippet(b.body[0]?.text ?? '') })),
      } satisfies G13CodeBlocksEvidence,
    },
  ];
}

function literalNewlineLines(file: ChangedFile, baseBlocks: CodeBlock[], headBlocks: CodeBlock[]): GuardFinding[] {
  const before = new Set(baseBlocks.flatMap((b) => b.body.map((l) => l.text.trim())));
  const hits: { block: CodeBlock; line: number; text: string; count: number }[] = [];
  for (const block of headBlocks) {
    for (const l of block.body) {
      if (!isAddedLine(file, l.line) || before.has(l.text.trim())) continue; // carried-over or moved lines never count
      const count = countLiteralNewlines(l.text).outsideStrings;
      if (count >= 2) hits.push({ block, line: l.line, text: l.text, count });
    }
  }
  const shown = hits.slice(0, MAX_NEWLINE_FINDINGS);
  const more = hits.length - shown.length;
  return shown.map((h, i) => ({
    category: 'doc-destroyed',
    severity: 'fail',
    path: file.path,
    line: h.line,
    message:
      `Line ${h.line} of ${file.path}, which this PR added inside the ${blockName(h.block)} opened at line ${h.block.openLine}, holds ${h.count} written-out "\\n" ` +
      `sequences where line breaks belong: "${snippet(h.text)}". Code squeezed onto one line like this is the double-escaping signature; readers cannot copy it.` +
      (more > 0 && i === shown.length - 1 ? ` ${more} more such line${more === 1 ? '' : 's'} in this file.` : ''),
    remediation: `Split line ${h.line} of ${file.path} into real lines at each literal \\n (the suggestion does exactly that).`,
    suggestion: { path: file.path, startLine: h.line, endLine: h.line, replacement: expandLiteralNewlines(h.text) },
    evidence: { line: h.line, literalNewlines: h.count, blockLine: h.block.openLine } satisfies G13LiteralNewlinesEvidence,
  }));
}

function bulkShrink(file: ChangedFile, ctx: GuardContext, landing: Landing): GuardFinding[] {
  const { bulkShrink: enabled, shrinkFloor, shrinkMinChars } = ctx.config.docs;
  const o = (file.base.text ?? '').length;
  const n = (file.head.text ?? '').length;
  if (!enabled || o === 0 || o < shrinkMinChars || n >= shrinkFloor * o) return [];
  // Text that reappears in another doc of this PR moved there (a README split into docs/ pages).
  if (n + movedText(file, landing).chars >= shrinkFloor * o) return [];
  return [
    {
      category: 'doc-destroyed',
      severity: 'fail',
      path: file.path,
      line: anchorOf(file, file.removed[0]?.start),
      message: `${file.path} shrank from ${o} to ${n} characters (${pct(n / o)} kept, below the ${pct(shrinkFloor)} floor): most of the existing doc was deleted, not edited.`,
      remediation: `Edit ${file.path} surgically: keep its existing sections and change only what the task needs. A deliberate rewrite belongs in its own PR that says so (or set docs.bulkShrink: false).`,
      evidence: { baseChars: o, headChars: n, floor: shrinkFloor } satisfies G13ShrinkEvidence,
    },
  ];
}

export const g13: Guard = {
  id: 'G13',
  name: 'docs preserved',
  evidence: G13_EVIDENCE,
  needs: { services: [], config: ['docs'] },
  appliesTo(file) {
    if (file.status !== 'modified' && file.status !== 'renamed') return false;
    if (file.base.text === null || file.head.text === null) return false;
    return docKindOf(file.path) !== null && docKindOf(file.oldPath ?? file.path) !== null;
  },
  async checkFile(file, ctx) {
    if (file.base.text === null || file.head.text === null) return []; // appliesTo already left these out
    const baseBlocks = codeBlocksOf(file.oldPath ?? file.path, file.base.text);
    const headBlocks = codeBlocksOf(file.path, file.head.text);
    const landing = await landingOf(ctx);
    return [
      ...codeBlockLoss(file, baseBlocks, headBlocks, ctx, landing),
      ...literalNewlineLines(file, baseBlocks, headBlocks),
      ...bulkShrink(file, ctx, landing),
    ];
  },
};
