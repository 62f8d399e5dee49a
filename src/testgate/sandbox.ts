import { spawn } from 'node:child_process';
import { CappedOutput } from './capped-output.js';
import { createProcessCounter, killQuietly, processesOfUid } from './process-limit.js';
import { sandboxCapabilities } from './sandbox-probe.js';
import { sandboxEnv } from './sandbox-env.js';

/**
 * Runs one untrusted shell command (a PR's test suite) in a sandbox:
 * - its own process group (and pid namespace with a private /proc when available), killed as a whole
 *   on timeout, abort, or when the process limit is reached;
 * - an allow-listed environment with a temp HOME (see sandbox-env.ts);
 * - no network (private network namespace with only loopback) unless `network` is true;
 * - address-space and core-size limits via prlimit; a process-count limit via a pids cgroup, or
 *   RLIMIT_NPROC plus a /proc watchdog;
 * - stdout and stderr capped, with a marker saying how much was cut.
 */
export interface SandboxOptions {
  command: string;
  cwd: string;
  home: string;
  tmp: string;
  cacheDir: string;
  network: boolean;
  timeoutMs: number;
  memoryMb: number;
  maxProcesses: number;
  /** Per stream; default 1 MiB. */
  maxOutputBytes?: number;
  extraEnv?: Record<string, string>;
  signal?: AbortSignal;
  /** Poll interval of the process watchdog (ms). */
  pollMs?: number;
}

export type KilledBy = 'timeout' | 'process-limit' | 'aborted';

export interface SandboxIsolation {
  network: 'isolated' | 'allowed' | 'not-isolated';
  pidNamespace: boolean;
  processLimit: 'cgroup' | 'rlimit+watchdog' | 'watchdog';
  memoryLimit: boolean;
}

export interface SandboxResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  truncatedBytes: number;
  durationMs: number;
  killedBy?: KilledBy;
  isolation: SandboxIsolation;
}

const KILL_GRACE_MS = 2000;

function buildArgv(opts: SandboxOptions, procsFile: string | null, nproc: number | null): { argv: string[]; isolation: SandboxIsolation } {
  const caps = sandboxCapabilities();
  const isolateNet = !opts.network && caps.netArgs !== null;
  // Inside a pid namespace the first process is init, which ignores SIGTERM; so the test command runs
  // as its child (no exec) and gets SIGTERM like anywhere else.
  const run = caps.pidArgs ? '/bin/sh -c "$1"' : 'exec /bin/sh -c "$1"';
  const inner = isolateNet && caps.ip ? `ip link set lo up >/dev/null 2>&1; ${run}` : run;
  let argv = ['/bin/sh', '-c', inner, 'sandbox', opts.command];
  const nsArgs = [...(isolateNet ? caps.netArgs! : []), ...(caps.pidArgs ?? [])];
  if (nsArgs.length) argv = ['unshare', ...caps.userArgs, ...nsArgs, '--', ...argv];
  if (caps.prlimit) {
    const limits = [`--as=${opts.memoryMb * 1024 * 1024}`, '--core=0'];
    if (nproc !== null) limits.push(`--nproc=${nproc}`);
    argv = ['prlimit', ...limits, '--', ...argv];
  }
  // Join the pids cgroup before anything else runs, so every descendant is counted.
  if (procsFile) argv = ['/bin/sh', '-c', 'echo $$ > "$0" && exec "$@"', procsFile, ...argv];
  return {
    argv,
    isolation: {
      network: opts.network ? 'allowed' : isolateNet ? 'isolated' : 'not-isolated',
      pidNamespace: caps.pidArgs !== null,
      processLimit: procsFile ? 'cgroup' : nproc !== null ? 'rlimit+watchdog' : 'watchdog',
      memoryLimit: caps.prlimit,
    },
  };
}

export async function runSandboxed(opts: SandboxOptions): Promise<SandboxResult> {
  const caps = sandboxCapabilities();
  const counter = createProcessCounter(caps.pidsCgroupRoot, opts.maxProcesses);
  // RLIMIT_NPROC counts every process of the user and does not apply to root at all.
  const uid = process.getuid?.() ?? 0;
  const nproc = !caps.root && !counter.procsFile && caps.prlimit ? processesOfUid(uid) + opts.maxProcesses : null;
  const { argv, isolation } = buildArgv(opts, counter.procsFile, nproc);
  const cap = opts.maxOutputBytes ?? 1024 * 1024;
  const stdout = new CappedOutput(cap);
  const stderr = new CappedOutput(cap);
  const started = Date.now();
  const env = sandboxEnv({ home: opts.home, tmp: opts.tmp, cacheDir: opts.cacheDir, network: opts.network, addressSpaceLimit: caps.prlimit, extra: opts.extraEnv ?? {} });

  return new Promise<SandboxResult>((resolve) => {
    let killedBy: KilledBy | undefined;
    let settled = false;
    const child = spawn(argv[0]!, argv.slice(1), { cwd: opts.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const pgid = child.pid ?? -1;
    child.stdout.on('data', (c: Buffer) => stdout.push(c));
    child.stderr.on('data', (c: Buffer) => stderr.push(c));

    const killAll = (signal: NodeJS.Signals) => {
      if (pgid > 0) killQuietly(-pgid, signal);
      for (const pid of counter.members()) killQuietly(pid, signal);
    };
    let graceTimer: NodeJS.Timeout | undefined;
    const stop = (why: KilledBy) => {
      if (killedBy || settled) return;
      killedBy = why;
      killAll(why === 'process-limit' ? 'SIGKILL' : 'SIGTERM');
      graceTimer = setTimeout(() => killAll('SIGKILL'), why === 'process-limit' ? 0 : KILL_GRACE_MS);
    };
    const timer = setTimeout(() => stop('timeout'), opts.timeoutMs);
    const watchdog = setInterval(() => {
      if (pgid > 0 && (counter.limitHit() || counter.count(pgid) >= opts.maxProcesses)) stop('process-limit');
    }, opts.pollMs ?? 100);
    const onAbort = () => stop('aborted');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) stop('aborted');

    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      clearInterval(watchdog);
      opts.signal?.removeEventListener('abort', onAbort);
      killAll('SIGKILL'); // leftovers (background processes) never outlive the run
      counter.dispose();
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stdout: stdout.toString(),
        stderr: stderr.toString(),
        truncatedBytes: stdout.truncatedBytes + stderr.truncatedBytes,
        durationMs: Date.now() - started,
        ...(killedBy ? { killedBy } : {}),
        isolation,
      });
    };
    child.on('error', (err) => {
      stderr.push(Buffer.from(`sandbox: cannot start: ${err.message}\n`));
      exit = { code: 127, signal: null };
      finish();
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Background processes may hold the pipes open: kill the group, then give the pipes a moment.
      killAll('SIGKILL');
      setTimeout(finish, 500).unref();
    });
    child.on('close', () => finish());
  });
}
