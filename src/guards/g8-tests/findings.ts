import type { GuardContext, GuardFinding } from '../../core/guard.js';
import {
  locateTest,
  type RerunVerdict,
  type TestGateResult,
  describeChanges,
  deselectedByConfig,
  describeNoResults,
} from '../../testgate/index.js';
import type { TestOutcome, UnitStatus } from '../../core/suite-result.js';
import { installFailedFinding } from './install-finding.js';
import { removedWithCode, type GoneCode } from './removed-with-code.js';
import { renamedTests } from './renamed-tests.js';
import { weakeningCovers, weakeningFinding, type Weakening } from '../shared/test-weakening.js';
import type {
  G8BrokenUnitEvidence,
  G8DeselectedEvidence,
  G8FlakyEvidence,
  G8NotRunEvidence,
  G8RegressionEvidence,
  G8RemovedEvidence,
  G8RemovedFailingEvidence,
  G8SuiteBrokenEvidence,
  G8UnverifiableEvidence,
  G8WorkspacePackage,
} from './evidence.js';

/** Turns the test gate's result into G8 findings pointing at test files and definition lines. */

const short = (sha: string | undefined) => (sha ?? '').slice(0, 7);

/** The most telling line of an error: the first that names an error, else the first non-empty one. */
function firstLine(text: string | undefined): string {
  const lines = (text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const telling = lines.find((l) => /(\w*Error\b|\berror(\[\w+\])?:|^undefined:|: undefined:|\bassert|\bpanicked\b|\bexpected\b)/i.test(l));
  return (telling ?? lines[0] ?? '').slice(0, 240);
}

/** Human name of a test: its id without the language prefix. */
export function testName(id: string): string {
  // A workspace package's folder stays in front (`packages/b: test/sum.test.js > adds`).
  return id.replace(/^([^\s:]+: )?(py|go|rust|js|junit|java):/, '$1');
}

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

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function namesOf(tests: TestOutcome[]): string {
  const names = tests.slice(0, 8).map((t) => `\`${testName(t.id)}\``);
  return `${names.join(', ')}${tests.length > 8 ? ` and ${tests.length - 8} more` : ''}`;
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

/** Which tests a removed-tests finding is about: part of its id, so dismissing the loss of one test does not cover more. */
function testsCause(tests: readonly TestOutcome[]): string {
  return `tests ${tests
    .map((t) => t.id)
    .sort()
    .join(' ')}`;
}

async function removedFindings(res: TestGateResult, ctx: GuardContext, weakened: readonly Weakening[]): Promise<GuardFinding[]> {
  const removed = res.comparison?.removed ?? [];
  const changes = res.configChanges ?? [];
  const out: GuardFinding[] = [];
  let plain = removed;
  if (removed.length && (changes.length || res.noTestsAtHead)) {
    // Tests whose file is still there did not run because of what the change did to the configuration.
    const deselected = res.noTestsAtHead ? removed : deselectedByConfig(removed, changes, new Set(await ctx.head.paths()));
    plain = removed.filter((t) => !deselected.includes(t));
    if (deselected.length) {
      const n = deselected.length;
      const why = changes.length
        ? `this change edits what the test command selects: ${describeChanges(changes)}`
        : 'no test ran at all with this change';
      out.push({
        category: 'tests-removed',
        severity: 'fail',
        ...(changes[0] ? { path: changes[0].path } : {}),
        message: `${plural(n, 'test')} that ran at the base (${short(res.baseline?.sha)}) did not run with this change — ${why}: ${namesOf(deselected)}.`,
        remediation: changes.length
          ? `Undo the change to ${changes.map((c) => `\`${c.path}\``).join(', ')} that stops these tests from running (an \`addopts\` \`-k\`/\`--deselect\`, \`collect_ignore\`, an \`include\`/\`exclude\` pattern, a new test script), or, if that is intended, say why in the PR description and have a reviewer agree.`
          : `Make \`${res.command}\` find the tests again on this branch, or explain in the PR description why no test should run.`,
        evidence: {
          count: n,
          tests: deselected.map((t) => t.id),
          configChanges: changes.map((c) => `${c.path}: ${c.what}`),
        } satisfies G8DeselectedEvidence,
        cause: testsCause(deselected),
      });
    }
  }
  const { findings, judged } = weakenedFindings(res, weakened);
  return [...out, ...findings, ...(await hiddenFindings(res, ctx, plain, judged))];
}

function byFile(tests: TestOutcome[]): Map<string, TestOutcome[]> {
  const map = new Map<string, TestOutcome[]>();
  for (const t of tests) {
    const key = t.file ?? t.unit;
    map.set(key, [...(map.get(key) ?? []), t]);
  }
  return map;
}

/**
 * Tests gone from the run (deleted, moved out of the collected paths) or newly skipped, judged by the
 * evidence rule (removed-tests-evidence.ts): their base version fails against the change → blocking;
 * passes or cannot be run → risk.
 */
async function hiddenFindings(
  res: TestGateResult,
  ctx: GuardContext,
  plainAll: TestOutcome[],
  judged: ReadonlySet<string>,
): Promise<GuardFinding[]> {
  const hidden = res.hiddenTests;
  // A test the change only renamed (its body lives on under a new name) is not removed.
  const renamed = await renamedTests([...plainAll, ...(hidden?.failing ?? []), ...(hidden?.passing ?? []), ...(hidden?.notRun ?? [])], ctx);
  // Tests a `tests-weakened` finding already judged are left out of the `tests-removed` ones.
  const keep = (t: TestOutcome) => !judged.has(t.id) && !renamed.has(t.id);
  const ev = hidden && {
    ...hidden,
    failing: hidden.failing.filter(keep),
    passing: hidden.passing.filter(keep),
    notRun: hidden.notRun.filter(keep),
  };
  const plain = plainAll.filter(keep);
  const failingIds = new Set(ev?.failing.map((t) => t.id));
  const skippedIds = new Set(ev?.skipped);
  const passingIds = new Set(ev?.passing.map((t) => t.id));
  const base = short(res.baseline?.sha);
  const submodules = ev?.submodules.length
    ? ` With this change ${ev.submodules.map((p) => `\`${p}\``).join(', ')} ${ev.submodules.length === 1 ? 'is a submodule' : 'are submodules'}; submodules are not part of the tree under test.`
    : '';
  const out: GuardFinding[] = [];
  for (const [file, tests] of byFile(ev?.failing ?? [])) {
    const gone = tests.filter((t) => !skippedIds.has(t.id));
    const how = gone.length === tests.length ? 'are gone' : gone.length === 0 ? 'are skipped' : 'are gone or skipped';
    const withCode = gone.length === tests.length ? await removedWithCode(tests, ctx) : null;
    if (withCode) {
      out.push(removedWithCodeFinding(file, tests, withCode, base));
      continue;
    }
    const failures = tests
      .slice(0, 3)
      .map((t) => `\`${testName(t.id)}\`: ${firstLine(t.message) || 'failed'}`)
      .join('; ');
    out.push({
      category: 'tests-removed',
      severity: 'fail',
      ...(file.includes(':') ? {} : { path: file }),
      message: `${plural(tests.length, 'test')} that passed at the base (${base}) ${how} with this change, and their base version fails against it — the change breaks what they checked: ${failures}${tests.length > 3 ? ` and ${tests.length - 3} more` : ''}.${submodules}`,
      remediation: `Restore ${tests.length === 1 ? 'the test' : 'these tests'} from the base and make ${tests.length === 1 ? 'it' : 'them'} pass, or, if the behaviour ${tests.length === 1 ? 'it checks' : 'they check'} is meant to change, update ${tests.length === 1 ? 'it' : 'them'} in this PR and say why; removing a failing test is not a fix.`,
      evidence: {
        tests: tests.map((t) => t.id),
        restored: ev?.restored ?? [],
        output: tests
          .map((t) => `${t.id}: ${t.message ?? ''}`)
          .join('\n')
          .slice(0, 2000),
      } satisfies G8RemovedFailingEvidence,
    });
  }
  const notRunIds = new Set(ev?.notRun.map((t) => t.id));
  const verdict = (tests: TestOutcome[]): string => {
    const its = tests.length === 1 ? 'its' : 'their';
    if (tests.every((t) => passingIds.has(t.id))) return `; ${its} base version still passes against this change`;
    if (tests.every((t) => notRunIds.has(t.id)))
      return `; ${its} base version could not be run against this change (${ev?.notRunReason ?? 'no result'})`;
    return '';
  };
  for (const [file, tests] of byFile(plain.filter((t) => !failingIds.has(t.id)))) {
    out.push({
      category: 'tests-removed',
      severity: 'risk',
      ...(file.includes(':') ? {} : { path: file }),
      message: `${tests.length === 1 ? 'A test that exists' : `${tests.length} tests that exist`} at the base ${tests.length === 1 ? 'is' : 'are'} gone with this change: ${namesOf(tests)}${verdict(tests)}.${submodules}`,
      remediation: `If removing tests from \`${file}\` is intended, say why in the PR description (a reviewer must agree); otherwise restore them.`,
      evidence: { tests: tests.map((t) => t.id) } satisfies G8RemovedEvidence,
      cause: testsCause(tests),
    });
  }
  const skipped = (ev ? [...ev.passing, ...ev.notRun] : []).filter((t) => skippedIds.has(t.id));
  for (const [file, tests] of byFile(skipped)) {
    out.push({
      category: 'tests-removed',
      severity: 'risk',
      ...(file.includes(':') ? {} : { path: file }),
      message: `${tests.length === 1 ? 'A test that ran' : `${tests.length} tests that ran`} at the base ${tests.length === 1 ? 'is' : 'are'} skipped with this change: ${namesOf(tests)}${verdict(tests)}.`,
      remediation: `If skipping ${tests.length === 1 ? 'it' : 'them'} is intended, say why in the PR description (a reviewer must agree); otherwise remove the skip.`,
      evidence: { tests: tests.map((t) => t.id), skipped: true } satisfies G8RemovedEvidence,
    });
  }
  return out;
}

/** Tests deleted with the code they tested (removed-with-code.ts): a risk that names what went. */
function removedWithCodeFinding(file: string, tests: TestOutcome[], gone: GoneCode, base: string): GuardFinding {
  const what = [
    ...gone.modules.map((m) => `\`${m}\` is deleted`),
    ...(gone.names.length ? [`nothing at the head defines ${quoteNames(gone.names)}`] : []),
  ].join(' and ');
  return {
    category: 'tests-removed',
    severity: 'risk',
    ...(file.includes(':') ? {} : { path: file }),
    message: `${tests.length === 1 ? 'A test that passed' : `${plural(tests.length, 'test')} that passed`} at the base (${base}) ${tests.length === 1 ? 'is' : 'are'} removed with the code they tested: ${what}, and ${tests.length === 1 ? 'its' : 'their'} base version fails against this change only because that code is gone (\`${gone.failure.slice(0, 200)}\`). No behaviour the project still offers lost these tests: ${namesOf(tests)}.`,
    remediation: `If the removed code's behaviour lives on elsewhere (a library call, another module), make sure a test covers it there; otherwise nothing is needed.`,
    evidence: { tests: tests.map((t) => t.id), removedWithCode: { modules: gone.modules, names: gone.names } } satisfies G8RemovedEvidence,
    cause: testsCause(tests),
  };
}

function quoteNames(names: string[]): string {
  const shown = names.slice(0, 4).map((n) => `\`${n}\``);
  return `${shown.join(', ')}${names.length > 4 ? ` and ${names.length - 4} more` : ''}`;
}

/**
 * Tests the change weakens that G15 reads statically (a skip added, assertions deleted) and whose base
 * version the evidence run covered: one `tests-weakened` finding each, with G15's fingerprint (they merge
 * into one), `fail` when the base version fails against the change, else `risk` naming what the run
 * showed. Returns the ids of the outcomes judged, which the `tests-removed` findings leave out.
 */
function weakenedFindings(res: TestGateResult, weakened: readonly Weakening[]): { findings: GuardFinding[]; judged: Set<string> } {
  const ev = res.hiddenTests;
  const judged = new Set<string>();
  const findings: GuardFinding[] = [];
  if (!ev) return { findings, judged };
  const skipped = new Set(ev.skipped);
  const lostAsserts = new Set(ev.weakened);
  const failingIds = new Set(ev.failing.map((t) => t.id));
  const passingIds = new Set(ev.passing.map((t) => t.id));
  const pool = [...ev.failing, ...ev.passing, ...ev.notRun];
  for (const w of weakened) {
    const eligible = w.how === 'skip' ? skipped : lostAsserts;
    const covered = pool.filter((t) => eligible.has(t.id) && weakeningCovers(w, t));
    if (covered.length === 0) continue;
    for (const t of covered) judged.add(t.id);
    const failing = covered.filter((t) => failingIds.has(t.id));
    const its = w.unit === 'group' ? 'the base version of its tests' : 'its base version';
    const base = short(res.baseline?.sha);
    const tests = covered.map((t) => t.id);
    if (failing.length) {
      const failures = failing
        .slice(0, 3)
        .map((t) => `\`${testName(t.id)}\`: ${firstLine(t.message) || 'failed'}`)
        .join('; ');
      findings.push(
        weakeningFinding(w, {
          severity: 'fail',
          sentence: `The test gate ran ${its} (from ${base}) against this change and it fails — the change breaks what the test checked: ${failures}${failing.length > 3 ? ` and ${failing.length - 3} more` : ''}.`,
          evidence: {
            baseVersion: 'fails',
            tests,
            restored: ev.restored,
            output: failing
              .map((t) => `${t.id}: ${t.message ?? ''}`)
              .join('\n')
              .slice(0, 2000),
          },
        }),
      );
    } else if (covered.every((t) => passingIds.has(t.id))) {
      findings.push(
        weakeningFinding(w, {
          severity: 'risk',
          sentence: `The test gate ran ${its} (from ${base}) against this change and it still passes.`,
          evidence: { baseVersion: 'passes', tests },
        }),
      );
    } else {
      findings.push(
        weakeningFinding(w, {
          severity: 'risk',
          sentence: `The test gate could not run ${its} against this change (${ev.notRunReason ?? 'no result'}).`,
          evidence: { baseVersion: 'not run', tests, ...(ev.notRunReason ? { notRunReason: ev.notRunReason } : {}) },
        }),
      );
    }
  }
  return { findings, judged };
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
