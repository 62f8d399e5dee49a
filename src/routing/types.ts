export type { Conclusion, Decision, NextAction, Outcome, RoutingSource, Tier } from '../core/decision.js';

export interface DecideOptions {
  strict?: boolean;
  round?: number;
  maxRounds?: number;
  /** The LLM refiner is configured (offer the Refine button). */
  refinerEnabled?: boolean;
  /** Refine automatically on a REFINE outcome. */
  autoRefine?: boolean;
  /** Tier-1 skip (draft PR, ignored author): the reason. */
  skipReason?: string;
  /**
   * How many sources the decision rests on (guards that ran, critic reports). When given and 0, an
   * empty result is STUCK, never PASS (the no-evidence guard).
   */
  evidence?: number;
  /**
   * The test gate did not run the tests (skipped, or stopped): why. Every decision reason then says
   * "tests not run: <why>", so a pass never reads as "no regressions".
   */
  testsNotRun?: string;
  /** The coverage record's gaps (see core/coverage.ts `gapLines`): with any, the decision is never `success`. */
  notVerified?: string[];
}
