import type { Report } from '../core/report.js';
import { InputError } from '../core/errors.js';
import { isOneOf } from '../core/one-of.js';

/**
 * `--fail-level`: how bad something must be for `slopgate check` to exit 1.
 *
 * - `fail` (default): the decision blocks (REFINE, RESEARCH, ASK_AUTHOR, ESCALATE, STUCK) or a
 *   finding has severity `fail`. This is the behaviour without the flag.
 * - `risk`: as `fail`, and also when any finding is `risk`.
 * - `nit`: as `risk`, and also when any finding is `nit` (any finding at all).
 * - `none`: never exit 1 for what was found; a report-only run. Errors still exit 2 or 3.
 */
export const FAIL_LEVELS = ['none', 'nit', 'risk', 'fail'] as const;
export type FailLevel = (typeof FAIL_LEVELS)[number];

const NON_BLOCKING = new Set(['PASS', 'ADVISE', 'SKIPPED']);

/** Severities that count at each level (a finding at or above the level). */
const COUNTED: Record<FailLevel, readonly string[]> = {
  none: [],
  fail: ['fail'],
  risk: ['fail', 'risk'],
  nit: ['fail', 'risk', 'nit'],
};

export function parseFailLevel(value: string | undefined): FailLevel {
  const level = (value ?? 'fail').trim().toLowerCase();
  if (!isOneOf(FAIL_LEVELS, level)) {
    throw new InputError(
      `unknown fail level '${value}'`,
      `use one of ${FAIL_LEVELS.join(', ')} (default fail: exit 1 only when the decision blocks)`,
    );
  }
  return level;
}

/** Exit code of a check that found nothing at the fail level but left an expected check unrun or partial. */
export const NOT_VERIFIED_EXIT = 4;

/**
 * The exit code of a finished check: 1 when the report reaches `level`; 4 when nothing does but the
 * decision is not verified (a check that should have run did not, or ran on part of its input), so
 * that a CI job never goes green on it; else 0. `none` is 0 whatever the report says.
 */
export function exitCodeFor(report: Pick<Report, 'decision' | 'findings'>, level: FailLevel): 0 | 1 | typeof NOT_VERIFIED_EXIT {
  if (level === 'none') return 0;
  if (!NON_BLOCKING.has(report.decision.outcome)) return 1;
  const counted = COUNTED[level];
  if (report.findings.some((f) => counted.includes(f.severity))) return 1;
  return report.decision.notVerified?.length && report.decision.outcome !== 'SKIPPED' ? NOT_VERIFIED_EXIT : 0;
}
