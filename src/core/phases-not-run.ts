import type { GuardStatus } from './report.js';
import type { TestsSection } from './report-sections.js';

/**
 * What did not run in a gate run, read from the guard statuses and the tests section, so the decision's
 * reason and every reporter (text and Markdown list the guard table, SARIF has no table) say the same.
 */

/** The skip reason of a guard that had no changed file in scope: it did look, so it is no gap in the run. */
export const NO_FILES_IN_SCOPE = 'no changed files in scope';

/**
 * Why a project tool that needs the installed dependencies did not run when the operator chose a run
 * without them (tests off, `--no-tests`, `tests.install: off`): named in the report, no gap.
 */
/** A project check another check already covers (a build G8's test run compiles at both sides): no gap. */
export const COVERED_BY_TESTS = 'covered by the test gate';
export const NEEDS_TESTS_ON = "it needs the project's dependencies, which slopgate installs only with tests on";
export const NEEDS_INSTALL_ON = "it needs the project's dependencies, and tests.install is off";

/** Why the test gate (G8) did not run the tests, when it was part of this run and did not. */
export function testsNotRunReason(statuses: readonly GuardStatus[], tests: TestsSection | undefined): string | undefined {
  if (tests?.notRun !== undefined) return tests.notRun;
  const g8 = statuses.find((s) => s.id === 'G8');
  if (!g8) return undefined;
  if (g8.status === 'skipped') return g8.reason ?? 'the test gate was skipped';
  if (g8.status === 'error') return 'the test gate crashed or ran out of time';
  return undefined;
}

/** The guards skipped for a cause (turned off, not selected, a tool or store missing), in report order. */
export function guardsSkippedForCause(statuses: readonly GuardStatus[]): (GuardStatus & { reason: string })[] {
  return statuses.filter(
    (s): s is GuardStatus & { reason: string } => s.status === 'skipped' && !!s.reason && s.reason !== NO_FILES_IN_SCOPE,
  );
}
