import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmdirSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What isolation this machine offers; probed once per process. */
export interface SandboxCapabilities {
  /** `unshare` arguments that give a private network namespace (empty when unavailable). */
  netArgs: string[] | null;
  /** `unshare` arguments for a private pid namespace with its own /proc (null when unavailable). */
  pidArgs: string[] | null;
  /** `--map-root-user` when namespaces need a user namespace (not running as root). */
  userArgs: string[];
  /** `prlimit` is installed. */
  prlimit: boolean;
  /** `ip` is installed (to bring up loopback inside a private network namespace). */
  ip: boolean;
  /** Directory under which per-run pids cgroups can be created, or null. */
  pidsCgroupRoot: string | null;
  /** True when running as root (RLIMIT_NPROC does not apply to root). */
  root: boolean;
}

let probed: SandboxCapabilities | undefined;

function works(cmd: string, args: string[]): boolean {
  try {
    const r = spawnSync(cmd, args, { stdio: 'ignore', timeout: 5000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    return r.status === 0;
  } catch {
    return false;
  }
}

const PID_NS = ['--pid', '--fork', '--kill-child', '--mount-proc'];

function probeUnshare(): Pick<SandboxCapabilities, 'netArgs' | 'pidArgs' | 'userArgs'> {
  for (const user of [[], ['--map-root-user']]) {
    const net = works('unshare', [...user, '--net', '--', 'true']);
    const pid = works('unshare', [...user, ...PID_NS, '--', 'true']);
    if (net || pid) return { netArgs: net ? ['--net'] : null, pidArgs: pid ? PID_NS : null, userArgs: user };
  }
  return { netArgs: null, pidArgs: null, userArgs: [] };
}

/** Empty per-run cgroups left by slopgate processes that died before cleaning up. */
function removeStaleCgroups(root: string): void {
  let names: string[] = [];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^slopgate-(?:probe-)?(\d+)(?:-\d+)?$/.exec(name);
    if (!m || existsSync(`/proc/${m[1]}`)) continue;
    try {
      rmdirSync(join(root, name)); // fails (and stays) while processes are still inside
    } catch {
      // not empty or not ours to remove
    }
  }
}

/** A pids cgroup we may create children in: cgroup v1 `pids` hierarchy, or v2 with pids enabled. */
function probePidsCgroup(): string | null {
  const candidates = ['/sys/fs/cgroup/pids'];
  try {
    if (readFileSync('/sys/fs/cgroup/cgroup.controllers', 'utf8').split(/\s+/).includes('pids')) candidates.push('/sys/fs/cgroup');
  } catch {
    // not cgroup v2 at the root
  }
  for (const root of candidates) {
    removeStaleCgroups(root);
    const dir = join(root, `slopgate-probe-${process.pid}`);
    try {
      mkdirSync(dir);
      const ok = existsSync(join(dir, 'pids.max')) && existsSync(join(dir, 'cgroup.procs'));
      rmdirSync(dir);
      if (ok) return root;
    } catch {
      // not writable
    }
  }
  return null;
}

export function sandboxCapabilities(): SandboxCapabilities {
  if (probed) return probed;
  const root = process.getuid?.() === 0;
  probed = {
    ...probeUnshare(),
    prlimit: works('prlimit', ['--version']),
    ip: works('ip', ['-V']),
    pidsCgroupRoot: process.platform === 'linux' ? probePidsCgroup() : null,
    root,
  };
  return probed;
}

/** For tests: pretend some capability is missing. */
export function overrideSandboxCapabilities(caps: SandboxCapabilities | undefined): void {
  probed = caps;
}
