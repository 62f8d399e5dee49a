import type { GuardContext, GuardFinding } from '../../core/guard.js';
import type { TestOutcome } from '../../core/suite-result.js';
import { deselectedByConfig, describeChanges, type TestGateResult } from '../../testgate/index.js';
import { weakeningCovers, weakeningFinding, type Weakening } from '../shared/test-weakening.js';
import type { G8DeselectedEvidence, G8RemovedEvidence, G8RemovedFailingEvidence } from './evidence.js';
import { firstLine, namesOf, plural, short, testName } from './finding-text.js';
import { removedWithCode, type GoneCode } from './removed-with-code.js';
import { renamedTests } from './renamed-tests.js';

/** Which tests a removed-tests finding is about: part of its id, so dismissing the loss of one test does not cover more. */
function testsCause(tests: readonly TestOutcome[]): string {
  return `tests ${tests
    .map((t) => t.id)
    .sort()
    .join(' ')}`;
}

/**
 * The `tests-removed` and `tests-weakened` findings: tests the change stopped from running (its config
 * deselects them), weakened (G15's static reading, judged by the evidence run), or removed or skipped.
 */
export async function removedFindings(res: TestGateResult, ctx: GuardContext, weakened: readonly Weakening[]): Promise<GuardFinding[]> {
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
