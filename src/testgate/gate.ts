import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Revision } from '../core/revision.js';
import { GateInfraError } from '../core/errors.js';
import { baselineKey } from './baseline-key.js';
import { compareSuites } from './compare.js';
import { detectRunner, noTestSetup } from './runners/detect.js';
import type { Runner } from './runners/runner.js';
import { rerunPassing, runSuite, SuiteWorkspace } from './run-suite.js';
import { type SuiteLimits, requireSandbox, sandboxCapabilitiesAsync, startRunEgress } from '../sandbox/index.js';
import { testConfigChanges, type TestConfigChange } from './test-config-changes.js';
import { capSuiteMessages } from './message-cap.js';
import { suiteNotes } from './suite-notes.js';
import { hiddenTestsEvidence } from './removed-tests-evidence.js';
import type { SuiteResult, TestOutcome } from '../core/suite-result.js';
import { detectWorkspace } from './workspaces/detect-workspace.js';
import { runWorkspaceGate } from './workspaces/workspace-gate.js';
import type { Workspace } from './workspaces/workspace-types.js';
import type { TestGateConfig, TestGateOptions, RerunVerdict, TestGateResult } from './gate-types.js';
import { summarise } from './workspace-summary.js';
import { planSides } from './deps/prepare-sides.js';

/**
 * With `--trace`: when the gate reached each of its steps (ms since the process started), so that
 * its fixed cost around the suites can be seen step by step.
 */
/** Runs `work` as a named stage of the progress line, when one listens (`opts.stage`). */
async function timed<T>(opts: Pick<TestGateOptions, 'stage'>, name: string, work: () => Promise<T>): Promise<T> {
  const end = opts.stage?.(name);
  try {
    return await work();
  } finally {
    end?.();
  }
}

function stage(opts: Pick<TestGateOptions, 'log'>, name: string): void {
  opts.log?.info({ event: 'testgate.stage', stage: name, atMs: Math.round(performance.now()) }, 'testgate.stage');
}

/** At most this many newly failing tests are re-run; the rest count as regressions unconfirmed. */
const MAX_RERUN_TESTS = 100;

export function defaultCacheDir(repo: string): string {
  return join(tmpdir(), 'slopgate-cache', createHash('sha256').update(repo).digest('hex').slice(0, 16));
}

/** The base's run used three quarters of the disk cap or more (so the head filling it proves nothing). */
function nearDiskCap(baseline: SuiteResult, limits: SuiteLimits): boolean {
  return baseline.diskUsedMb !== undefined && baseline.diskUsedMb >= 0.75 * (limits.diskMb ?? 2048);
}

function cacheable(r: SuiteResult): boolean {
  return r.status === 'ok' || (r.status === 'skipped' && !r.killedBy && r.skippedReason === 'no tests found');
}

function noTestsFound(r: SuiteResult): boolean {
  return r.status === 'skipped' && !r.killedBy && r.skippedReason === 'no tests found';
}

/** A base run that gave nothing to compare with, for a reason other than having no tests. */
function baseCouldNotRun(r: SuiteResult): boolean {
  return r.status !== 'ok' && !noTestsFound(r);
}

function baselineSkip(r: SuiteResult): string {
  if (r.status === 'no-results') {
    return `no test results at the base: ${r.failure ?? `exit ${r.exitCode}`}. Without them, new failures cannot be told from old ones`;
  }
  return r.skippedReason === 'no tests found' ? 'no tests found at the base' : `at the base, ${r.skippedReason ?? 'the suite did not run'}`;
}

/** Re-runs newly failing tests up to `reruns` times; a test that passes once is flaky. */
async function separateFlakes(
  ws: SuiteWorkspace,
  runner: Runner,
  failing: TestOutcome[],
  reruns: number,
): Promise<{ regressions: RerunVerdict[]; flaky: RerunVerdict[] }> {
  const flaky: RerunVerdict[] = [];
  let pending = failing.slice(0, MAX_RERUN_TESTS);
  const unconfirmed = failing.slice(MAX_RERUN_TESTS).map((test) => ({ test, runs: 1 }));
  if (!runner.rerun) return { regressions: [...pending.map((test) => ({ test, runs: 1 })), ...unconfirmed], flaky };
  for (let round = 1; round <= reruns && pending.length; round++) {
    const passed = await rerunPassing(ws, runner, pending);
    for (const test of pending) if (passed.has(test.id)) flaky.push({ test, runs: round + 1, passedOnRerun: round });
    pending = pending.filter((t) => !passed.has(t.id));
  }
  const runs = 1 + reruns;
  return { regressions: [...pending.map((test) => ({ test, runs })), ...unconfirmed], flaky };
}

/** Hosts reached by either side's proxy, with their bytes added up. */
function mergeUsed(used: { host: string; bytes: number }[]): { host: string; bytes: number }[] {
  const by = new Map<string, number>();
  for (const u of used) by.set(u.host, (by.get(u.host) ?? 0) + u.bytes);
  return [...by].map(([host, bytes]) => ({ host, bytes }));
}

/**
 * The test-regression gate: baseline at the base (cached by base tree, command and lockfiles),
 * candidate at the merge/head commit, both in the sandbox and in parallel on a cache miss; newly
 * failing tests are re-run to separate flakes from regressions.
 */
export async function runTestGate(opts: TestGateOptions): Promise<TestGateResult> {
  const empty = { regressions: [], flaky: [], suiteBroken: false };
  stage(opts, 'start');
  // The sandbox is probed while the runner is detected (both mostly wait on other processes).
  const probing = sandboxCapabilitiesAsync();
  probing.catch(() => undefined);
  // With tests.network, each side has an egress proxy of its own (its own connection budget), closed with the run.
  const egress = await startRunEgress(opts.config.network);
  const baseEgress = egress.proxy ? await startRunEgress(opts.config.network) : null;
  const config: TestGateConfig = {
    ...opts.config,
    ...(egress.proxy ? { egress: egress.proxy } : {}),
    ...(baseEgress?.proxy ? { baseEgress: baseEgress.proxy } : {}),
    ...(egress.off ? { networkOff: egress.off } : {}),
  };
  let exporting: Promise<SuiteWorkspace> | undefined;
  try {
    const ws = opts.config.command || opts.config.workspaces === 'off' ? null : await detectWorkspace(opts.base);
    let single: Runner | null = null;
    if (!ws) {
      // One suite at the root: the head's tree is exported while the runner is detected and the
      // dependencies planned. Nothing of it runs before the sandbox is known to work; a skip removes it.
      exporting = probing.then(() => SuiteWorkspace.create(opts.repoDir, opts.candidateSha, cacheDirOf(opts), config, opts.signal));
      exporting.catch(() => undefined);
      const detection = await detectRunner(opts.base, { command: opts.config.command, runner: opts.config.runner });
      if ('skipped' in detection)
        return { ...empty, skipped: detection.skipped, ...(noTestSetup(detection.skipped) ? { noSetup: true } : {}) };
      single = detection.runner;
    }
    stage(opts, 'runner detected');
    // No sandbox here: the gate stops (an infra error, never a skip that would let the PR pass).
    await probing;
    requireSandbox(opts.config.isolation);
    stage(opts, 'sandbox checked');
    const withConfig = { ...opts, config };
    const res = ws ? await runPackages(withConfig, ws) : single ? await runBothSides(withConfig, single, exporting) : { ...empty };
    if (egress.off) return { ...res, notes: [...(res.notes ?? []), `tests.network: ${egress.off}`] };
    if (!egress.proxy) return res;
    const proxies = [egress.proxy, ...(baseEgress?.proxy ? [baseEgress.proxy] : [])];
    return { ...res, egress: { refused: proxies.flatMap((p) => p.refusals()), used: mergeUsed(proxies.flatMap((p) => p.used())) } };
  } finally {
    await (await exporting?.catch(() => undefined))?.dispose();
    await egress.proxy?.close();
    await baseEgress?.proxy?.close();
    stage(opts, 'done');
  }
}

/** A root test script that only runs every package's own script (adds nothing once each package ran). */
const FAN_OUT =
  /(--workspaces\b|--ws\b|(^|\s)-r(\s|$)|--recursive\b|\bworkspaces\s+(foreach\s+.*)?run\b|\blerna\s+run\b|\bturbo\s+(run\s+)?test\b|\bnx\s+run-many\b)/;

async function rootFansOut(base: Revision): Promise<boolean> {
  try {
    const parsed: unknown = JSON.parse((await base.readText('package.json')) ?? 'null');
    const test = typeof parsed === 'object' && parsed !== null ? (parsed as { scripts?: { test?: unknown } }).scripts?.test : undefined;
    return typeof test === 'string' && FAN_OUT.test(test);
  } catch {
    return false;
  }
}

/**
 * A monorepo: each affected package's suite on its own, then one result that sums them up. The root's
 * command runs as well whenever an affected package has no test setup of its own, or a file outside every
 * package changed (unless the root's script only fans out to the packages, which all ran); when none of
 * the affected packages has a setup of its own, the root's command runs once, as without workspaces.
 */
async function runPackages(opts: TestGateOptions, ws: Workspace): Promise<TestGateResult> {
  const run = await runWorkspaceGate(
    { repoDir: opts.repoDir, base: opts.base, candidateSha: opts.candidateSha, forPackage: opts.config.forPackage },
    ws,
    (runner) => runBothSides(opts, runner),
  );
  const unsuited = run.packages.filter((p) => p.noSetup);
  const rootIsPackage = run.packages.some((p) => p.dir === '.' && p.result);
  const wantRoot = !rootIsPackage && (unsuited.length > 0 || (run.shared.length > 0 && !(await rootFansOut(opts.base))));
  if (!wantRoot) return summarise(run);
  const detection = await detectRunner(opts.base, { runner: opts.config.runner });
  if ('skipped' in detection) return summarise(run);
  const res = await runBothSides(opts, detection.runner);
  if (run.packages.length > 0 && unsuited.length === run.packages.length) {
    const note = `${ws.kind} workspace (${ws.source}): none of the ${run.packages.length} affected packages has a test setup of its own, so the root's command ran`;
    return { ...res, notes: [note, ...(res.notes ?? [])] };
  }
  const why = unsuited.length
    ? `${unsuited.map((p) => p.dir).join(', ')} ${unsuited.length === 1 ? 'has' : 'have'} no test setup of ${unsuited.length === 1 ? 'its' : 'their'} own`
    : `this change edits files outside every package`;
  run.packages.push({
    name: 'root',
    dir: '.',
    reason: 'root',
    result: { ...res, notes: [`the root's command ran: ${why}`, ...(res.notes ?? [])] },
  });
  return summarise({ ...run, rootRan: true });
}

function cacheDirOf(opts: TestGateOptions): string {
  return opts.cacheDir ?? defaultCacheDir(opts.repo);
}

/**
 * Runs the suite at the base (unless cached) and at the head, and judges the difference. The head's
 * tree is exported (and verified) while its dependencies are planned and prepared, or was already
 * (`exported`): nothing runs in it before they are given to it, and whatever ends the gate first
 * removes it.
 */
async function runBothSides(opts: TestGateOptions, runner: Runner, exported?: Promise<SuiteWorkspace>): Promise<TestGateResult> {
  const cacheDir = cacheDirOf(opts);
  const exporting = exported ?? SuiteWorkspace.create(opts.repoDir, opts.candidateSha, cacheDir, opts.config, opts.signal);
  exporting.catch(() => undefined);
  try {
    return await judgeBothSides(opts, runner, cacheDir, exporting);
  } finally {
    await (await exporting.catch(() => undefined))?.dispose();
  }
}

async function judgeBothSides(
  opts: TestGateOptions,
  runner: Runner,
  cacheDir: string,
  exporting: Promise<SuiteWorkspace>,
): Promise<TestGateResult> {
  const empty = { regressions: [], flaky: [], suiteBroken: false };
  const info = { runner: runner.id, command: runner.displayCommand, internalCommand: runner.command };
  const sides = await planSides(opts, runner.id);
  stage(opts, 'dependencies planned');
  const key = await baselineKey(
    opts.repo,
    opts.base,
    [runner.command, opts.config.setup ? ` [setup: ${opts.config.setup}]` : '', sides.baseKey ? ` [deps: ${sides.baseKey}]` : ''].join(''),
  );
  // The cached baseline is looked up once the head's suite has started (the head runs either way, and
  // the CLI's store opens on first use, a second of the main thread); only a base whose dependencies
  // differ from the head's asks first, to know whether to install them.
  let asked: Promise<SuiteResult | null> | undefined;
  const lookup = () =>
    (asked ??= (async (): Promise<SuiteResult | null> => {
      try {
        return await opts.cache.get(key);
      } catch (err) {
        opts.log?.warn({ err: String(err) }, 'baseline cache read failed; running the baseline');
        return null;
      }
    })());
  const say = (text: string) => opts.progress?.(`tests (${runner.displayCommand}): ${text}`);
  const needBase = sides.sameDeps || (await lookup()) === null;
  say(
    sides.sameDeps
      ? 'preparing the dependencies (the same at the base and the head)'
      : needBase
        ? 'preparing the dependencies of the base and the head'
        : 'preparing the dependencies of the head',
  );
  const deps = await timed(opts, 'install', () => sides.prepare(needBase));
  stage(opts, 'dependencies ready');
  const withDeps = { ...empty, ...info, dependencies: deps.summary, ...(deps.notes.length ? { notes: deps.notes } : {}) };
  // A registry or network failure is not a verdict on anything: the gate stops, neither passing nor blaming.
  const outage = deps.baseOutage ?? deps.headOutage;
  if (outage) throw new GateInfraError(outage, 're-run when the package registry answers again', 'resources');
  if (deps.headLimit)
    throw new GateInfraError(
      `${deps.headLimit} with this change, where the base's install fit`,
      'raise tests.installDiskMb in the config on the default branch if the change needs the room',
      'resources',
    );
  if (deps.baseFailure) return { ...withDeps, skipped: deps.baseFailure };
  if (deps.headFailure) return { ...withDeps, installFailed: deps.headFailure };
  // Set by the baseline run's closure; an object so that the check after it is not narrowed to the initial false.
  const baselineState = { isolated: false };
  const candidateWs = await exporting;
  await candidateWs.useDependencies(deps.head);
  stage(opts, 'head exported');
  const candidateRun = timed(opts, 'head suite', () => runSuite(candidateWs, runner, opts.config));
  // Awaited with the baseline below; until then a rejection must not count as unhandled.
  candidateRun.catch(() => undefined);
  opts.suitesStarted?.();
  const cached = await lookup();
  const baseLimits: TestGateConfig = { ...opts.config };
  delete baseLimits.egress;
  if (opts.config.baseEgress) baseLimits.egress = opts.config.baseEgress;
  const runBase = async (): Promise<SuiteResult> => {
    const ws = await SuiteWorkspace.create(opts.repoDir, opts.base.sha, cacheDir, baseLimits, opts.signal, deps.base);
    try {
      const result = await timed(opts, 'base suite', () => runSuite(ws, runner, baseLimits));
      // Only a sandboxed run shared nothing writable with PR code; only such a baseline is kept.
      baselineState.isolated = ws.isolation?.sandbox === 'bwrap';
      return result;
    } finally {
      await ws.dispose();
    }
  };
  const baselineRun = cached ? Promise.resolve(cached) : runBase();
  say(cached ? 'running the suite at the head (the base is from the cache)' : 'running the suite at the base and at the head');
  const [firstBaseline, candidateRaw] = await Promise.all([baselineRun, candidateRun]);
  let baselineRaw = firstBaseline;
  const rerunNotes: string[] = [];
  if (!cached && baseCouldNotRun(baselineRaw) && candidateRaw.status === 'ok') {
    // The base ran beside the head, which may have taken the machine (CPU, memory, the network): once more, alone.
    say('the base could not run beside the head: running it again, alone');
    baselineRaw = await runBase();
    if (baseCouldNotRun(baselineRaw))
      throw new GateInfraError(
        `the suite could not run at the base, even alone (${baselineSkip(baselineRaw)}), while it ran with this change: without the base's results nothing can be compared`,
        "this is not about the change: fix what stops the base's suite (its setup, its limits), then re-run the check",
        'resources',
      );
    rerunNotes.push(`the base's suite could not run beside the head's (${baselineSkip(firstBaseline)}); it ran again, alone`);
  }
  const [baseline, candidate] = [capSuiteMessages(baselineRaw), capSuiteMessages(candidateRaw)];
  stage(opts, 'suites done');
  const configChanges = await testConfigChanges(opts.base, new Revision(opts.repoDir, opts.candidateSha)).catch(
    (err: unknown): TestConfigChange[] => {
      opts.log?.warn({ err: String(err) }, 'could not compare the test configuration of base and candidate');
      return [];
    },
  );
  if (!cached && baselineState.isolated && cacheable(baseline)) {
    await opts.cache.put(key, baseline).catch((err: unknown) => opts.log?.warn({ err: String(err) }, 'baseline cache write failed'));
  }
  const notes = [...deps.notes, ...rerunNotes, ...suiteNotes(baseline, candidate)];
  const common = {
    ...withDeps,
    baseline,
    baselineCached: cached !== null,
    candidate,
    ...(configChanges.length ? { configChanges } : {}),
    ...(candidateWs.isolation ? { isolation: candidateWs.isolation } : {}),
    ...(notes.length ? { notes } : {}),
  };
  if (baseline.status !== 'ok') return { ...common, skipped: baselineSkip(baseline) };
  // From here on the base produced results: whatever stops the candidate from producing them fails closed.
  if (candidate.killedBy === 'disk-limit' && nearDiskCap(baseline, opts.config)) {
    // The base itself nearly filled the disk: the head filling it is the limit's doing, not evidence against the change.
    throw new GateInfraError(
      `the suite needs more disk than tests.diskMb (${opts.config.diskMb ?? 2048} MiB): at the base it used ${baseline.diskUsedMb ?? '?'} MiB, and with this change it filled the disk`,
      'raise tests.diskMb in the config on the default branch',
      'resources',
    );
  }
  if (candidate.status === 'skipped' && !noTestsFound(candidate)) {
    return { ...common, notRun: `with this change, ${candidate.skippedReason ?? 'the suite did not run'}` };
  }
  const baseRanTests = baseline.tests.length > 0;
  if (noTestsFound(candidate)) {
    // Nothing ran at the head: every test of the base counts as removed (the finding names why).
    const comparison = compareSuites(baseline, { ...candidate, status: 'ok' });
    return { ...common, comparison, noTestsAtHead: baseRanTests || baseline.units.length > 0 };
  }
  const comparison = compareSuites(baseline, candidate);
  const unverifiable = candidate.units.some((u) => u.kind === 'suite') && configChanges.some((c) => /(^|\/)package\.json$/.test(c.path));
  if (comparison.suiteBroken) {
    // Exit-code-only runners can re-run the whole suite; a pass means the failure was a flake.
    const suite: TestOutcome = { id: `${runner.id}:(suite)`, status: 'failed', unit: `${runner.id}:(suite)` };
    if (candidate.units.length === 0 && baseline.units.some((u) => u.kind === 'suite')) {
      const { flaky } = await separateFlakes(candidateWs, runner, [suite], opts.config.reruns);
      if (flaky.length) return { ...common, comparison: { ...comparison, suiteBroken: false }, flaky };
    }
    return { ...common, comparison, suiteBroken: true };
  }
  if (comparison.newlyFailing.length && opts.config.reruns > 0) {
    const n = comparison.newlyFailing.length;
    say(`re-running ${n} newly failing test${n === 1 ? '' : 's'} to tell flakes from regressions`);
  }
  const { regressions, flaky } = await timed(opts, 're-runs', () =>
    separateFlakes(candidateWs, runner, comparison.newlyFailing, opts.config.reruns),
  );
  const hiddenTests = await hiddenTestsEvidence({
    ...opts,
    runner,
    limits: opts.config,
    baseline,
    candidate,
    comparison,
    configChanges,
    cacheDir,
    runDeps: deps.head,
  });
  return {
    ...common,
    comparison,
    regressions,
    flaky,
    ...(hiddenTests ? { hiddenTests } : {}),
    ...(unverifiable ? { unverifiableCommand: true } : {}),
  };
}
