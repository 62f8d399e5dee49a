import { z } from 'zod';
import type { EvidenceSchema } from '../../core/evidence.js';

/** A file that no longer parses: the parser that refused it and where (and where the base already failed). */
export const g2ParseEvidence = z.object({
  parser: z.string(),
  line: z.number(),
  column: z.number(),
  baseLine: z.number().optional(),
  baseColumn: z.number().optional(),
});
export type G2ParseEvidence = z.infer<typeof g2ParseEvidence>;

/** A workflow `run:` script that `bash -n` refuses. */
export const g2ShellEvidence = z.object({ parser: z.literal('bash -n'), line: z.number(), scriptLine: z.number(), step: z.string() });
export type G2ShellEvidence = z.infer<typeof g2ShellEvidence>;

/** Every evidence shape G2 writes. */
export const G2_EVIDENCE: readonly EvidenceSchema[] = [g2ParseEvidence, g2ShellEvidence];
