import { z } from 'zod';
import type { EvidenceSchema } from '../../core/evidence.js';

/** A member or call the TypeScript compiler says does not exist on its receiver (`certain`: the shape is declared in the same file). */
export const g17ProbeEvidence = z.object({
  compilerCode: z.string(),
  receiver: z.string(),
  declaredAt: z.string(),
  errorAt: z.string(),
  certain: z.boolean(),
});
export type G17ProbeEvidence = z.infer<typeof g17ProbeEvidence>;

/** Every evidence shape G17 writes. */
export const G17_EVIDENCE: readonly EvidenceSchema[] = [g17ProbeEvidence];
