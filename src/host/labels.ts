import type { Outcome } from '../routing/types.js';
import type { ReviewHost } from './review-host.js';

export const STUCK_LABEL = 'slopgate:stuck';
export const NEEDS_HUMAN_LABEL = 'slopgate:needs-human';
/** Put on a PR by a maintainer: the PR's build-manifest edits are sanctioned (G1). */
export const ALLOW_MANIFEST_LABEL = 'slopgate:allow-manifest';

const DECISION_LABELS = [STUCK_LABEL, NEEDS_HUMAN_LABEL] as const;

/** The decision labels a PR should carry for an outcome. */
export function labelsFor(outcome: Outcome): string[] {
  if (outcome === 'STUCK') return [STUCK_LABEL];
  if (outcome === 'ESCALATE') return [NEEDS_HUMAN_LABEL];
  return [];
}

/** Adds and removes slopgate's decision labels so they match the outcome; other labels are untouched. */
export async function syncDecisionLabels(
  host: ReviewHost,
  issueNumber: number,
  current: string[],
  outcome: Outcome,
): Promise<{ added: string[]; removed: string[] }> {
  const want = new Set(labelsFor(outcome));
  const have = new Set(current);
  const added = [...want].filter((l) => !have.has(l));
  const removed = DECISION_LABELS.filter((l) => have.has(l) && !want.has(l));
  const labels = host.labels;
  // A host without labels (or a token that may not set them) keeps none: the check run carries the decision.
  if (!labels) return { added: [], removed: [] };
  if (added.length) await labels.addLabels(issueNumber, added);
  for (const name of removed) await labels.removeLabel(issueNumber, name);
  return { added, removed };
}
