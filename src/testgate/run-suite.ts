import { lstat, mkdir, readdir, rm, statfs, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import {
  exportTree,
  exportTreeRepo,
  writeSandboxGitConfig,
  runSandboxed,
  sandboxRefusal,
  type SandboxIsolation,
  type SandboxResult,
  sandboxCapabilities,
  seedGoCache,
  tailOf,
  type SuiteLimits,
} from '../sandbox/index.js';
import type { Runner, RunContext, RunnerOutput } from './runners/runner.js';
import { describeCommandFailure, explainNoResults } from './runners/failure-cause.js';
import type { SuiteResult, TestOutcome } from '../core/suite-result.js';
import { NO_RUN_DEPS, type PrepareStep, type RunDeps } from './deps/deps-plan.js';
import { makeScratchDir, type ScratchDir } from '../core/scratch.js';

const DEFAULT_DISK_MB = 2048;
/** `nice` value of background runs: the suite gets about nine tenths of a shared core against one. */
const BACKGROUND_NICENESS = 10;
/** A tree this full after a failed run ran out of space (tmpfs keeps a little for itself). */
const NEAR_FULL = 0.97;

/**
 * One exported tree with its private HOME, TMPDIR, caches and report dir, removed by {@link dispose}.
 * Where slopgate may mount (root), the whole tree is a tmpfs capped at `diskMb`, so a run cannot fill
 * the host's disk. The tree is `run/` in a scratch folder (core/scratch.ts) whose marker the sandbox
 * never sees; an interrupted run's tree is unmounted and removed with the run. Nothing in it is shared with another run: base and head each get their own, and
 * the caches a run writes (Go build cache, CARGO_HOME, npm and pip caches) live inside it.
 */
export class SuiteWorkspace {
  isolation: SandboxIsolation | undefined;
  private constructor(
    private readonly scratch: ScratchDir,
    readonly root: string,
    readonly sha: string,
    private readonly limits: SuiteLimits,
    private readonly signal?: AbortSignal,
    private deps: RunDeps = NO_RUN_DEPS,
  ) {}

  get workdir(): string {
    return join(this.root, 'work');
  }

  /** The run's own writable caches (never shared). */
  get cacheDir(): string {
    return join(this.root, 'cache');
  }

  /**
   * @param _sharedCacheDir no longer written: a cache shared between runs would let one PR's tests
   *   poison another run. Kept so that callers need not change.
   */
  static async create(
    repoDir: string,
    sha: string,
    _sharedCacheDir: string,
    limits: SuiteLimits,
    signal?: AbortSignal,
    deps?: RunDeps,
    /** false: the tree is not made a git repository (linters and type checkers read no git). */
    gitRepo = true,
  ): Promise<SuiteWorkspace> {
    const scratch = await makeScratchDir('suite');
    const root = join(scratch.path, 'run');
    const ws = new SuiteWorkspace(scratch, root, sha, limits, signal, deps);
    try {
      if (sandboxCapabilities().tmpfsMount)
        await scratch.mountTmpfs('run', 'slopgate-run', (limits.diskMb ?? DEFAULT_DISK_MB) * 1024 * 1024);
      else await mkdir(root, { mode: 0o700 });
      await Promise.all(['work', 'home', 'tmp', 'out', 'cache'].map((d) => mkdir(join(root, d))));
      await (gitRepo ? exportTreeRepo(repoDir, sha, ws.workdir) : exportTree(repoDir, sha, ws.workdir));
      await writeSandboxGitConfig(join(root, 'home'));
      if (deps) await ws.useDependencies(deps);
      if (!sandboxRefusal(limits.isolation)) await seedGoCache(ws.workdir, join(ws.cacheDir, 'go-build'), limits);
    } catch (err) {
      await ws.dispose();
      throw err;
    }
    return ws;
  }

  /**
   * The installed dependencies the runs mount (a tree can be exported while they are still being
   * prepared, then given them before its first run).
   */
  async useDependencies(deps: RunDeps): Promise<void> {
    this.deps = deps;
    if (deps.cargoConfig) {
      await mkdir(join(this.cacheDir, 'cargo-home'), { recursive: true });
      await writeFile(join(this.cacheDir, 'cargo-home', 'config.toml'), deps.cargoConfig);
    }
  }

  /** The project's own install or build (from the dependencies), run before tests.setup and the suite. */
  get prepare(): PrepareStep | undefined {
    return this.deps.prepare;
  }

  /** A Python run's writable layer over the read-only venv: pip installs there, Python imports from there. */
  private layerEnv(): Record<string, string> {
    if (!this.deps.pythonLayer) return {};
    const layer = join(this.root, 'pylayer');
    return { PIP_PREFIX: layer, SLOPGATE_PY_LAYER: layer };
  }

  /** A run context whose commands share one deadline of `tests.timeoutSec`. */
  context(): RunContext {
    const deadline = Date.now() + this.limits.timeoutSec * 1000;
    const outDir = join(this.root, 'out');
    return {
      workdir: this.workdir,
      outDir,
      exec: (command) => this.exec(command, Math.max(1000, deadline - Date.now())),
    };
  }

  async exec(command: string, timeoutMs: number): Promise<SandboxResult> {
    const inTree = (p: string) => (isAbsolute(p) ? p : join(this.workdir, p));
    const r = await runSandboxed({
      command,
      cwd: this.workdir,
      home: join(this.root, 'home'),
      tmp: join(this.root, 'tmp'),
      cacheDir: this.cacheDir,
      writable: [this.root],
      ...(this.limits.network && this.limits.egress ? { egress: { socketPath: this.limits.egress.socketPath } } : {}),
      diskMb: this.limits.diskMb ?? DEFAULT_DISK_MB,
      ...(this.limits.isolation ? { isolation: this.limits.isolation } : {}),
      timeoutMs,
      memoryMb: this.limits.memoryMb,
      maxProcesses: this.limits.maxProcesses,
      extraEnv: { ...this.deps.env, ...this.layerEnv(), SLOPGATE_OUT: join(this.root, 'out') },
      binds: this.deps.binds.map((b) => ({ src: b.src, dest: inTree(b.dest) })),
      tmpfs: this.deps.tmpfs.map(inTree),
      pathPrepend: this.deps.pythonLayer ? [join(this.root, 'pylayer', 'bin'), ...this.deps.path] : this.deps.path,
      ...(this.limits.background ? { niceness: BACKGROUND_NICENESS } : {}),
      ...(this.signal ? { signal: this.signal } : {}),
    });
    this.isolation = r.isolation;
    await sweepOutputs(join(this.root, 'out'));
    return r;
  }

  /** MiB the run's tree holds now (its tmpfs), or null where the tree is no tmpfs of its own. */
  async diskUsedMb(): Promise<number | null> {
    if (!this.scratch.mounted) return null;
    const s = await statfs(this.root).catch(() => null);
    return s ? Math.round(((s.blocks - s.bfree) * s.bsize) / (1024 * 1024)) : null;
  }

  async dispose(): Promise<void> {
    await this.scratch.remove();
  }
}

/**
 * Removes from the report dir everything that is not a regular file or a directory. The runners read
 * their results from there once the sandbox is gone; a symlink planted by the PR's tests would point
 * slopgate's own read at a host file (/root/.npmrc), and a FIFO would block it forever.
 */
export async function sweepOutputs(dir: string, depth = 0): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const p = join(dir, name);
    const st = await lstat(p).catch(() => null);
    if (!st) continue;
    if (st.isDirectory() && depth < 4) await sweepOutputs(p, depth + 1);
    else if (!st.isFile() || (st.isDirectory() && depth >= 4)) await rm(p, { recursive: true, force: true });
  }
}

const KILLED: Record<string, (limits: SuiteLimits) => string> = {
  timeout: (l) => `did not finish within tests.timeoutSec (${l.timeoutSec} s)`,
  'process-limit': (l) => `was stopped at the process limit (${l.maxProcesses} processes)`,
  aborted: () => 'was cancelled',
  'disk-limit': (l) => `filled its disk (tests.diskMb, ${l.diskMb ?? DEFAULT_DISK_MB} MiB)`,
};

/** What tools print when a write fails for lack of space (the run's tree is capped at tests.diskMb). */
const DISK_FULL = /No space left on device|\bENOSPC\b|os error 28\b|Disk quota exceeded/;

function filledDisk(out: RunnerOutput): boolean {
  return (
    DISK_FULL.test(out.outputTail) ||
    out.units.some((u) => DISK_FULL.test(u.message ?? '')) ||
    out.tests.some((t) => DISK_FULL.test(t.message ?? ''))
  );
}

/** Turns a runner's output into a {@link SuiteResult} with an honest status. */
export function toSuiteResult(
  runner: Runner,
  sha: string,
  out: RunnerOutput,
  durationMs: number,
  limits: SuiteLimits,
  diskFull = false,
): SuiteResult {
  const base: SuiteResult = {
    runner: runner.id,
    command: runner.command,
    status: 'ok',
    exitCode: out.exitCode,
    tests: out.tests,
    units: out.units,
    durationMs,
    outputTail: out.outputTail,
    sha,
    ...(out.notes?.length ? { notes: out.notes } : {}),
  };
  // A run that filled its disk says nothing about the code: its build and test failures are the disk's.
  const killedBy = out.killedBy ?? (diskFull || filledDisk(out) ? 'disk-limit' : undefined);
  if (killedBy) return { ...base, status: 'skipped', killedBy, skippedReason: `the test run ${KILLED[killedBy]!(limits)}` };
  if (out.missingToolchain) return { ...base, status: 'skipped', skippedReason: out.missingToolchain };
  if (out.exitCodeOnly) {
    if (out.exitCode === 0)
      return { ...base, units: [{ id: `${runner.id}:(suite)`, kind: 'suite', group: `${runner.id}:(suite)`, status: 'ok' }] };
    return { ...base, status: 'no-results' };
  }
  const anything = out.tests.length > 0 || out.units.some((u) => u.status === 'broken');
  if (anything) return base;
  if (out.noTests || out.exitCode === 0) return { ...base, status: 'skipped', skippedReason: 'no tests found' };
  return { ...base, status: 'no-results' };
}

/** Removes the sandbox's temp paths from messages: `<tmp>/work/x.py` becomes `x.py`. */
function scrubPaths(out: RunnerOutput, ws: SuiteWorkspace): RunnerOutput {
  const scrub = (text: string) => text.split(`${ws.workdir}/`).join('').split(ws.root).join('<sandbox>');
  return {
    ...out,
    outputTail: scrub(out.outputTail),
    tests: out.tests.map((t) => (t.message ? { ...t, message: scrub(t.message) } : t)),
    units: out.units.map((u) => (u.message ? { ...u, message: scrub(u.message) } : u)),
  };
}

/** What the network had to do with a failed setup: the proxy's refusals, or that there was none. */
function networkHint(limits: SuiteLimits): string {
  if (limits.network && limits.networkOff) return `; ${limits.networkOff}`;
  const refused = limits.egress?.refusals() ?? [];
  if (refused.length === 0) return '';
  const shown = refused.slice(0, 3).map((r) => (r.port ? `${r.host}:${r.port} (${r.reason})` : r.reason));
  const more = refused.length > 3 ? ` and ${refused.length - 3} more` : '';
  return `; the sandbox's egress proxy refused ${shown.join(', ')}${more}: only the package registries are reachable (see docs/test-gate.md, "Network in the sandbox")`;
}

/** Runs `tests.setup` (if any) and the suite in a workspace. */
export async function runSuite(ws: SuiteWorkspace, runner: Runner, limits: SuiteLimits): Promise<SuiteResult> {
  const started = Date.now();
  const refusal = sandboxRefusal(limits.isolation);
  if (refusal) {
    return {
      runner: runner.id,
      command: runner.command,
      status: 'skipped',
      skippedReason: refusal,
      exitCode: null,
      tests: [],
      units: [],
      durationMs: 0,
      outputTail: '',
      sha: ws.sha,
    };
  }
  const steps = [
    ...(ws.prepare ? [ws.prepare] : []),
    ...(limits.setup ? [{ command: limits.setup, what: 'the setup command (tests.setup)' }] : []),
  ];
  for (const step of steps) {
    const s = await ws.exec(step.command, limits.timeoutSec * 1000);
    if (s.killedBy || s.exitCode !== 0) {
      const output = `${s.stdout}\n${s.stderr}`.trim().split(`${ws.workdir}/`).join('');
      const why = (s.killedBy ? KILLED[s.killedBy]!(limits) : `fails: ${describeCommandFailure(output, s.exitCode)}`) + networkHint(limits);
      return {
        runner: runner.id,
        command: runner.command,
        status: 'skipped',
        skippedReason: `${step.what} ${why}`,
        exitCode: s.exitCode,
        ...(s.killedBy ? { killedBy: s.killedBy } : {}),
        tests: [],
        units: [],
        durationMs: Date.now() - started,
        outputTail: tailOf(`${s.stdout}\n${s.stderr}`.trim()),
        sha: ws.sha,
      };
    }
  }
  const out = scrubPaths(await runner.run(ws.context()), ws);
  const used = await ws.diskUsedMb();
  // A full disk can leave nothing to read: not even the error (tokio's test build needs 8.5 GB, and
  // its logs were written to the same full tree). A run that failed with its tree at the cap filled it.
  const full =
    used !== null &&
    used >= NEAR_FULL * (limits.diskMb ?? DEFAULT_DISK_MB) &&
    (out.exitCode !== 0 || out.units.some((u) => u.status === 'broken'));
  const result = {
    ...toSuiteResult(runner, ws.sha, out, Date.now() - started, limits, full),
    ...(used !== null ? { diskUsedMb: used } : {}),
  };
  return result.status === 'no-results' ? { ...result, failure: await explainNoResults(out, ws.workdir) } : result;
}

/** Re-runs some tests; returns the ids that passed this time. */
export async function rerunPassing(ws: SuiteWorkspace, runner: Runner, tests: TestOutcome[]): Promise<Set<string>> {
  if (!runner.rerun || tests.length === 0) return new Set();
  const out = await runner.rerun(ws.context(), tests);
  if (out.killedBy) return new Set();
  const wanted = new Set(tests.map((t) => t.id));
  if (out.exitCodeOnly) return out.exitCode === 0 ? wanted : new Set();
  return new Set(out.tests.filter((t) => wanted.has(t.id) && t.status === 'passed').map((t) => t.id));
}
