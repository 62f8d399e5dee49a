import type { Guard } from '../core/guard.js';
import { g1 } from './g1-manifest-safety.js';
import { g4 } from './g4-scope-rules.js';
import { g10 } from './g10-config-schema.js';
import { g9 } from './g9-history.js';

/**
 * The guard registry, in the fixed order the pipeline runs them. Every guard runs on every file it
 * applies to; the order only decides the order of the report's guard table.
 */
export const GUARDS: Guard[] = [g1, g4, g10, g9];

export function guardById(id: string): Guard | undefined {
  return GUARDS.find((g) => g.id.toLowerCase() === id.toLowerCase());
}
