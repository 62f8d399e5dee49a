import { z } from 'zod';
import type { EvidenceSchema } from '../../core/evidence.js';

/** A file whose Ψ-lite score is below the threshold: the score, its terms, and the lines behind the slop. */
export const psiScoreEvidence = z.object({
  psi: z.number(),
  gamma: z.number(),
  ungrounded: z.number(),
  omega: z.number(),
  components: z.object({
    literalNewlines: z.number(),
    blankRuns: z.number(),
    trailingWhitespace: z.number(),
    fencedSource: z.number(),
    nearEmpty: z.number(),
  }),
  lines: z.object({ literalNewlines: z.array(z.number()), blankRuns: z.array(z.number()), trailingWhitespace: z.array(z.number()) }),
  gammaEvidence: z.array(z.string()),
  threshold: z.number(),
});
export type PsiScoreEvidence = z.infer<typeof psiScoreEvidence>;

/** Every evidence shape Ψ-lite writes. */
export const PSI_EVIDENCE: readonly EvidenceSchema[] = [psiScoreEvidence];
