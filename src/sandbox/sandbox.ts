import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CappedOutput } from './capped-output.js';
import { killQuietly } from './kill-quietly.js';
import { createProcessCounter, processesOfUid, type ProcessCounter } from './process-limit.js';
import { RunCgroup } from './sandbox-cgroup.js';
import { fsArgs, insideRun, operatorReadOnlyPaths, releaseGeneratedEtc, SANDBOX_GID, SANDBOX_UID } from './sandbox-fs.js';
import { namespaceArgs, sandboxCapabilities } from './sandbox-probe.js';
import { sandboxEnv } from './sandbox-env.js';
import { egressEnv, egressMounts, FORWARDER_TASKS, withForwarder } from './egress/sandbox-egress.js';
import type { SandboxIsolation } from '../core/report-sections.js';
import { onInterrupt } from '../core/scratch.js';

export type { SandboxIsolation } from '../core/report-sections.js';

/**
 * Runs one untrusted shell command (a PR's test suite) in a bubblewrap sandbox:
 * - new user, mount, pid, ipc, uts, cgroup and network namespaces, an unprivileged uid inside,
 *   every capability dropped, a new session (no terminal to type into), a seccomp filter
 *   (sandbox-seccomp.ts), `--die-with-parent`;
 * - no network but the namespace's own loopback; with `egress`, connections to 127.0.0.1:3128 reach
 *   slopgate's egress proxy (egress/), which only lets allow-listed registry hosts through;
 * - a root made of read-only system dirs, toolchains and caches (sandbox-fs.ts), a fresh /proc, a
 *   private /dev and size-capped /tmp and /dev/shm; the run's own tree is the only writable place;
 * - an environment built from an allow-list (sandbox-env.ts) after `--clearenv`;
 * - a cgroup per run with memory and process limits (sandbox-cgroup.ts); without one, per-process
 *   RLIMIT_AS and RLIMIT_NPROC plus a watchdog;
 * - wall time: on timeout, abort or the process limit the whole pid namespace is killed; when the
 *   command ends, its namespace ends with it, so nothing (setsid daemons included) outlives the run;
 * - stdout and stderr capped, with a marker saying how much was cut.
 * With `isolation: 'required'` (the default) a machine without a working bwrap runs nothing.
 */
export interface SandboxOptions {
  command: string;
  cwd: string;
  home: string;
  tmp: string;
  /** The run's own writable caches (discarded with the run). */
  cacheDir: string;
  /**
   * The egress proxy's unix socket (egress/egress-proxy.ts): the command reaches the network only
   * through it. Without it the command has no network at all.
   */
  egress?: { socketPath: string };
  timeoutMs: number;
  /** Memory of the whole run (cgroup), or of each process where no cgroup can be made. */
  memoryMb: number;
  maxProcesses: number;
  /** Size cap of /tmp and /dev/shm inside (MiB each); default 1024. */
  diskMb?: number;
  /** `required` (default): refuse to run without the sandbox. `best-effort`: run without it. */
  isolation?: 'required' | 'best-effort';
  /** Paths bound read-write (default: cwd, home, tmp and cacheDir). */
  writable?: string[];
  /** Per stream; default 1 MiB. */
  maxOutputBytes?: number;
  extraEnv?: Record<string, string>;
  /** Extra binds (installed dependencies): read-only unless `writable`; `dest` is the path inside. */
  binds?: SandboxBind[];
  /** Directories covered by a private tmpfs after the binds (caches tools write into a read-only node_modules). */
  tmpfs?: string[];
  /** Directories put first on PATH inside (a virtual environment's bin). */
  pathPrepend?: string[];
  /** Lower CPU priority of the whole run (`nice`, 1–19); inherited by every process inside. */
  niceness?: number;
  signal?: AbortSignal;
  /** Poll interval of the limit watchdog (ms). */
  pollMs?: number;
}

export interface SandboxBind {
  src: string;
  dest: string;
  writable?: boolean;
}

export type KilledBy = 'timeout' | 'process-limit' | 'aborted';

export interface SandboxResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  truncatedBytes: number;
  durationMs: number;
  killedBy?: KilledBy;
  /** The run's memory limit was reached (the kernel killed a process of the run). */
  memoryLimitHit?: boolean;
  /** Set when nothing ran: the sandbox is required and cannot be established here. */
  refused?: string;
  isolation: SandboxIsolation;
}

/**
 * The isolation in force: `best-effort` only when the repository's config asks for it *and* the
 * operator allows it in slopgate's own environment (SLOPGATE_TESTS_ISOLATION=best-effort). A
 * repository alone can never lower the isolation of the machine that runs its PRs.
 */
export function effectiveIsolation(
  configured: 'required' | 'best-effort' = 'required',
  env: NodeJS.ProcessEnv = process.env,
): 'required' | 'best-effort' {
  return configured === 'best-effort' && env.SLOPGATE_TESTS_ISOLATION === 'best-effort' ? 'best-effort' : 'required';
}

/**
 * The reason the test gate must not run PR code on this machine, or null. With an effective
 * `best-effort` the answer is always null (the runs then report `sandbox: none`).
 */
export function sandboxRefusal(isolation: 'required' | 'best-effort' = 'required'): string | null {
  if (effectiveIsolation(isolation) === 'best-effort') return null;
  const why = sandboxCapabilities().unavailable;
  if (!why) return null;
  const ignored =
    isolation === 'best-effort'
      ? '; tests.isolation: best-effort is ignored unless the operator sets SLOPGATE_TESTS_ISOLATION=best-effort'
      : '';
  return `tests not run: the sandbox cannot be established (${why})${ignored}`;
}

/**
 * Joins the run's cgroups ($1 = how many cgroup.procs files follow), closes every fd above $0 (bash
 * only: dash cannot name fds above 9), then execs the rest.
 */
const PRELUDE = [
  'keep=$0; n=$1; shift',
  'while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done',
  'if [ -n "$BASH_VERSION" ]; then for f in /proc/$$/fd/*; do fd=${f##*/}; [ "$fd" -gt "$keep" ] 2>/dev/null && eval "exec $fd>&-"; done; fi',
  'exec "$@"',
].join('; ');

interface Plan {
  argv: string[];
  env: Record<string, string>;
  isolation: SandboxIsolation;
  seccompFd: number | null;
}

/** Processes (cgroup: tasks) a run may have: its limit, plus the egress forwarder's. */
const processBudget = (opts: SandboxOptions): number => opts.maxProcesses + (opts.egress ? FORWARDER_TASKS : 0);

function plan(opts: SandboxOptions, cgroup: RunCgroup | null, counter: ProcessCounter): Plan {
  const caps = sandboxCapabilities();
  const useBwrap = caps.unavailable === null;
  // The proxy is reachable only from inside the sandbox; without one there is no egress.
  const egress = useBwrap ? opts.egress : undefined;
  const memoryByCgroup = Boolean(cgroup?.hasMemory);
  const writable = (opts.writable ?? [opts.cwd, opts.home, opts.tmp, opts.cacheDir]).map((p) => resolve(p));
  const cacheDir = writable.some((w) => insideRun(opts.cacheDir, w)) ? opts.cacheDir : join(opts.home, '.cache', 'slopgate');
  const env = sandboxEnv({
    home: opts.home,
    tmp: opts.tmp,
    cacheDir,
    network: egress !== undefined,
    ...(egress ? { proxy: egressEnv() } : {}),
    addressSpaceLimit: !memoryByCgroup && caps.prlimit,
    toolchainEnv: caps.toolchains.env,
    ...(caps.toolchains.goModCache ? { goModCache: caps.toolchains.goModCache } : {}),
    extra: opts.extraEnv ?? {},
  });
  if (caps.toolchains.path) env.PATH = caps.toolchains.path;
  if (opts.pathPrepend?.length) env.PATH = [...opts.pathPrepend, env.PATH].join(':');
  // bwrap keeps its own init as pid 1 of the namespace, so the command is an ordinary process there.
  // bwrap starts a new session, and with it (where the kernel groups by session) a scheduling group of
  // its own that competes with the suite's as an equal whatever its processes' nice: lower the group too.
  const command = opts.niceness ? `echo ${String(opts.niceness)} > /proc/self/autogroup 2>/dev/null; ${opts.command}` : opts.command;
  let argv = egress ? withForwarder(command) : ['/bin/sh', '-c', command];
  let seccompFd: number | null = null;
  if (useBwrap) {
    // The probe only reports the sandbox usable with both; should that ever break, run nothing (fail closed).
    if (caps.bwrap === null || caps.seccompFile === null)
      throw new Error('the sandbox probe passed without a bwrap binary or a seccomp filter');
    const uniqueWritable = [...new Set(writable)].filter((w) => !writable.some((o) => o !== w && insideRun(w, o)));
    const fs = fsArgs({
      runRoot: uniqueWritable[0]!,
      home: opts.home,
      tmpBytes: (opts.diskMb ?? 1024) * 1024 * 1024,
      toolchains: caps.toolchains,
      cargoHome: join(cacheDir, 'cargo-home'),
      extraReadOnly: operatorReadOnlyPaths(),
      binds: opts.binds ?? [],
      tmpfs: opts.tmpfs ?? [],
    });
    for (const w of uniqueWritable.slice(1)) fs.push('--bind', w, w);
    if (egress) fs.push(...egressMounts(egress.socketPath));
    seccompFd = openSync(caps.seccompFile, 'r');
    const envArgs = Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v]);
    argv = [
      caps.bwrap,
      ...namespaceArgs(SANDBOX_UID, SANDBOX_GID),
      ...fs,
      '--chdir',
      opts.cwd,
      '--clearenv',
      ...envArgs,
      '--seccomp',
      '3',
      '--',
      ...argv,
    ];
  }
  if (caps.prlimit) {
    const limits = ['--core=0'];
    if (!memoryByCgroup) limits.push(`--as=${opts.memoryMb * 1024 * 1024}`);
    // Without a size-capped tmpfs for the tree (slopgate not root), at least no single file may exceed the cap.
    if (!caps.tmpfsMount) limits.push(`--fsize=${(opts.diskMb ?? 1024) * 1024 * 1024}`);
    if (!cgroup?.hasPids && !caps.root) limits.push(`--nproc=${processesOfUid(process.getuid?.() ?? 0) + processBudget(opts)}`);
    argv = ['prlimit', ...limits, '--', ...argv];
  }
  // Before anything else runs: join the run's cgroups (so every descendant is in them) and close every
  // inherited file descriptor but stdio and the seccomp filter's, so that no pipe or socket slopgate
  // got from its own parent reaches the sandbox (bwrap passes unknown fds through).
  const procs = cgroup?.procsFiles ?? [];
  argv = [caps.bash ?? '/bin/sh', '-c', PRELUDE, seccompFd !== null ? '3' : '2', String(procs.length), ...procs, ...argv];
  if (opts.niceness) argv = ['nice', '-n', String(opts.niceness), ...argv];
  return {
    argv,
    env,
    seccompFd,
    isolation: {
      sandbox: useBwrap ? 'bwrap' : 'none',
      network: useBwrap ? (egress ? 'egress-proxy' : 'isolated') : 'not-isolated',
      pidNamespace: useBwrap,
      seccomp: useBwrap,
      processLimit: cgroup?.hasPids ? 'cgroup' : counter.procsFile === null && caps.prlimit && !caps.root ? 'rlimit+watchdog' : 'watchdog',
      memoryLimit: memoryByCgroup ? 'cgroup' : 'rlimit',
      disk: caps.tmpfsMount ? 'tmpfs' : 'per-file',
      ...(caps.unavailable ? { unavailable: caps.unavailable } : {}),
    },
  };
}

function refusedResult(reason: string): SandboxResult {
  return {
    exitCode: null,
    signal: null,
    stdout: '',
    stderr: '',
    truncatedBytes: 0,
    durationMs: 0,
    refused: reason,
    isolation: {
      sandbox: 'none',
      network: 'not-isolated',
      pidNamespace: false,
      seccomp: false,
      processLimit: 'watchdog',
      memoryLimit: 'rlimit',
      disk: 'per-file',
      unavailable: reason,
    },
  };
}

export async function runSandboxed(opts: SandboxOptions): Promise<SandboxResult> {
  const refusal = sandboxRefusal(opts.isolation);
  if (refusal) return refusedResult(refusal);
  const caps = sandboxCapabilities();
  for (const d of [opts.cacheDir]) mkdirSync(d, { recursive: true });
  const cgroup = RunCgroup.create(caps.cgroups, { memoryBytes: opts.memoryMb * 1024 * 1024, maxProcesses: processBudget(opts) });
  const counter = createProcessCounter(cgroup);
  const { argv, env, isolation, seccompFd } = plan(opts, cgroup, counter);
  const cap = opts.maxOutputBytes ?? 1024 * 1024;
  const stdout = new CappedOutput(cap);
  const stderr = new CappedOutput(cap);
  const started = Date.now();

  return new Promise<SandboxResult>((resolvePromise) => {
    let killedBy: KilledBy | undefined;
    let settled = false;
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: isolation.sandbox === 'bwrap' ? '/' : opts.cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', seccompFd ?? 'ignore'],
    });
    if (seccompFd !== null) closeSync(seccompFd);
    const pid = child.pid ?? -1;
    child.stdout?.on('data', (c: Buffer) => stdout.push(c));
    child.stderr?.on('data', (c: Buffer) => stderr.push(c));

    // Killing the outermost process ends the sandbox: bwrap's init dies with its parent
    // (--die-with-parent), and when a pid namespace's init dies the kernel kills all of it.
    const killAll = () => {
      if (pid > 0) {
        killQuietly(-pid, 'SIGKILL');
        killQuietly(pid, 'SIGKILL');
      }
      for (const p of counter.members(pid)) killQuietly(p, 'SIGKILL');
      cgroup?.killAll();
    };
    const stop = (why: KilledBy) => {
      if (killedBy || settled) return;
      killedBy = why;
      killAll();
    };
    // An interrupted slopgate (SIGINT, SIGTERM) kills the run before it removes the run's folders.
    const untrack = onInterrupt(killAll);
    const timer = setTimeout(() => stop('timeout'), opts.timeoutMs);
    const watchdog = setInterval(() => {
      if (pid <= 0) return;
      if (cgroup?.processLimitHit() || counter.count(pid) >= processBudget(opts) + (isolation.sandbox === 'bwrap' ? 3 : 1))
        stop('process-limit');
    }, opts.pollMs ?? 100);
    const onAbort = () => stop('aborted');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) stop('aborted');

    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    const finish = async () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(watchdog);
      opts.signal?.removeEventListener('abort', onAbort);
      killAll(); // leftovers never outlive the run
      untrack();
      if (isolation.sandbox === 'bwrap') releaseGeneratedEtc(opts.home);
      const memoryLimitHit = cgroup?.memoryLimitHit() ?? false;
      // The limit may be hit and the command end (a shell exits when fork fails) between two polls.
      if (!killedBy && cgroup?.processLimitHit()) killedBy = 'process-limit';
      await cgroup?.dispose();
      resolvePromise({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stdout: stdout.toString(),
        stderr: stderr.toString(),
        truncatedBytes: stdout.truncatedBytes + stderr.truncatedBytes,
        durationMs: Date.now() - started,
        ...(killedBy ? { killedBy } : {}),
        ...(memoryLimitHit ? { memoryLimitHit } : {}),
        isolation,
      });
    };
    child.on('error', (err) => {
      stderr.push(Buffer.from(`sandbox: cannot start: ${err.message}\n`));
      exit = { code: 127, signal: null };
      void finish();
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Background processes may hold the pipes open: kill them, then give the pipes a moment.
      killAll();
      setTimeout(() => void finish(), 500).unref();
    });
    child.on('close', () => void finish());
  });
}
