import { spawn, spawnSync } from 'node:child_process';
import { accessSync, closeSync, constants, mkdirSync, openSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { probeCgroups, type CgroupSupport } from './sandbox-cgroup.js';
import { findToolchains, type ToolchainMounts } from './sandbox-fs.js';
import { buildSeccompFilter, seccompArch } from './sandbox-seccomp.js';
import { makeScratchDirSync } from '../core/scratch.js';

/** What isolation this machine offers; probed once per process. */
export interface SandboxCapabilities {
  /** Absolute path of bwrap, or null. */
  bwrap: string | null;
  /** Why the bwrap sandbox cannot be established here (null: it works). */
  unavailable: string | null;
  /** The compiled seccomp filter's file (read through a fresh fd per run), or null. */
  seccompFile: string | null;
  /** Per-run cgroups (memory and/or pids), or null. */
  cgroups: CgroupSupport | null;
  /** `prlimit` is installed (core size 0; fallback address-space and process limits). */
  prlimit: boolean;
  /** slopgate may mount a size-capped tmpfs for each run's tree (root, or CAP_SYS_ADMIN). */
  tmpfsMount: boolean;
  /** True when running as root (RLIMIT_NPROC does not apply to root). */
  root: boolean;
  /** bash, used to close inherited file descriptors before bwrap starts (dash cannot name fds > 9). */
  bash: string | null;
  toolchains: ToolchainMounts;
}

let probed: SandboxCapabilities | undefined;
let privateDir: string | undefined;

/**
 * A directory only this slopgate process writes (generated seccomp filter, mount probes, /etc files): a
 * scratch folder (core/scratch.ts), removed when the process ends, also when the probe ran in a guard thread.
 */
export function sandboxPrivateDir(): string {
  privateDir ??= makeScratchDirSync('sandbox').path;
  return privateDir;
}

function which(name: string): string | null {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    if (!dir) continue;
    // access(2) answers what `test -x` would, without a process per PATH entry (the probe runs once per CLI run).
    try {
      accessSync(join(dir, name), constants.X_OK);
      if (statSync(join(dir, name)).isFile()) return join(dir, name);
    } catch {
      continue;
    }
  }
  return null;
}

function works(cmd: string, args: string[]): boolean {
  try {
    return (
      spawnSync(cmd, args, { stdio: 'ignore', timeout: PROBE_TIMEOUT_MS, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }).status === 0
    );
  } catch {
    return false;
  }
}

/**
 * How long a probe may take before it counts as failed. A probe answers in milliseconds; the limit is
 * only for one that hangs, and is generous so that a loaded machine never reads as a missing sandbox.
 */
const PROBE_TIMEOUT_MS = 60_000;

const PROBE_ENV = () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin' });

/** What a probe command ended with (exit status, or the error that kept it from starting). */
interface ProbeExit {
  status: number | null;
  stderr: string;
  error?: Error;
}

/** `spawnSync` without blocking: the probe then overlaps the gate's other start-up work. */
function spawnProbe(cmd: string, args: string[], timeoutMs: number, env: NodeJS.ProcessEnv, fd3?: number): Promise<ProbeExit> {
  return new Promise((done) => {
    let stderr = '';
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe', ...(fd3 !== undefined ? [fd3] : [])], env });
    // A timer of our own, cleared on every ending: spawn's `timeout` option keeps its timer running when the
    // program cannot be started at all (ENOENT), which held the process open for the whole timeout.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    timer.unref();
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      // The first line is what a verdict quotes: a few KiB of it is plenty.
      if (stderr.length < 4096) stderr += d;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      done({ status: null, stderr, error });
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      done({ status, stderr });
    });
  });
}

async function worksAsync(cmd: string, args: string[]): Promise<boolean> {
  return (await spawnProbe(cmd, args, PROBE_TIMEOUT_MS, PROBE_ENV())).status === 0;
}

/**
 * The arguments every sandbox gets (namespaces, identity, capabilities); see sandbox.ts. The network
 * namespace is always a new, empty one: network reaches a sandbox only through the egress proxy.
 */
export function namespaceArgs(uid: number, gid: number): string[] {
  return [
    '--unshare-all',
    '--uid',
    String(uid),
    '--gid',
    String(gid),
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--hostname',
    'sandbox',
  ];
}

/**
 * The bwrap probe starts `true` under bwrap with the same namespaces, seccomp filter and a minimal root. Any failure
 * (bwrap missing, user namespaces refused by the kernel or a container's seccomp profile, no /proc
 * mount allowed) is returned as the exact reason.
 */
const BWRAP_PROBE_ARGS = [
  ...namespaceArgs(1000, 1000),
  '--ro-bind',
  '/usr',
  '/usr',
  '--symlink',
  'usr/bin',
  '/bin',
  '--symlink',
  'usr/lib',
  '/lib',
  '--symlink',
  'usr/lib64',
  '/lib64',
  '--proc',
  '/proc',
  '--dev',
  '/dev',
  '--tmpfs',
  '/tmp',
  '--seccomp',
  '3',
  '--',
  '/bin/sh',
  '-c',
  'test "$(id -u)" = 1000',
];

function bwrapVerdict(r: ProbeExit): string | null {
  // Node names the call it used (spawn or spawnSync); the same machine gives the same words either way.
  if (r.error) return `bwrap cannot start: ${r.error.message.replace(/^spawn(Sync)? /, '')}`;
  if (r.status !== 0) return `bwrap cannot create the sandbox: ${r.stderr.trim().split('\n')[0] || `exit ${String(r.status)}`}`;
  return null;
}

function probeBwrap(bwrap: string | null, seccompFile: string | null): string | null {
  if (!bwrap) return 'bubblewrap (bwrap) is not installed';
  if (!seccompFile) return `no seccomp filter for this architecture (${process.arch})`;
  const fd = openSync(seccompFile, 'r');
  try {
    const r = spawnSync(bwrap, BWRAP_PROBE_ARGS, {
      stdio: ['ignore', 'ignore', 'pipe', fd],
      timeout: PROBE_TIMEOUT_MS,
      env: { PATH: '/usr/bin:/bin' },
      encoding: 'utf8',
    });
    return bwrapVerdict({ status: r.status, stderr: r.stderr, ...(r.error ? { error: r.error } : {}) });
  } finally {
    closeSync(fd);
  }
}

async function probeBwrapAsync(bwrap: string | null, seccompFile: string | null): Promise<string | null> {
  if (!bwrap) return 'bubblewrap (bwrap) is not installed';
  if (!seccompFile) return `no seccomp filter for this architecture (${process.arch})`;
  const fd = openSync(seccompFile, 'r');
  try {
    return bwrapVerdict(await spawnProbe(bwrap, BWRAP_PROBE_ARGS, PROBE_TIMEOUT_MS, { PATH: '/usr/bin:/bin' }, fd));
  } finally {
    closeSync(fd);
  }
}

/**
 * `SLOPGATE_BWRAP` names the bwrap to use instead of the one on PATH. It exists to take the sandbox
 * away (a path where no bwrap is, to see that the gate then refuses to pass), so it can only make things
 * stricter: a program that is not the very bwrap found on PATH is refused even when it runs, since a
 * stand-in that exits 0 would let PR code run outside any sandbox.
 */
function onlyStricter(override: string, onPath: string | null): string | null {
  const id = (p: string) => {
    try {
      const st = statSync(p);
      return `${st.dev}:${st.ino}`;
    } catch {
      return null;
    }
  };
  if (onPath && id(override) !== null && id(override) === id(onPath)) return null;
  return `SLOPGATE_BWRAP=${override} is not the bwrap on PATH (${onPath ?? 'none'}); it may only point at that one, or at nothing to switch the sandbox off`;
}

function mountProbeDir(): string | null {
  if (process.getuid?.() !== 0) return null;
  const dir = join(sandboxPrivateDir(), 'mount-probe');
  mkdirSync(dir, { recursive: true });
  return dir;
}

function probeTmpfsMount(): boolean {
  const dir = mountProbeDir();
  if (!dir || !works('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'slopgate-probe', dir])) return false;
  return works('umount', [dir]);
}

async function probeTmpfsMountAsync(): Promise<boolean> {
  const dir = mountProbeDir();
  if (!dir || !(await worksAsync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'slopgate-probe', dir]))) return false;
  return worksAsync('umount', [dir]);
}

const BASHES = ['/bin/bash', '/usr/bin/bash'];

interface StaticParts {
  bwrap: string | null;
  onPath: string | null;
  override: string | undefined;
  seccompFile: string | null;
}
let staticDone: StaticParts | undefined;

/**
 * What the probe learns without running anything: bwrap's path and the seccomp filter's file (written
 * once, so that a synchronous probe never rewrites the file under the asynchronous one).
 */
function staticParts(): StaticParts {
  return (staticDone ??= readStaticParts());
}

function readStaticParts(): StaticParts {
  const arch = seccompArch();
  let seccompFile: string | null = null;
  if (arch) {
    seccompFile = join(sandboxPrivateDir(), 'seccomp.bpf');
    writeFileSync(seccompFile, buildSeccompFilter(arch), { mode: 0o600 });
  }
  const onPath = process.platform === 'linux' ? which('bwrap') : null;
  const override = process.env.SLOPGATE_BWRAP?.trim();
  return { bwrap: override || onPath, onPath, override, seccompFile };
}

function assemble(parts: StaticParts, bwrapProblem: string | null, tmpfsMount: boolean, bash: string | null): SandboxCapabilities {
  const linux = process.platform === 'linux';
  return {
    bwrap: parts.bwrap,
    unavailable: linux
      ? (bwrapProblem ?? (parts.override ? onlyStricter(parts.override, parts.onPath) : null))
      : `the sandbox needs Linux (this is ${process.platform})`,
    seccompFile: parts.seccompFile,
    cgroups: probeCgroups(),
    prlimit: linux && which('prlimit') !== null,
    tmpfsMount: linux && tmpfsMount,
    root: process.getuid?.() === 0,
    bash,
    toolchains: findToolchains(),
  };
}

export function sandboxCapabilities(): SandboxCapabilities {
  if (probed) return probed;
  const parts = staticParts();
  const linux = process.platform === 'linux';
  probed = assemble(
    parts,
    linux ? probeBwrap(parts.bwrap, parts.seccompFile) : null,
    linux && probeTmpfsMount(),
    BASHES.find((p) => works(p, ['-c', 'true'])) ?? null,
  );
  return probed;
}

let probing: Promise<SandboxCapabilities> | undefined;

/**
 * The same probe without blocking the event loop: its commands run while the gate does other start-up
 * work (detecting the runner, reading the tree). Afterwards {@link sandboxCapabilities} answers from it.
 */
export function sandboxCapabilitiesAsync(): Promise<SandboxCapabilities> {
  if (probed) return Promise.resolve(probed);
  probing ??= (async () => {
    const parts = staticParts();
    const linux = process.platform === 'linux';
    const [bwrapProblem, tmpfsMount, bashes] = await Promise.all([
      linux ? probeBwrapAsync(parts.bwrap, parts.seccompFile) : null,
      linux && probeTmpfsMountAsync(),
      Promise.all(BASHES.map((p) => worksAsync(p, ['-c', 'true']))),
    ]);
    const caps = assemble(parts, bwrapProblem, tmpfsMount, BASHES.find((_, i) => bashes[i]) ?? null);
    // A synchronous probe that ran meanwhile (or an override of a test) wins: one answer per process.
    probed ??= caps;
    probing = undefined;
    return probed;
  })();
  return probing;
}

/** For tests: pretend some capability is missing (undefined: probe again). */
export function overrideSandboxCapabilities(caps: SandboxCapabilities | undefined): void {
  probed = caps;
  probing = undefined;
  staticDone = undefined;
}
