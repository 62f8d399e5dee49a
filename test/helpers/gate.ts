import { runGate, type GateOptions } from '../../src/gate/run-gate.js';
import { configSchema, type SlopgateConfigInput } from '../../src/core/config-schema.js';
import type { Guard } from '../../src/core/guard.js';
import type { Report } from '../../src/core/report.js';
import { evidenceViolations } from './evidence.js';
import type { TestRepo } from './git-repo.js';

/** Words of gate/guard-services.ts's UndeclaredService message. */
const UNDECLARED = 'does not name it in its needs.services';

/**
 * Runs the real pipeline with the given guards on `main` → `pr` of a test repo. Fails when a guard wrote
 * evidence that its declared evidence shapes reject (see core/evidence.ts), or read a run service its `needs`
 * do not name, so every guard test checks both.
 */
export async function gate(
  repo: TestRepo,
  guards: Guard[],
  opts: Partial<Omit<GateOptions, 'config'>> & { config?: SlopgateConfigInput } = {},
): Promise<Report> {
  const { config, ...rest } = opts;
  // Test guards (T1, …) are not in the registry, so guards.disable is set after validation.
  const disable = config?.guards?.disable ?? [];
  const parsed = configSchema.parse({ ...config, guards: { ...config?.guards, disable: [] } });
  parsed.guards.disable = disable;
  const report = await runGate({
    repoDir: repo.dir,
    base: 'main',
    head: 'pr',
    guards,
    config: parsed,
    ...rest,
  });
  const bad = evidenceViolations(report.findings, guards);
  if (bad.length) throw new Error(`evidence its guard's schema rejects:\n${bad.join('\n')}`);
  // A guard that read a run service its `needs` do not name (gate/guard-services.ts) fails its test here,
  // whatever else the test looks at.
  const undeclared = report.findings.filter((f) => f.category === 'guard-error' && f.message.includes(UNDECLARED));
  if (undeclared.length) throw new Error(`a guard read an undeclared service:\n${undeclared.map((f) => f.message).join('\n')}`);
  return report;
}

/** Findings of one guard, for terse assertions. */
export function findingsOf(report: Report, guard: string) {
  return report.findings.filter((f) => f.guard === guard);
}
