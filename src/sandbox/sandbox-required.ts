import { GateInfraError } from '../core/errors.js';
import { sandboxCapabilities } from './sandbox-probe.js';
import { effectiveIsolation } from './sandbox.js';

/**
 * The test gate is on and a suite is to run, but the bubblewrap sandbox cannot start here and the
 * operator has not allowed `best-effort`: the gate stops with a {@link GateInfraError} rather than
 * skipping G8, so that a PR that breaks a test is never reported as passing. (Turning the tests off on
 * purpose — `tests.enabled: false`, `--no-tests`, the Action's `tests: false` — skips G8 before this.)
 */
export function requireSandbox(isolation: 'required' | 'best-effort' = 'required'): void {
  if (effectiveIsolation(isolation) === 'best-effort') return;
  const why = sandboxCapabilities().unavailable;
  if (!why) return;
  const ignored =
    isolation === 'best-effort'
      ? ' (tests.isolation: best-effort is ignored unless the operator sets SLOPGATE_TESTS_ISOLATION=best-effort)'
      : '';
  throw new GateInfraError(
    `the sandbox could not start — ${why}${ignored}`,
    'install bubblewrap (and allow unprivileged user namespaces), or run with --no-tests',
    'sandbox',
  );
}
