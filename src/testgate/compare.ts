import type { SuiteResult, TestOutcome, UnitStatus } from '../core/suite-result.js';
import { pairTests } from './pair-tests.js';

/** The difference between the baseline (base) and the candidate (merge or head) suite runs. */
export interface SuiteComparison {
  /** Failing in the candidate and not failing at the base (passed, skipped or not there). */
  newlyFailing: TestOutcome[];
  /** Ids failing at the base and passing in the candidate. */
  fixed: string[];
  /** Tests of the base that are gone in the candidate (their unit still builds). */
  removed: TestOutcome[];
  /** Units that build / collect / load at the base and not in the candidate. */
  brokenUnits: UnitStatus[];
  /** The candidate produced no results at all while the base did. */
  suiteBroken: boolean;
}

export function compareSuites(baseline: SuiteResult, candidate: SuiteResult): SuiteComparison {
  if (candidate.status === 'no-results') {
    return { newlyFailing: [], fixed: [], removed: [], brokenUnits: [], suiteBroken: baseline.status === 'ok' };
  }
  // head id → the base test it is (exact, or a parametrized id whose run-dependent text changed)
  const pairs = pairTests(baseline.tests, candidate.tests);
  const pairedBase = new Map<string, TestOutcome>();
  for (const t of candidate.tests) {
    const b = pairs.get(t.id);
    if (b) pairedBase.set(b.id, t);
  }
  const baseBroken = new Set(baseline.units.filter((u) => u.status === 'broken').map((u) => u.id));
  const brokenUnits = candidate.units.filter((u) => u.status === 'broken' && !baseBroken.has(u.id));
  const brokenGroups = new Set(candidate.units.filter((u) => u.status === 'broken').flatMap((u) => [u.id, u.group]));
  const groupOf = new Map(baseline.units.map((u) => [u.id, u.group]));

  const newlyFailing = candidate.tests.filter((t) => t.status === 'failed' && pairs.get(t.id)?.status !== 'failed');
  const fixed = baseline.tests.filter((t) => t.status === 'failed' && pairedBase.get(t.id)?.status === 'passed').map((t) => t.id);
  // A test whose unit no longer builds is reported with the unit, not as removed.
  const removed = baseline.tests.filter(
    (t) => !pairedBase.has(t.id) && !brokenGroups.has(t.unit) && !brokenGroups.has(groupOf.get(t.unit) ?? t.unit),
  );
  return { newlyFailing, fixed, removed, brokenUnits, suiteBroken: false };
}
