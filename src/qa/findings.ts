import type { Category } from '../core/categories.js';
import type { GuardFinding } from '../core/guard.js';
import type { QaResult, QaSlot } from './types.js';

export const QA_GUARD = 'qa';

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
        },
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
