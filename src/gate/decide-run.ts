import type { SlopgateConfig } from '../core/config-schema.js';
import type { Decision } from '../core/decision.js';
import type { Finding } from '../core/finding.js';
import type { GuardStatus, ReportSections } from '../core/report.js';
import { decide } from '../routing/decide.js';
import type { DecideOptions } from '../routing/types.js';
import { NO_FILES_IN_SCOPE, testsNotRunReason } from '../core/phases-not-run.js';
import { gapLines, isGap, type CoverageEntry } from '../core/coverage.js';

export interface DecideRunInput {
  findings: Finding[];
  statuses: GuardStatus[];
  sections: ReportSections;
  config: SlopgateConfig;
  round?: number | undefined;
  decide?: Omit<DecideOptions, 'strict' | 'round' | 'maxRounds'> | undefined;
  /** The run's coverage record (core/coverage.ts): its gaps keep the decision from `success`. */
  coverage?: CoverageEntry[];
}

/** Routes the run's findings to one decision, with the evidence count and why the tests did not run. */
export function decideRun(input: DecideRunInput): Decision {
  // Evidence = guards that were asked to look (a guard with no file in scope did look).
  const evidence = input.statuses.filter((g) => g.status !== 'skipped' || g.reason === NO_FILES_IN_SCOPE).length;
  const gaps = gapLines(input.coverage ?? []);
  // A test gap is named as one; "tests not run" would say it twice.
  const testGap = (input.coverage ?? []).some((e) => e.check === 'G8' && isGap(e) && e.reason?.startsWith('the suite did not start'));
  const testsNotRun = testGap ? undefined : testsNotRunReason(input.statuses, input.sections.tests);
  return decide(input.findings, {
    ...input.decide,
    ...(testsNotRun ? { testsNotRun } : {}),
    ...(gaps.length ? { notVerified: gaps } : {}),
    evidence,
    strict: input.config.strict,
    round: input.round ?? 1,
    maxRounds: input.config.maxRounds,
  });
}
