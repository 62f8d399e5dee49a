import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Revision } from '../core/revision.js';
import { GateInfraError } from '../core/errors.js';
import type { Logger } from '../core/trace.js';
import type { BaselineCache } from '../core/ports.js';
import { baselineKey } from './baseline-key.js';
import { compareSuites, type SuiteComparison } from './compare.js';
import { detectRunner, noTestSetup } from './runners/detect.js';
import type { Runner } from './runners/runner.js';
import { rerunPassing, runSuite, SuiteWorkspace } from './run-suite.js';
import {
  type SuiteLimits,
  type SandboxIsolation,
  requireSandbox,
  sandboxCapabilitiesAsync,
  type EgressRefusal,
  startRunEgress,
} from '../sandbox/index.js';
import { testConfigChanges, type TestConfigChange } from './test-config-changes.js';
import { capSuiteMessages } from './message-cap.js';
import { suiteNotes } from './suite-notes.js';
import { hiddenTestsEvidence, type HiddenTestsEvidence } from './removed-tests-evidence.js';
import type { RunnerId, SuiteResult, TestOutcome } from '../core/suite-result.js';
import { detectWorkspace } from './workspaces/detect-workspace.js';
import { mergeSides, runWorkspaceGate, type PackageTestConfig, type WorkspaceRun } from './workspaces/workspace-gate.js';
import type { Workspace } from './workspaces/workspace-types.js';
import { planSides, type DepsOptions, type SideDeps } from './deps/prepare-sides.js';

export interface TestGateConfig extends SuiteLimits {
  command?: string;
  /** tests.runner: this runner with its default command instead of the detected one. */
  runner?: RunnerId;
  reruns: number;
  /**
   * `auto` (default): in a monorepo (npm/pnpm/yarn workspaces, go.work or nested Go modules, a cargo
   * workspace, Python subprojects) and without a repository-wide tests.command, run only the suites of
   * the packages the change affects, each in its folder; `off`: one run at the root.
   */
  workspaces?: 'auto' | 'off';
  /** The tests config of one workspace package, by its manifest path (tests.* with the path overrides applied). */
  forPackage?: (manifest: string) => PackageTestConfig;
  /** `auto` (default): install the project's dependencies before the runs; `off`: the tree as it is. */
  install?: 'auto' | 'off';
  /** With tests.network: the base's own egress proxy (`egress` is the head's), so one side cannot starve the other. */
  baseEgress?: SuiteLimits['egress'];
}

export interface TestGateOptions {
  repoDir: string;
  /** Repository name for the cache key. */
  repo: string;
  /** The base tree: decides the runner and is the baseline. */
  base: Revision;
  /** The commit whose tests are judged: the test-merge commit when there is one, else the head. */
  candidateSha: string;
  config: TestGateConfig;
  cache: BaselineCache;
  /** Where per-repo build caches live (default: `<tmp>/slopgate-cache/<repo hash>`). */
  cacheDir?: string;
  /** The dependency cache and the egress proxy (defaults: the machine's shared cache, a proxy per run). */
  deps?: DepsOptions;
  signal?: AbortSignal;
  log?: Logger;
  /**
   * Tests that still run with the change but that it weakened (assertions deleted, read statically by
   * the caller): their base version is run against the candidate too, like the tests it hides. Asked
   * once the suites have run; the caller may start its work when `suitesStarted` is called.
   */
  weakenedTests?: () => Promise<((t: TestOutcome) => boolean) | null>;
  /** Called as the head's suite starts (the guards that wait for it then go on; see GuardContext.suites). */
  suitesStarted?: () => void;
  /** Told what slow step starts (installs, the suite at base and head, re-runs), for a progress line. */
  progress?: (text: string) => void;
  /** Told that a named stage starts (install, base suite, head suite); the returned function ends it. */
  stage?: (name: string) => () => void;
}

export interface RerunVerdict {
  test: TestOutcome;
  /** Runs in total (1 + re-runs) and on which re-run it passed, if it did. */
  runs: number;
  passedOnRerun?: number;
}

export interface TestGateResult {
  runner?: Runner['id'];
  /** The project's own test command, as people run it (see Runner.displayCommand). */
  command?: string;
  /** The exact command the sandbox ran, with slopgate's wrapping (see Runner.command). */
  internalCommand?: string;
  skipped?: string;
  baseline?: SuiteResult;
  baselineCached?: boolean;
  candidate?: SuiteResult;
  comparison?: SuiteComparison;
  /** Newly failing tests that failed on every run. */
  regressions: RerunVerdict[];
  /** Newly failing tests that passed on a re-run. */
  flaky: RerunVerdict[];
  /** The whole suite stopped producing results (and a re-run did not bring it back). */
  suiteBroken: boolean;
  /**
   * The base produced results and the candidate did not (killed at the time or process limit, setup
   * failed, toolchain gone): why. The gate then fails closed — this is never a pass.
   */
  notRun?: string;
  /** The candidate ran no test at all although the base ran some. */
  noTestsAtHead?: boolean;
  /** Tests that ran at the base and do not with the change, and how their base version fared against it. */
  hiddenTests?: HiddenTestsEvidence;
  /** Files that decide which tests run and that this change edits (pytest.ini, conftest.py, …). */
  configChanges?: TestConfigChange[];
  /**
   * The runner only knows the exit code and the change edits what that command runs (the
   * package.json test script), so a passing exit code proves nothing.
   */
  unverifiableCommand?: boolean;
  isolation?: SandboxIsolation;
  /** How the suites ran and warnings about the base (see suite-notes.ts). */
  notes?: string[];
  /** With tests.network: what the egress proxy refused, and the hosts it connected to. */
  egress?: { refused: EgressRefusal[]; used: { host: string; bytes: number }[] };
  /** What the dependency stage did at the base and the head, and the toolchain versions used. */
  dependencies?: SideDeps;
  /**
   * The dependencies installed at the base and not at the head: the installer's complaint and the
   * dependency files this change edits (the culprits). Fails closed like `notRun`.
   */
  installFailed?: { message: string; culprits: string[]; output: string };
  /** `skipped` because no test setup was found (or every affected package was turned off): nothing was expected to run. */
  noSetup?: boolean;
  /** In a monorepo: each affected package's own result (the fields above then sum them up). */
  workspace?: WorkspaceRun<TestGateResult>;
}

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

function mergeComparisons(list: SuiteComparison[]): SuiteComparison {
  return {
    newlyFailing: list.flatMap((c) => c.newlyFailing),
    fixed: list.flatMap((c) => c.fixed),
    removed: list.flatMap((c) => c.removed),
    brokenUnits: list.flatMap((c) => c.brokenUnits),
    suiteBroken: list.some((c) => c.suiteBroken),
  };
}

function summarise(run: WorkspaceRun<TestGateResult>): TestGateResult {
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
