import type { Finding, Severity } from '../core/finding.js';
import type { GuardStatus } from '../core/report.js';

const WORST_FIRST: Severity[] = ['fail', 'risk', 'nit'];

/**
 * A guard that found something takes the status of the worst finding it still stands behind after
 * merging and dismissals — `fail`, `risk` or `nit` — so a guard with only advisory findings never reads
 * as failed under an ADVISE decision. Every finding it found was dismissed: `pass`. Skipped and errored
 * guards keep their status.
 */
export function settleGuardStatuses(statuses: GuardStatus[], findings: readonly Finding[]): GuardStatus[] {
  return statuses.map((s) => {
    if (s.status !== 'fail') return s;
    const mine = findings.filter((f) => !f.dismissed && (f.guard === s.id || f.confirmedBy.includes(s.id)));
    const worst = WORST_FIRST.find((sev) => mine.some((f) => f.severity === sev));
    return { ...s, status: worst ?? 'pass' };
  });
}
