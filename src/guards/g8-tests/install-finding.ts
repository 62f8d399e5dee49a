import type { GuardFinding } from '../../core/guard.js';
import type { TestGateResult } from '../../testgate/index.js';
import type { G8InstallEvidence } from './evidence.js';

/**
 * The dependencies installed at the base but not with this change, and the installer says why (a
 * version that does not exist, a conflict, a lockfile out of step with its manifest): the change
 * breaks every install of the project, CI's included. The finding points at the dependency file the
 * change edited.
 */
export function installFailedFinding(res: TestGateResult): GuardFinding | null {
  const f = res.installFailed;
  if (!f) return null;
  const eco = res.dependencies?.head.ecosystem ?? 'the package manager';
  const where = f.culprits.length ? f.culprits.map((p) => `\`${p}\``).join(', ') : 'the dependency files';
  return {
    category: 'build-broken',
    severity: 'fail',
    ...(f.culprits[0] ? { path: f.culprits[0] } : {}),
    message: `The project's dependencies no longer install with this change (${eco}; they did at the base): ${f.message}`,
    remediation: `Fix ${where} so that the install succeeds — a version that exists on the registry, ranges that do not conflict, a lockfile regenerated with the manifest. The installer's output is in the evidence.`,
    evidence: { ecosystem: eco, culprits: f.culprits, output: f.output } satisfies G8InstallEvidence,
  };
}
