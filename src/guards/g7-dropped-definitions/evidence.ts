import { z } from 'zod';
import type { EvidenceSchema } from '../../core/evidence.js';

/** A head line that still uses a lost name. */
const reference = z.object({ path: z.string(), line: z.number(), how: z.enum(['import', 'qualified', 'bare', 'member', 'all']) });

/**
 * Top-level definitions a file lost while the head still uses them (or a placeholder comment stands in
 * for them). The refiner's `g7-restore-definitions` recipe copies `dropped` back from the base.
 */
export const g7DroppedEvidence = z.object({
  dropped: z.array(z.object({ name: z.string(), kind: z.string(), baseLine: z.number(), baseEndLine: z.number() })),
  /** The base path, when the PR renamed the file. */
  basePath: z.string().optional(),
  references: z.array(reference).optional(),
  placeholderComments: z.array(z.object({ line: z.number(), text: z.string() })).optional(),
  headHasSyntaxError: z.boolean(),
});
export type G7DroppedEvidence = z.infer<typeof g7DroppedEvidence>;

/**
 * Public definitions removed together with every use in the repository: whether that is an API removal
 * or an accident is a question of intent, which the navigator may put to a model.
 */
export const g7RemovedPublicEvidence = z.object({
  removedPublic: z.array(z.object({ name: z.string(), kind: z.string(), baseLine: z.number() })),
});
export type G7RemovedPublicEvidence = z.infer<typeof g7RemovedPublicEvidence>;

/** A definition that looks renamed: a definition with a similar body under another name. */
export const g7RenamedEvidence = z.object({
  name: z.string(),
  baseLine: z.number(),
  renamedTo: z.string(),
  renamedIn: z.string(),
  headLine: z.number(),
  similarity: z.number(),
  references: z.array(reference).optional(),
});
export type G7RenamedEvidence = z.infer<typeof g7RenamedEvidence>;

/** Every evidence shape G7 writes. */
export const G7_EVIDENCE: readonly EvidenceSchema[] = [g7DroppedEvidence, g7RemovedPublicEvidence, g7RenamedEvidence];
