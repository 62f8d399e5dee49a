import type { Bucket } from './categories.js';

/** The routing decision every report carries (produced by routing/decide.ts, read by reporters and hosts). */

export type Outcome = 'PASS' | 'ADVISE' | 'REFINE' | 'RESEARCH' | 'ASK_AUTHOR' | 'ESCALATE' | 'STUCK' | 'SKIPPED';

export type Conclusion = 'success' | 'neutral' | 'failure' | 'action_required';

/** What should happen next, for the App (or a CI job reading the JSON report). */
export type NextAction =
  'none' | 'annotate' | 'fix-and-push' | 'offer-refine' | 'auto-refine' | 'ask-author' | 'request-review' | 'label-stuck';

/** Navigator tiers: 1 fast path, 2 route table, 3 LLM tie-breaker, 5 escalate to a human. */
export type Tier = 1 | 2 | 3 | 5;

/** Which tier made a decision: 'fallback' is the table's choice after the navigator's answer was refused. */
export type RoutingSource = 'fast-path' | 'deterministic' | 'navigator' | 'fallback' | 'escalate';

export interface Decision {
  outcome: Outcome;
  conclusion: Conclusion;
  reason: string;
  next: NextAction;
  tier: Tier;
  round: number;
  maxRounds: number;
  /** True exactly when the outcome is STUCK. */
  stuck: boolean;
  /** Findings that block (fail, or risk under strict). */
  blocking: number;
  /** Findings that only advise. */
  advisory: number;
  /** Blocking finding ids per routing bucket. */
  buckets: Partial<Record<Bucket, string[]>>;
  /** Which tier decided (set on every decision `decide` makes). */
  source?: RoutingSource;
  /** The outcomes the decision was chosen from (one for the table, two or more when the navigator was asked). */
  candidates?: Outcome[];
  /**
   * What was expected to run and did not, or ran on part of its input (the coverage record's gaps). A
   * decision with any is never `success`: PASS becomes ADVISE (`neutral`) with "not verified: …" as its reason.
   */
  notVerified?: string[];
}
