import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Process-count limits for a sandboxed run. With a writable pids cgroup the kernel enforces the
 * limit (forks fail past it). Without one, the run's process group is counted from /proc. Either way
 * a watchdog ends the run once the limit is reached, so a fork bomb stops within one poll interval.
 */
export interface ProcessCounter {
  /** Path to write the first process's pid into (cgroup.procs), if a cgroup is used. */
  readonly procsFile: string | null;
  count(pgid: number): number;
  /** True once a fork failed because of the limit (cgroup only). */
  limitHit(): boolean;
  /** Pids still alive in the cgroup (to kill escapees that left the process group). */
  members(): number[];
  dispose(): void;
}

let seq = 0;

export function createProcessCounter(cgroupRoot: string | null, maxProcesses: number): ProcessCounter {
  if (cgroupRoot) {
    const dir = join(cgroupRoot, `slopgate-${process.pid}-${++seq}`);
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'pids.max'), String(maxProcesses));
      return new CgroupCounter(dir);
    } catch {
      try {
        rmdirSync(dir);
      } catch {
        // never created
      }
    }
  }
  return new ProcfsCounter();
}

class CgroupCounter implements ProcessCounter {
  constructor(private readonly dir: string) {}
  get procsFile(): string {
    return join(this.dir, 'cgroup.procs');
  }
  count(): number {
    try {
      return Number(readFileSync(join(this.dir, 'pids.current'), 'utf8').trim()) || 0;
    } catch {
      return 0;
    }
  }
  limitHit(): boolean {
    try {
      const m = /^max (\d+)/m.exec(readFileSync(join(this.dir, 'pids.events'), 'utf8'));
      return Number(m?.[1] ?? 0) > 0;
    } catch {
      return false;
    }
  }
  members(): number[] {
    try {
      return readFileSync(this.procsFile, 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }
  dispose(): void {
    for (let i = 0; i < 20; i++) {
      try {
        rmdirSync(this.dir);
        return;
      } catch {
        for (const pid of this.members()) killQuietly(pid, 'SIGKILL');
        const until = Date.now() + 25;
        while (Date.now() < until) {
          // brief spin while the kernel reaps
        }
      }
    }
  }
}

class ProcfsCounter implements ProcessCounter {
  readonly procsFile = null;
  count(pgid: number): number {
    return processesInGroup(pgid).length;
  }
  limitHit(): boolean {
    return false;
  }
  members(): number[] {
    return [];
  }
  dispose(): void {}
}

/** Pids whose process group is `pgid`, read from /proc (field 5 of /proc/<pid>/stat). */
export function processesInGroup(pgid: number): number[] {
  const out: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) out.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Processes owned by a uid (for an RLIMIT_NPROC that leaves room for what already runs). */
export function processesOfUid(uid: number): number {
  let n = 0;
  let names: string[] = [];
  try {
    names = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      const m = /^Uid:\s+(\d+)/m.exec(status);
      if (m && Number(m[1]) === uid) n++;
    } catch {
      // exited meanwhile
    }
  }
  return n;
}

export function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}
