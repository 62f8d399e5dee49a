import { normalizeText, type Finding } from '../core/finding.js';
import { refinerGuardIds } from '../core/guard-ids.js';
import { NO_FILES_IN_SCOPE } from '../core/phases-not-run.js';
import type { GuardStatus, Report } from '../core/report.js';
import { isBlocking } from '../routing/decide.js';

/**
 * Which guards judge a refiner candidate, in the order their verdicts are reported (the first failing
 * one names the revert); the registry (src/core/guard-ids.ts) says why each other guard is left out. G4 runs
 * whole, not only its file fence: a candidate that adds an ungrounded import or changes a public signature is
 * caught by the same rule that would catch it in a PR.
 */
export const REFINER_GUARD_IDS = refinerGuardIds();

export interface GuardVerdict {
  guard: string;
  status: 'pass' | 'fail' | 'skipped' | 'error';
  /** New findings this guard raised on the candidate (not present before the patch). */
  newFindings: number;
  /** The first new finding's message, or the skip/error reason. */
  message?: string;
}

/**
 * A finding's identity across a patch: category, guard, path and the normalised remediation, without
 * the line. Line numbers shift whenever a patch adds or removes lines above a finding, so the
 * fingerprint id (which includes the line) would call a moved finding "new".
 */
export function looseKey(f: Finding): string {
  return [f.category, f.guard, normalizeText(f.path), normalizeText(f.remediation).replace(/\d+/g, '#').slice(0, 120)].join('|');
}

function countKeys(findings: readonly Finding[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const f of findings) m.set(looseKey(f), (m.get(looseKey(f)) ?? 0) + 1);
  return m;
}

/** Findings of `after` beyond what `before` already had (as a multiset of loose keys). */
export function newFindings(before: readonly Finding[], after: readonly Finding[]): Finding[] {
  const left = countKeys(before);
  const out: Finding[] = [];
  for (const f of after) {
    const k = looseKey(f);
    const n = left.get(k) ?? 0;
    if (n > 0) left.set(k, n - 1);
    else out.push(f);
  }
  return out;
}

/** Findings of `before` that `after` no longer has: what the candidate fixed. */
export function fixedFindings(before: readonly Finding[], after: readonly Finding[]): Finding[] {
  return newFindings(after, before);
}

export interface Comparison {
  improved: boolean;
  blockingBefore: number;
  blockingAfter: number;
  added: Finding[];
  fixed: Finding[];
  verdicts: GuardVerdict[];
  /** Why the candidate is not kept (the first failing guard's message, else the improvement rule). */
  reason?: string;
}

/** Only the findings the refiner's guards raised (a merged finding counts when any source was one of them). */
export function refinerFindings(findings: readonly Finding[]): Finding[] {
  const ids = new Set<string>(REFINER_GUARD_IDS.map((g) => g.toUpperCase()));
  return findings.filter((f) => [f.guard, ...f.confirmedBy].some((g) => ids.has(g.toUpperCase())));
}

function verdictOf(id: string, status: GuardStatus | undefined, added: Finding[]): GuardVerdict {
  const mine = added.filter((f) => f.guard.toUpperCase() === id.toUpperCase());
  if (mine.length) return { guard: id, status: 'fail', newFindings: mine.length, message: mine[0]!.message };
  if (!status) return { guard: id, status: 'skipped', newFindings: 0, message: 'not run' };
  // A guard with no candidate file in scope did look (the candidate may simply equal the base there).
  if (status.status === 'skipped' && status.reason === NO_FILES_IN_SCOPE) return { guard: id, status: 'pass', newFindings: 0 };
  if (status.status === 'skipped' || status.status === 'error') {
    return { guard: id, status: status.status, newFindings: 0, ...(status.reason ? { message: status.reason } : {}) };
  }
  return { guard: id, status: 'pass', newFindings: 0 };
}

/**
 * The keep rule: the candidate must strictly improve the gate, i.e. fewer blocking findings than before
 * and no finding that was not there before (a patch that fixes one thing and breaks another is not
 * progress). A guard that newly errors on the candidate adds a guard-error finding, so it fails too:
 * unchecked is not passed.
 */
export function compare(before: readonly Finding[], candidate: Report, strict: boolean): Comparison {
  const after = refinerFindings(candidate.findings);
  const added = newFindings(before, after);
  const fixed = fixedFindings(before, after);
  const blockingBefore = before.filter((f) => isBlocking(f, strict)).length;
  const blockingAfter = after.filter((f) => isBlocking(f, strict)).length;
  const byId = new Map(candidate.guards.map((g) => [g.id.toUpperCase(), g]));
  const verdicts = REFINER_GUARD_IDS.map((id) => verdictOf(id, byId.get(id.toUpperCase()), added));
  const firstFail = verdicts.find((v) => v.status === 'fail');
  let reason: string | undefined;
  if (firstFail) reason = `${firstFail.guard} failed: ${firstFail.message ?? ''}`;
  else if (blockingAfter >= blockingBefore) {
    reason = `no strict improvement: ${blockingBefore} blocking finding(s) before, ${blockingAfter} after`;
  }
  return { improved: reason === undefined, blockingBefore, blockingAfter, added, fixed, verdicts, ...(reason ? { reason } : {}) };
}
