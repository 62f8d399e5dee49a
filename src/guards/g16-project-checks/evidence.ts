import { z } from 'zod';
import type { EvidenceSchema } from '../../core/evidence.js';

/**
 * A file the project's formatter rejects on lines the PR wrote. The refiner's `g16-reformat` recipe reruns
 * `tool` with the same `edition` and the base's `config`.
 */
export const g16FormatEvidence = z.object({
  tool: z.enum(['gofmt', 'rustfmt']),
  /** The command the author runs to fix it. */
  command: z.string(),
  /** Where the project runs the check (`convention`, or the CI file and line). */
  source: z.string(),
  edition: z.string().optional(),
  config: z.string().optional(),
});
export type G16FormatEvidence = z.infer<typeof g16FormatEvidence>;

/** Every evidence shape G16 writes. */
export const G16_EVIDENCE: readonly EvidenceSchema[] = [g16FormatEvidence];
