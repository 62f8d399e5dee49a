import type { GuardContext, GuardFinding } from '../../core/guard.js';
import { locateTest } from '../../testgate/locate-test.js';
import type { RerunVerdict, TestGateResult } from '../../testgate/gate.js';
import { describeChanges } from '../../testgate/test-config-changes.js';
import type { TestOutcome, UnitStatus } from '../../core/suite-result.js';
import { installFailedFinding } from './install-finding.js';
import { describeNoResults } from '../../testgate/failure-cause.js';

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
  return id.replace(/^(py|go|rust|js|junit|java):/, '');
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
    evidence: { test: t.id, runner: res.runner, runs: v.runs, ...(t.message ? { output: t.message } : {}) },
  };
}

function brokenUnitFinding(res: TestGateResult, u: UnitStatus): GuardFinding {
  return {
    category: 'build-broken',
    severity: 'fail',
    ...(u.file && u.file !== '.' ? { path: u.file, ...(u.line ? { line: u.line } : {}) } : {}),
    message: `The ${unitLabel(u)} with this change (it did at the base ${short(res.baseline?.sha)})${u.message ? `: ${firstLine(u.message)}` : '.'}`,
    remediation: `Fix the build of \`${u.file ?? u.id}\` so its tests run again; the first error is quoted in the evidence.`,
    evidence: { unit: u.id, runner: res.runner, ...(u.message ? { output: u.message } : {}) },
  };
}

function suiteBrokenFinding(res: TestGateResult): GuardFinding {
  const c = res.candidate;
  const why = c?.failure ?? describeNoResults(c?.outputTail ?? '', c?.exitCode ?? null);
  return {
    category: 'build-broken',
    severity: 'fail',
    message: `The test suite (\`${res.command}\`) produced results at the base (${short(res.baseline?.sha)}) but none with this change: ${why}.`,
    remediation: `Run \`${res.command}\` on this branch and fix what stops it before any test reports (an import, the configuration, the build); the end of its output is in the evidence.`,
    evidence: { runner: res.runner, exitCode: c?.exitCode ?? null, output: c?.outputTail.slice(-2000) ?? '' },
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
    evidence: {
      runner: res.runner,
      reason: res.notRun,
      ...(res.candidate?.killedBy ? { killedBy: res.candidate.killedBy } : {}),
      exitCode: res.candidate?.exitCode ?? null,
      output: res.candidate?.outputTail.slice(-2000) ?? '',
    },
  };
}

/** Whether a removed test's file still exists with this change (so it was deselected, not deleted). */
function stillThere(t: TestOutcome, present: ReadonlySet<string>): boolean {
  const file = t.file ?? (t.unit.includes(':') ? t.unit.slice(t.unit.indexOf(':') + 1) : t.unit);
  return present.has(file);
}

async function removedFindings(res: TestGateResult, ctx: GuardContext): Promise<GuardFinding[]> {
  const removed = res.comparison?.removed ?? [];
  const changes = res.configChanges ?? [];
  const out: GuardFinding[] = [];
  let plain = removed;
  if (removed.length && (changes.length || res.noTestsAtHead)) {
    // Tests whose file is still there did not run because of what the change did to the configuration.
    const present = new Set(res.noTestsAtHead ? [] : await ctx.head.paths());
    const deselected = res.noTestsAtHead ? removed : removed.filter((t) => stillThere(t, present));
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
        evidence: { count: n, tests: deselected.map((t) => t.id), configChanges: changes.map((c) => `${c.path}: ${c.what}`) },
      });
    }
  }
  const byFile = new Map<string, TestOutcome[]>();
  for (const t of plain) {
    const key = t.file ?? t.unit;
    byFile.set(key, [...(byFile.get(key) ?? []), t]);
  }
  for (const [file, tests] of byFile) {
    out.push({
      category: 'tests-removed',
      severity: 'risk',
      ...(file.includes(':') ? {} : { path: file }),
      message: `${tests.length === 1 ? 'A test that exists' : `${tests.length} tests that exist`} at the base ${tests.length === 1 ? 'is' : 'are'} gone with this change: ${namesOf(tests)}.`,
      remediation: `If removing tests from \`${file}\` is intended, say why in the PR description (a reviewer must agree); otherwise restore them.`,
      evidence: { tests: tests.map((t) => t.id) },
    });
  }
  return out;
}

/** An exit-code-only runner whose command the change rewrote: its exit code proves nothing. */
function unverifiableFinding(res: TestGateResult): GuardFinding {
  const changes = (res.configChanges ?? []).filter((c) => c.path === 'package.json');
  return {
    category: 'tests-removed',
    severity: 'fail',
    path: 'package.json',
    message: `This change edits what \`${res.command}\` runs (${describeChanges(changes)}), and that command only reports an exit code, so its pass with this change says nothing about the tests that ran at the base. Treated as tests removed.`,
    remediation:
      'Keep the test script of package.json as it is at the base in this PR (change it in a separate PR a reviewer approves), or configure tests.command on the default branch.',
    evidence: { configChanges: changes.map((c) => `${c.path}: ${c.what}`) },
  };
}

async function flakyFinding(ctx: GuardContext, v: RerunVerdict): Promise<GuardFinding> {
  const name = testName(v.test.id);
  return {
    category: 'flaky-test',
    severity: 'nit',
    ...(await where(ctx, v.test)),
    message: `Test \`${name}\` failed on the first run with this change but passed on re-run ${v.passedOnRerun}${firstLine(v.test.message) ? ` (first failure: ${firstLine(v.test.message)})` : ''}.`,
    remediation: `\`${name}\` is not deterministic: look for shared state, ordering, time or leftover files between runs, and make it repeatable.`,
    evidence: { test: v.test.id, passedOnRerun: v.passedOnRerun },
  };
}

export async function testGateFindings(res: TestGateResult, ctx: GuardContext): Promise<GuardFinding[]> {
  const out: GuardFinding[] = [];
  const install = installFailedFinding(res);
  if (install) return [install];
  if (res.notRun) return [notRunFinding(res)];
  if (res.suiteBroken) out.push(suiteBrokenFinding(res));
  for (const u of res.comparison?.brokenUnits ?? []) out.push(brokenUnitFinding(res, u));
  for (const v of res.regressions) out.push(await regressionFinding(ctx, res, v));
  out.push(...(await removedFindings(res, ctx)));
  if (res.unverifiableCommand) out.push(unverifiableFinding(res));
  for (const v of res.flaky) out.push(await flakyFinding(ctx, v));
  return out;
}
