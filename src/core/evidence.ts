import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import type { Finding } from './finding.js';

/**
 * One shape of the structured evidence a guard writes on a finding. A guard's folder declares each
 * shape it writes as a zod object (its type is `z.infer` of the schema), its writers check their objects
 * against that type with `satisfies`, and its readers (refiner recipes, the navigator) read through
 * {@link evidenceAs}: renaming a key on either side breaks the type check of the other.
 */
export type EvidenceSchema = z.ZodType<Record<string, unknown>>;

/**
 * The evidence of `f` read as `schema`, or undefined when it has another shape (another kind of finding
 * from the same guard, or a report written by an older version). Keys the schema does not name are
 * dropped, so fields a merged finding gained from another source do not stop the read.
 */
export function evidenceAs<T>(schema: z.ZodType<T>, f: Pick<Finding, 'evidence'>): T | undefined {
  const parsed = schema.safeParse(f.evidence);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Why `evidence` is none of `shapes` exactly, or null when one shape accepts it without dropping a key.
 * A key no shape declares counts as a problem: a guard must declare everything it writes.
 */
export function evidenceProblem(shapes: readonly EvidenceSchema[], evidence: Record<string, unknown>): string | null {
  if (shapes.length === 0) return 'the guard declares no evidence shape, but the finding has evidence';
  // Evidence travels as JSON (reports, the store): compare what survives a round trip, keys in any order.
  const plain: unknown = JSON.parse(JSON.stringify(evidence));
  const problems: string[] = [];
  for (const [i, shape] of shapes.entries()) {
    const parsed = shape.safeParse(plain);
    if (!parsed.success) {
      problems.push(`shape ${i + 1}: ${parsed.error.issues.map((e) => `${e.path.join('.') || '(root)'}: ${e.message}`).join('; ')}`);
      continue;
    }
    if (isDeepStrictEqual(JSON.parse(JSON.stringify(parsed.data)), plain)) return null;
    problems.push(`shape ${i + 1}: accepts it only after dropping keys it does not declare`);
  }
  return problems.join(' | ');
}
