import { FIXED_SEVERITY, type SlopgateConfig } from '../core/config-schema.js';
import type { GuardFinding } from '../core/guard.js';
import { severityAt } from '../core/path-overrides.js';

/**
 * Applies the config's `severity` (top level, then the overrides matching the finding's file) to what
 * the guards found. The message says so, so that a reviewer sees why a finding is lighter or heavier
 * than the guard made it. The gate's own failures keep theirs (the schema refuses them too).
 */
export function configuredSeverities(config: SlopgateConfig, findings: GuardFinding[]): GuardFinding[] {
  if (Object.keys(config.severity).length === 0 && !config.overrides.some((o) => o.severity)) return findings;
  return findings.map((f) => {
    if (FIXED_SEVERITY.includes(f.category)) return f;
    const set = severityAt(config, f.category, f.path);
    if (!set || set === f.severity) return f;
    return {
      ...f,
      severity: set,
      message: `${f.message} (Severity ${set}, not ${f.severity}: set in the config for ${f.category}${f.path ? ` at this path` : ''}.)`,
    };
  });
}
