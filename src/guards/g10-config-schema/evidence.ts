import { z } from 'zod';
import type { EvidenceSchema } from '../../core/evidence.js';

/** A config file its JSON Schema rejects: the best-ranked problem, what the tool does with it, and the other places. */
export const g10SchemaEvidence = z.object({
  /** The bundled schema's file name. */
  schema: z.string(),
  path: z.string(),
  keyword: z.string(),
  expected: z.string(),
  actual: z.string().nullable(),
  /** The tool-behaviour row that judged it, or null when no row knows the tool. */
  tool: z.string().nullable(),
  verdict: z.enum(['rejects', 'warns', 'ignores']),
  didYouMean: z.string().optional(),
  others: z.array(z.string()),
});
export type G10SchemaEvidence = z.infer<typeof g10SchemaEvidence>;

/** An ESLint flat config object ESLint refuses to load. */
export const g10EslintFlatEvidence = z.object({
  tool: z.literal('eslint-flat'),
  verdict: z.literal('rejects'),
  key: z.string(),
  others: z.array(z.string()),
});
export type G10EslintFlatEvidence = z.infer<typeof g10EslintFlatEvidence>;

/** Every evidence shape G10 writes. */
export const G10_EVIDENCE: readonly EvidenceSchema[] = [g10SchemaEvidence, g10EslintFlatEvidence];
