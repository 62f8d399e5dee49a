import { evidenceProblem, type EvidenceSchema } from '../../src/core/evidence.js';
import type { Finding } from '../../src/core/finding.js';
import type { Guard } from '../../src/core/guard.js';
import { QA_EVIDENCE, QA_GUARD } from '../../src/qa/findings.js';

/**
 * Every finding whose evidence its source's declared shapes reject, as `guard category path:line: why`.
 * Sources that declare no shapes (the tests' own stand-in guards) are not checked, and neither is a
 * finding confirmed by several sources: merging gives it the union of their evidence.
 */
export function evidenceViolations(findings: readonly Finding[], guards: readonly Guard[]): string[] {
  const shapes = new Map<string, readonly EvidenceSchema[]>([[QA_GUARD, QA_EVIDENCE]]);
  for (const g of guards) if (g.evidence) shapes.set(g.id, g.evidence);
  const out: string[] = [];
  for (const f of findings) {
    const declared = shapes.get(f.guard);
    if (!f.evidence || !declared || f.confirmedBy.length > 1) continue;
    const problem = evidenceProblem(declared, f.evidence);
    if (problem) out.push(`${f.guard} ${f.category} ${f.path ?? ''}:${f.line ?? ''}: ${problem}`);
  }
  return out;
}
