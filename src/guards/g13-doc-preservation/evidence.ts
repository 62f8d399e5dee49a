import { z } from 'zod';
import type { EvidenceSchema } from '../../core/evidence.js';

/** A doc that lost most of its fenced code; the refiner's `g13-restore-blocks` recipe puts `removedBlocks` back. */
export const g13CodeBlocksEvidence = z.object({
  baseCodeChars: z.number(),
  headCodeChars: z.number(),
  removedBlocks: z.array(z.object({ baseLine: z.number(), info: z.string(), firstLine: z.string() })),
});
export type G13CodeBlocksEvidence = z.infer<typeof g13CodeBlocksEvidence>;

/** An added code-block line with written-out `\n` sequences; the refiner's `g13-literal-newlines` recipe splits it. */
export const g13LiteralNewlinesEvidence = z.object({ line: z.number(), literalNewlines: z.number(), blockLine: z.number() });
export type G13LiteralNewlinesEvidence = z.infer<typeof g13LiteralNewlinesEvidence>;

/** A doc that shrank below `docs.shrinkFloor`. */
export const g13ShrinkEvidence = z.object({ baseChars: z.number(), headChars: z.number(), floor: z.number() });
export type G13ShrinkEvidence = z.infer<typeof g13ShrinkEvidence>;

/** Every evidence shape G13 writes. */
export const G13_EVIDENCE: readonly EvidenceSchema[] = [g13CodeBlocksEvidence, g13LiteralNewlinesEvidence, g13ShrinkEvidence];
