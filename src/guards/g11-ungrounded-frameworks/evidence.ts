import { z } from 'zod';
import type { EvidenceSchema } from '../../core/evidence.js';

/** A doc that names a framework the repository does not use: the claim, its lines, and what the repository declares. */
export const g11FrameworkEvidence = z.object({
  framework: z.string(),
  literal: z.string(),
  lines: z.array(z.number()),
  declared: z.array(z.string()),
});
export type G11FrameworkEvidence = z.infer<typeof g11FrameworkEvidence>;

/** Every evidence shape G11 writes. */
export const G11_EVIDENCE: readonly EvidenceSchema[] = [g11FrameworkEvidence];
