import { errorMessage } from '../core/errors.js';
import { NO_FILES_IN_SCOPE } from '../core/phases-not-run.js';
import { guardOnAt } from '../core/path-overrides.js';
import type { Guard, GuardFinding } from '../core/guard.js';
import type { GuardStatus } from '../core/report.js';
import { guardErrorFinding, runGuardInThread, runOneGuard } from './guard-runner.js';
import type { GuardWorkerSession } from './guard-pool.js';
import { skipBeforeRun } from './guard-skips.js';
import type { GateOptions } from './gate-options.js';
import { guardContext, type GateRun } from './run-setup.js';

export interface GuardStep {
  status: GuardStatus;
  findings: GuardFinding[];
}

/** Where a guard runs: in a guard thread (budget enforced by terminating it) or in this process. */
export interface GuardPlacement {
  threaded: (guard: Guard) => boolean;
  session: GuardWorkerSession;
}

/**
 * Runs one guard through its skips, its files in scope and its budget, and reports its status:
 * skipped (with the reason), error (it crashed or ran out of time), fail (it found something) or pass.
 */
export async function runGuardStep(guard: Guard, run: GateRun, opts: GateOptions, placement: GuardPlacement): Promise<GuardStep> {
  const t0 = Date.now();
  const status: GuardStatus = { id: guard.id, name: guard.name, status: 'pass', files: 0, findings: 0, ms: 0 };
  const controller = new AbortController();
  const ctx = guardContext(run, controller.signal, guard);
  let skip = skipBeforeRun(guard, run, opts);
  if (!skip) {
    try {
      skip = (await guard.skipReason?.(ctx)) ?? null;
    } catch (err) {
      return { status: { ...status, status: 'error', reason: errorMessage(err) }, findings: [guardErrorFinding(guard, err)] };
    }
  }
  if (skip) return { status: { ...status, status: 'skipped', reason: skip }, findings: [] };

  const mine = run.files.filter((f) => {
    // Config overrides by path can turn a guard off (or on) for some files.
    if (!guardOnAt(run.config, guard.id, f.path)) return false;
    try {
      return guard.appliesTo(f, ctx);
    } catch {
      return false;
    }
  });
  status.files = mine.length;
  if (mine.length === 0 && !guard.runsWithoutFiles) {
    return { status: { ...status, status: 'skipped', reason: NO_FILES_IN_SCOPE, ms: Date.now() - t0 }, findings: [] };
  }

  const budget = guard.budgetMs?.(ctx) ?? run.config.guards.timeoutMs;
  const ran = placement.threaded(guard)
    ? await runGuardInThread(guard, mine, placement.session, budget, (s) => Object.assign(run.sections, s))
    : await runOneGuard(guard, mine, ctx, budget, controller);
  const { errors, skipped } = ran;
  // A guard that reads the whole change (G8, G9) may report on a file its override turned it off for.
  const findings = ran.findings.filter((f) => f.category === 'guard-error' || guardOnAt(run.config, guard.id, f.path));
  for (const f of findings) f.guard ??= guard.id;
  status.findings = findings.length;
  status.ms = Date.now() - t0;
  if (skipped !== undefined && findings.length === 0) {
    status.status = 'skipped';
    status.reason = skipped;
  } else if (errors > 0) {
    status.status = 'error';
    status.reason = findings.find((f) => f.category === 'guard-error')?.message;
  } else if (findings.length > 0) status.status = 'fail';
  return { status, findings };
}
