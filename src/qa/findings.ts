import { z } from 'zod';
import type { Category } from '../core/categories.js';
import type { EvidenceSchema } from '../core/evidence.js';
import type { GuardFinding } from '../core/guard.js';
import { QA_SLOTS, QA_VERDICTS, type QaResult, type QaSlot } from './types.js';

export const QA_GUARD = 'qa';

/** A gap the Q&A phase left: the question, the defender's verdict and citation, and why a `handled` was refused. */
export const qaGapEvidence = z.object({
  slot: z.enum(QA_SLOTS),
  question: z.string(),
  verdict: z.enum(QA_VERDICTS),
  citation: z.string().nullable(),
  flipped: z.string().optional(),
});
export type QaGapEvidence = z.infer<typeof qaGapEvidence>;

/** Every evidence shape the Q&A phase writes. */
export const QA_EVIDENCE: readonly EvidenceSchema[] = [qaGapEvidence];

/** Which routing category a gap in each slot belongs to (all in the closed route table). */
const CATEGORY_OF: Record<QaSlot, Category> = {
  evidence: 'unmet-criterion',
  edge: 'edge-case-gap',
  scope: 'scope-creep',
};

const REMEDIATION_OF: Record<QaSlot, string> = {
  evidence: 'Point to the changed lines that do what the title says, or change the code (or the title) so they match.',
  edge: 'Handle the input the question names, or add a test that shows it is handled.',
  scope: 'Drop the change the goal did not need, or explain in the PR description why it belongs here.',
};

/**
 * One finding per gap. Gaps are `risk`: a model's judgement advises (and blocks under `strict`),
 * it does not fail a PR on its own word.
 */
export function qaFindings(result: QaResult): GuardFinding[] {
  return result.answers
    .filter((a) => a.verdict === 'gap')
    .map((a) => {
      const q = result.questions.find((x) => x.slot === a.slot);
      const why = a.flipped ? `answered "handled" but ${a.flipped}; ` : '';
      return {
        guard: QA_GUARD,
        category: CATEGORY_OF[a.slot],
        severity: 'risk',
        message: `Q&A ${a.slot} question left a gap: ${why}${a.rationale}`.slice(0, 1000),
        remediation: REMEDIATION_OF[a.slot],
        evidence: {
          slot: a.slot,
          question: q?.question ?? '',
          verdict: a.verdict,
          citation: a.evidence,
          ...(a.flipped ? { flipped: a.flipped } : {}),
        } satisfies QaGapEvidence,
      };
    });
}

/** A crash of the phase: the stuck bucket, so a broken Q&A phase never reads as a passed one. */
export function qaCrashFinding(reason: string): GuardFinding {
  return {
    guard: QA_GUARD,
    category: 'critic-error',
    severity: 'fail',
    message: `The Q&A self-consistency phase crashed: ${reason}`,
    remediation: 'Re-run the check once the model endpoint works; until then treat this PR as ungated by the Q&A phase.',
  };
}
