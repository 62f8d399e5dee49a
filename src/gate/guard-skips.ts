import type { Guard } from '../core/guard.js';
import { guardOnSomewhere } from '../core/path-overrides.js';
import type { GateOptions } from './gate-options.js';
import type { GateRun } from './run-setup.js';

/** Reason of a guard skipped by `--only`, config `guards.disable` or the caller's `skip`, before it looks at anything. */
export function skipBeforeRun(guard: Guard, run: GateRun, opts: Pick<GateOptions, 'only' | 'skip'>): string | null {
  const id = guard.id.toUpperCase();
  const only = opts.only?.map((g) => g.toUpperCase());
  if (only && !only.includes(id)) return 'not selected (--only)';
  // Off at the top level and not turned back on for any path by an override.
  if (!guardOnSomewhere(run.config, id)) return 'disabled in config (guards.disable)';
  return opts.skip?.[guard.id] || null;
}
