import type { GuardContext, GuardFinding } from '../../core/guard.js';
import type { UnitStatus, TestOutcome } from '../../core/suite-result.js';
import { describeChanges, describeNoResults, locateTest, type RerunVerdict, type TestGateResult } from '../../testgate/index.js';
import type { Weakening } from '../shared/test-weakening.js';
import type {
  G8BrokenUnitEvidence,
  G8FlakyEvidence,
  G8NotRunEvidence,
  G8RegressionEvidence,
  G8SuiteBrokenEvidence,
  G8UnverifiableEvidence,
  G8WorkspacePackage,
} from './evidence.js';
import { firstLine, plural, short, testName } from './finding-text.js';
import { installFailedFinding } from './install-finding.js';
import { removedFindings } from './removed-findings.js';

/** Turns the test gate's result into G8 findings pointing at test files and definition lines. */

async function where(ctx: GuardContext, t: TestOutcome): Promise<{ path?: string; line?: number }> {
  const loc = (await locateTest(ctx.head, t)) ?? (await locateTest(ctx.base, t));
  if (!loc) return {};
  return { path: loc.path, ...(loc.line ? { line: loc.line } : {}) };
}

function unitLabel(u: UnitStatus): string {
  const name = u.file ?? u.id.replace(/^\w+:/, '');
  if (u.id.startsWith('maven:')) {
    const dir = u.id.slice('maven:'.length);
    return `${dir === '.' ? 'root Maven module (pom.xml)' : `Maven module \`${dir}\``} no longer builds`;
  }
  switch (u.kind) {
    case 'module':
      return `test module \`${name}\` can no longer be collected`;
    case 'package':
      return `Go package \`${u.id.replace(/^go:/, '')}\` no longer builds`;
    case 'target':
      return `Rust target \`${name}\` no longer compiles`;
    case 'file':
      return `test file \`${name}\` no longer runs`;
    default:
      return `the test suite no longer runs`;
  }
}

async function regressionFinding(ctx: GuardContext, res: TestGateResult, v: RerunVerdict): Promise<GuardFinding> {
  const t = v.test;
  const name = testName(t.id);
  const atBase = res.baseline?.tests.find((b) => b.id === t.id);
  const before = atBase ? `passes at the base (${short(res.baseline?.sha)})` : 'is new or did not run at the base';
  const runs = v.runs > 1 ? ` on all ${v.runs} runs` : '';
  const why = firstLine(t.message);
  return {
    category: 'test-regression',
    severity: 'fail',
    ...(await where(ctx, t)),
    message: `Test \`${name}\` ${before} but fails with this change${runs}${why ? `: ${why}` : '.'}`,
    remediation: `Make \`${name}\` pass again: compare the code it exercises with the base and restore the behaviour it checks (attributes, SQL strings and helpers copied verbatim), or, if the new behaviour is intended, update the test in this PR and say why.`,
    evidence: { test: t.id, runner: res.runner, runs: v.runs, ...(t.message ? { output: t.message } : {}) } satisfies G8RegressionEvidence,
  };
}

function brokenUnitFinding(res: TestGateResult, u: UnitStatus): GuardFinding {
  return {
    category: 'build-broken',
    severity: 'fail',
    ...(u.file && u.file !== '.' ? { path: u.file, ...(u.line ? { line: u.line } : {}) } : {}),
    message: `The ${unitLabel(u)} with this change (it did at the base ${short(res.baseline?.sha)})${u.message ? `: ${firstLine(u.message)}` : '.'}`,
    remediation: `Fix the build of \`${u.file ?? u.id}\` so its tests run again; the first error is quoted in the evidence.`,
    evidence: { unit: u.id, runner: res.runner, ...(u.message ? { output: u.message } : {}) } satisfies G8BrokenUnitEvidence,
  };
}

/**
 * How the candidate's suite stopped, for the finding's id: killed (time, process limit, cancelled), its
 * setup failed, or it exited with a code. Two stops of different kinds are two findings, so dismissing
 * one (a flaky timeout, say) never silences the other (a fork bomb stopped at the process limit).
 */
export function stopKind(res: TestGateResult): string {
  const c = res.candidate;
  if (c?.killedBy) return `killed: ${c.killedBy}`;
  if (c?.skippedReason?.startsWith('the setup command')) return `setup failed: exit ${c.exitCode ?? 'none'}`;
  if (c?.status === 'skipped') return `did not run: ${c.skippedReason ?? 'unknown'}`;
  return `exited: ${c?.exitCode ?? 'none'}`;
}

function suiteBrokenFinding(res: TestGateResult): GuardFinding {
  const c = res.candidate;
  const why = c?.failure ?? describeNoResults(c?.outputTail ?? '', c?.exitCode ?? null);
  return {
    category: 'build-broken',
    severity: 'fail',
    message: `The test suite (\`${res.command}\`) produced results at the base (${short(res.baseline?.sha)}) but none with this change: ${why}.`,
    remediation: `Run \`${res.command}\` on this branch and fix what stops it before any test reports (an import, the configuration, the build); the end of its output is in the evidence.`,
    evidence: {
      runner: res.runner,
      exitCode: c?.exitCode ?? null,
      output: c?.outputTail.slice(-2000) ?? '',
    } satisfies G8SuiteBrokenEvidence,
    cause: stopKind(res),
  };
}

/** The base ran; the candidate was stopped or could not start: fail closed, naming why. */
export function notRunFinding(res: TestGateResult): GuardFinding {
  const b = res.baseline;
  const atBase = b ? `at the base (${short(b.sha)}) the same command ran ${plural(b.tests.length, 'test')}` : 'the base produced results';
  const cause = res.configChanges?.length ? ` This change also edits what runs: ${describeChanges(res.configChanges)}.` : '';
  return {
    category: 'tests-not-run',
    severity: 'fail',
    message: `Tests not run: ${res.notRun}; ${atBase}. Without results for this change the gate cannot tell whether it breaks tests, so it blocks.${cause}`,
    remediation: res.candidate?.killedBy
      ? `Run \`${res.command}\` on this branch and make it finish within the limits (tests.timeoutSec, tests.maxProcesses): look for a test that hangs, waits on the network or spawns processes without end. The end of its output is in the evidence.`
      : `Run \`${res.command}\` on this branch and remove what stops it (named above); the end of its output is in the evidence.`,
    // The reason names the kind and the limit (time, processes, setup exit code): part of the id.
    cause: `${stopKind(res)}; ${res.notRun}`,
    evidence: {
      runner: res.runner,
      reason: res.notRun,
      ...(res.candidate?.killedBy ? { killedBy: res.candidate.killedBy } : {}),
      exitCode: res.candidate?.exitCode ?? null,
      output: res.candidate?.outputTail.slice(-2000) ?? '',
    } satisfies G8NotRunEvidence,
  };
}

/** An exit-code-only runner whose command the change rewrote: its exit code proves nothing. */
function unverifiableFinding(res: TestGateResult): GuardFinding {
  const changes = (res.configChanges ?? []).filter((c) => /(^|\/)package\.json$/.test(c.path));
  return {
    category: 'tests-removed',
    severity: 'fail',
    path: changes[0]?.path ?? 'package.json',
    message: `This change edits what \`${res.command}\` runs (${describeChanges(changes)}), and that command only reports an exit code, so its pass with this change says nothing about the tests that ran at the base. Treated as tests removed.`,
    remediation:
      'Keep the test script of package.json as it is at the base in this PR (change it in a separate PR a reviewer approves), or configure tests.command on the default branch.',
    evidence: { configChanges: changes.map((c) => `${c.path}: ${c.what}`) } satisfies G8UnverifiableEvidence,
  };
}

/** A package manifest (the root's or a workspace package's) whose test script the change turned into a no-op. */
function switchedOffFindings(res: TestGateResult): GuardFinding[] {
  return (res.configChanges ?? [])
    .filter((c) => c.switchedOff)
    .map((c) => ({
      category: 'tests-removed',
      severity: 'fail',
      path: c.path,
      message: `This change turns the test script of \`${c.path}\` into a command that runs no test: whoever runs that package's tests (its CI, \`npm test\`) no longer tests anything. Treated as tests removed.`,
      remediation:
        'Keep the test script as it is at the base in this PR (change it in a separate PR a reviewer approves), or say in the PR description why the package has no tests any more.',
      evidence: { configChanges: [`${c.path}: ${c.what}`] } satisfies G8UnverifiableEvidence,
    }));
}

async function flakyFinding(ctx: GuardContext, v: RerunVerdict): Promise<GuardFinding> {
  const name = testName(v.test.id);
  return {
    category: 'flaky-test',
    severity: 'nit',
    ...(await where(ctx, v.test)),
    message: `Test \`${name}\` failed on the first run with this change but passed on re-run ${v.passedOnRerun}${firstLine(v.test.message) ? ` (first failure: ${firstLine(v.test.message)})` : ''}.`,
    remediation: `\`${name}\` is not deterministic: look for shared state, ordering, time or leftover files between runs, and make it repeatable.`,
    evidence: { test: v.test.id, passedOnRerun: v.passedOnRerun } satisfies G8FlakyEvidence,
  };
}

export async function testGateFindings(
  res: TestGateResult,
  ctx: GuardContext,
  weakened: readonly Weakening[] = [],
): Promise<GuardFinding[]> {
  if (res.workspace) return workspaceFindings(res, ctx, weakened);
  const out: GuardFinding[] = [];
  const install = installFailedFinding(res);
  if (install) return [install];
  if (res.notRun) return [notRunFinding(res)];
  if (res.suiteBroken) out.push(suiteBrokenFinding(res));
  for (const u of res.comparison?.brokenUnits ?? []) out.push(brokenUnitFinding(res, u));
  for (const v of res.regressions) out.push(await regressionFinding(ctx, res, v));
  out.push(...(await removedFindings(res, ctx, weakened)));
  if (res.unverifiableCommand) out.push(unverifiableFinding(res));
  else out.push(...switchedOffFindings(res));
  for (const v of res.flaky) out.push(await flakyFinding(ctx, v));
  return out;
}

/**
 * A monorepo run: each package's findings on their own, named after the package. The dependencies are
 * installed once for the whole workspace, so a failed install is one finding, not one per package.
 */
async function workspaceFindings(res: TestGateResult, ctx: GuardContext, weakened: readonly Weakening[]): Promise<GuardFinding[]> {
  const install = installFailedFinding(res);
  if (install) return [install];
  const out: GuardFinding[] = [];
  for (const p of res.workspace?.packages ?? []) {
    if (!p.result || p.result.skipped) continue;
    const named = p.name === p.dir ? `\`${p.dir}\`` : `\`${p.name}\` (${p.dir})`;
    for (const f of await testGateFindings(p.result, ctx, weakened)) {
      const pkg = { name: p.name, dir: p.dir } satisfies G8WorkspacePackage;
      out.push({ ...f, message: `Package ${named}: ${f.message}`, evidence: { ...f.evidence, package: pkg } });
    }
  }
  return out;
}
