import type { SlopgateConfig } from '../core/config-schema.js';
import type { Finding } from '../core/finding.js';
import type { Guard, GuardServices } from '../core/guard.js';
import { runGate } from '../gate/run-gate.js';
import type { Report } from '../core/report.js';
import type { Logger } from '../core/trace.js';
import { checkFileFence } from '../guards/g4-imports/file-fence.js';
import { commitCandidate } from './scratch-tree.js';
import type { FileContent } from './types.js';
import { compare, REFINER_GUARD_IDS, type Comparison } from './verdict.js';

export interface GateSetup {
  repoDir: string;
  /** The PR's base ref (the merge-base is computed from it, as in the PR gate). */
  base: string;
  config: SlopgateConfig;
  guards: Guard[];
  services?: GuardServices;
  sanctions?: string[];
  skip?: Record<string, string>;
  log?: Logger;
}

export interface Evaluation extends Comparison {
  candidateSha: string;
  report: Report;
}

/** The registry guards the refiner phase runs (the rest are left out, not skipped with findings). */
export function refinerGuards(guards: readonly Guard[]): Guard[] {
  const wanted = new Set<string>(REFINER_GUARD_IDS.map((g) => g.toUpperCase()));
  return guards.filter((g) => wanted.has(g.id.toUpperCase()));
}

/**
 * Builds the candidate (parent + files) as a commit and gates base..candidate through the real
 * pipeline in the refiner phase. G8 compares against the baseline cached by the PR's own gate run
 * (same base tree, same cache). The file fence is checked on top: a path outside `fence` is a failure
 * whatever the other guards say.
 */
export async function evaluateCandidate(
  setup: GateSetup,
  parent: string,
  files: readonly FileContent[],
  before: readonly Finding[],
  fence: readonly string[],
): Promise<Evaluation> {
  const candidateSha = await commitCandidate(setup.repoDir, parent, files, 'slopgate refiner candidate');
  const report = await runGate({
    repoDir: setup.repoDir,
    base: setup.base,
    head: candidateSha,
    config: setup.config,
    guards: refinerGuards(setup.guards),
    phase: 'refiner',
    ...(setup.services ? { services: setup.services } : {}),
    ...(setup.sanctions ? { sanctions: setup.sanctions } : {}),
    ...(setup.skip ? { skip: setup.skip } : {}),
    ...(setup.log ? { log: setup.log } : {}),
  });
  const cmp = compare(before, report, setup.config.strict);
  const outside = checkFileFence(
    files.map((f) => f.path),
    fence,
  );
  if (outside.length) {
    const message = outside[0]!.message;
    cmp.verdicts.unshift({ guard: 'G4-fence', status: 'fail', newFindings: outside.length, message });
    cmp.improved = false;
    cmp.reason = `G4 file fence failed: ${message}`;
  } else cmp.verdicts.unshift({ guard: 'G4-fence', status: 'pass', newFindings: 0 });
  return { ...cmp, candidateSha, report };
}
