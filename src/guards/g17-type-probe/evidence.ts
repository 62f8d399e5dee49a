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

/**
 * A member or call pyright says does not exist (Python). `errorAt`: every place pyright reported it
 * (`path:line`); `declaredAt`: the changed declaration the finding sits on when the error is in a caller
 * the pull request did not change; `certain`: the receiver is a builtin literal or an instance of a
 * class the tree declares, so the line raises at run time.
 */
export const g17PyrightEvidence = z.object({
  checker: z.literal('pyright'),
  rule: z.string(),
  subject: z.string().nullable(),
  className: z.string().nullable(),
  errorAt: z.array(z.string()),
  declaredAt: z.string().nullable(),
  certain: z.boolean(),
});
export type G17PyrightEvidence = z.infer<typeof g17PyrightEvidence>;

/** Every evidence shape G17 writes. */
export const G17_EVIDENCE: readonly EvidenceSchema[] = [g17ProbeEvidence, g17PyrightEvidence];
