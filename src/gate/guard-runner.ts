import { errorMessage, GateInfraError } from '../core/errors.js';
import { GuardBudgetExceeded, type GuardWorkerSession } from './guard-pool.js';
import { GuardSkip, type Guard, type GuardContext, type GuardFinding } from '../core/guard.js';
import type { ChangedFile } from '../core/patch-set.js';
import type { ReportSections } from '../core/report-sections.js';

class GuardTimeout extends Error {
  constructor(ms: number) {
    super(`exceeded its time budget of ${ms} ms`);
  }
}

export function guardErrorFinding(guard: Guard, err: unknown, path?: string): GuardFinding {
  const timedOut = err instanceof GuardTimeout || err instanceof GuardBudgetExceeded;
  return {
    guard: guard.id,
    category: 'guard-error',
    severity: 'fail',
    ...(path ? { path } : {}),
    message: `${guard.id} (${guard.name}) ${timedOut ? '' : 'crashed: '}${errorMessage(err)}${path ? ` while checking ${path}` : ''}`,
    remediation: `${guard.id} could not finish, so this part of the PR is unchecked; re-run the gate, and report the error if it repeats.`,
  };
}

/**
 * Runs one guard in a guard thread (see guard-pool.ts): the budget is enforced by terminating the
 * thread, so even synchronous code that never yields (a catastrophic regular expression) is stopped.
 */
export async function runGuardInThread(
  guard: Guard,
  files: ChangedFile[],
  session: GuardWorkerSession,
  budgetMs: number,
  addSections: (sections: ReportSections) => void,
): Promise<{ findings: GuardFinding[]; errors: number; skipped?: string }> {
  try {
    const r = await session.run(
      guard.id,
      guard.workerModule,
      files.map((f) => f.path),
      budgetMs,
    );
    addSections(r.sections);
    return { findings: r.findings, errors: r.errors, ...(r.skipped !== undefined ? { skipped: r.skipped } : {}) };
  } catch (err) {
    return { findings: [guardErrorFinding(guard, err)], errors: 1 };
  }
}

/**
 * Runs one guard on its files within `budgetMs`: a crash on one file becomes a `guard-error` finding
 * for that file and the next file is checked; running out of time stops the guard with one
 * `guard-error`; a `GuardSkip` reports the guard as skipped; a `GateInfraError` is thrown on.
 */
export async function runOneGuard(
  guard: Guard,
  files: ChangedFile[],
  ctx: GuardContext,
  budgetMs: number,
  controller: AbortController,
): Promise<{ findings: GuardFinding[]; errors: number; skipped?: string }> {
  const findings: GuardFinding[] = [];
  let errors = 0;
  let skipped: string | undefined;
  // Read through a function: the signal flips while the guard awaits, which narrowing cannot see.
  const timedOut = (): boolean => controller.signal.aborted;
  const work = (async () => {
    if (guard.checkFile) {
      for (const file of files) {
        if (timedOut()) throw new GuardTimeout(budgetMs);
        try {
          findings.push(...(await guard.checkFile(file, ctx)));
        } catch (err) {
          if (err instanceof GuardSkip || err instanceof GateInfraError) throw err;
          if (err instanceof GuardTimeout || timedOut()) throw new GuardTimeout(budgetMs);
          errors++;
          findings.push(guardErrorFinding(guard, err, file.path));
        }
      }
    }
    if (guard.checkAll) findings.push(...(await guard.checkAll(files, ctx)));
  })();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new GuardTimeout(budgetMs));
    }, budgetMs);
  });
  try {
    await Promise.race([work, timeout]);
  } catch (err) {
    // The gate cannot run a check it must run: the whole run stops (never a finding, a skip or a pass).
    if (err instanceof GateInfraError) throw err;
    if (err instanceof GuardSkip) skipped = err.reason;
    else {
      errors++;
      findings.push(guardErrorFinding(guard, err));
    }
  } finally {
    clearTimeout(timer);
  }
  work.catch(() => undefined); // a timed-out guard may still reject later
  return { findings, errors, ...(skipped ? { skipped } : {}) };
}
