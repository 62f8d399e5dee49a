import { readdirSync, readFileSync } from 'node:fs';
import type { RunCgroup } from './sandbox-cgroup.js';

/**
 * Process counting for a sandboxed run. With a pids cgroup the kernel enforces the limit (forks fail
 * past it) and the count comes from the cgroup. Without one, the run's processes are its outermost
 * process and every descendant, found in /proc (inside a pid namespace, orphans and setsid daemons
 * are re-parented to the namespace's init, which is itself a descendant). Either way a watchdog ends
 * the run once the limit is reached, so a fork bomb stops within one poll interval.
 */
export interface ProcessCounter {
  /** The cgroup.procs file counted, when a cgroup is used. */
  readonly procsFile: string | null;
  count(rootPid: number): number;
  /** Pids of the run (to kill). */
  members(rootPid: number): number[];
}

export function createProcessCounter(cgroup: RunCgroup | null): ProcessCounter {
  if (cgroup?.hasPids) {
    return {
      procsFile: cgroup.procsFiles[0] ?? null,
      count: () => cgroup.processCount(),
      members: () => cgroup.members(),
    };
  }
  return { procsFile: null, count: (pid) => descendantsOf(pid).length, members: (pid) => descendantsOf(pid) };
}

/** `pid` and all its descendants, from the parent pids in /proc/<pid>/stat. */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch {
      // exited meanwhile
    }
  }
  if (!names.includes(String(pid))) return [];
  const out = [pid];
  // Breadth first: `out` grows while it is walked, and the array iterator visits what was appended.
  for (const p of out) out.push(...(children.get(p) ?? []));
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
