import type { SuiteComparison } from './compare.js';
import { mergeSides, type WorkspaceRun } from './workspaces/workspace-gate.js';
import type { TestGateResult } from './gate-types.js';

/**
 * A monorepo's test-gate result: the results of the affected packages' own runs summed up into one, with a
 * note per package that did not run.
 */

function mergeComparisons(list: SuiteComparison[]): SuiteComparison {
  return {
    newlyFailing: list.flatMap((c) => c.newlyFailing),
    fixed: list.flatMap((c) => c.fixed),
    removed: list.flatMap((c) => c.removed),
    brokenUnits: list.flatMap((c) => c.brokenUnits),
    suiteBroken: list.some((c) => c.suiteBroken),
  };
}

export function summarise(run: WorkspaceRun<TestGateResult>): TestGateResult {
  const ran = run.packages.flatMap((p) => (p.result && !p.result.skipped ? [{ dir: p.dir, result: p.result }] : []));
  const results = ran.map((p) => p.result);
  const label = (p: { dir: string }, text: string) => `${p.dir}: ${text}`;
  const shared = run.shared.length
    ? [
        `every package ran because this change edits files outside them: ${run.shared.slice(0, 5).join(', ')}${run.shared.length > 5 ? ` and ${run.shared.length - 5} more` : ''}`,
      ]
    : [];
  const notes = [
    `${run.kind} workspace (${run.source}) of ${run.total} packages: ${run.packages.length ? `ran the suites of ${run.packages.length}` : 'this change affects none of them, so no suite ran'}`,
    ...shared,
    ...run.packages.flatMap((p) => {
      const why = p.skipped ?? p.result?.skipped;
      return why ? [label(p, `not run: ${why}`)] : [];
    }),
    ...run.packages.flatMap((p) => (p.result?.notes ?? []).map((n) => label(p, n))),
  ];
  const first = results[0];
  const runners = new Set(results.map((r) => r.runner));
  const notRun = ran.flatMap((p) => (p.result.notRun ? [label(p, p.result.notRun)] : []));
  const everySkipped = run.packages.length > 0 && ran.length === 0;
  // Nothing was expected to run: every affected package has no setup or is turned off in config.
  const noSetup = everySkipped && run.packages.every((p) => p.noSetup === true || (p.skipped ?? '').startsWith('disabled in config'));
  const baseline = mergeSides(results.flatMap((r) => (r.baseline ? [r.baseline] : [])));
  const candidate = mergeSides(results.flatMap((r) => (r.candidate ? [r.candidate] : [])));
  const comparisons = results.flatMap((r) => (r.comparison ? [r.comparison] : []));
  // The dependencies are installed once for the workspace: one failure stands for all packages.
  const installFailed = results.find((r) => r.installFailed)?.installFailed;
  const configChanges = results.find((r) => r.configChanges?.length)?.configChanges;
  return {
    regressions: results.flatMap((r) => r.regressions),
    flaky: results.flatMap((r) => r.flaky),
    suiteBroken: results.some((r) => r.suiteBroken),
    ...(first?.runner && runners.size === 1 ? { runner: first.runner } : {}),
    ...(first && results.length === 1 ? { command: first.command, internalCommand: first.internalCommand } : {}),
    ...(everySkipped ? { skipped: run.packages.map((p) => label(p, p.skipped ?? p.result?.skipped ?? 'not run')).join('; ') } : {}),
    ...(noSetup ? { noSetup: true } : {}),
    ...(baseline ? { baseline } : {}),
    ...(candidate ? { candidate } : {}),
    baselineCached: results.length > 0 && results.every((r) => r.baselineCached),
    ...(comparisons.length ? { comparison: mergeComparisons(comparisons) } : {}),
    ...(notRun.length ? { notRun: notRun.join('; ') } : {}),
    ...(first?.isolation ? { isolation: first.isolation } : {}),
    ...(first?.dependencies ? { dependencies: first.dependencies } : {}),
    ...(installFailed ? { installFailed } : {}),
    // Every package's run compares the whole tree's test configuration: one list stands for all.
    ...(configChanges ? { configChanges } : {}),
    ...(results.some((r) => r.unverifiableCommand) ? { unverifiableCommand: true } : {}),
    notes,
    workspace: run,
  };
}
