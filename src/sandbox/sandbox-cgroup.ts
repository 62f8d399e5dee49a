import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killQuietly } from './kill-quietly.js';

/**
 * A cgroup per sandboxed run, so that memory and process limits hold for the run as a whole (not per
 * process), and so that everything in it can be found and killed. cgroup v2 (memory.max, pids.max,
 * cgroup.kill) when the unified hierarchy has the controllers; otherwise cgroup v1's memory and pids
 * hierarchies. The run's cgroups are created under the cgroups slopgate itself is in.
 */

export interface CgroupSupport {
  version: 1 | 2;
  /** v2: the directory to create run cgroups in. v1: per controller. */
  memory: string | null;
  pids: string | null;
}

function ownPath(controller: string | null): string | null {
  try {
    for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
      const [, ctrls, path] = line.split(':');
      if (path === undefined) continue;
      if (controller === null ? ctrls === '' && line.startsWith('0::') : (ctrls ?? '').split(',').includes(controller)) return path;
    }
  } catch {
    // not Linux
  }
  return null;
}

function tryCreate(parent: string, files: string[]): boolean {
  const dir = join(parent, `slopgate-probe-${process.pid}`);
  try {
    mkdirSync(dir);
  } catch {
    return false;
  }
  try {
    return files.every((f) => existsSync(join(dir, f)));
  } finally {
    try {
      rmdirSync(dir);
    } catch {
      // left for removeStale
    }
  }
}

/** Empty run cgroups left behind by slopgate processes that died before cleaning up. */
function removeStale(parent: string): void {
  let names: string[] = [];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^slopgate-(?:probe-)?(\d+)(?:-\d+)?$/.exec(name);
    if (!m || existsSync(`/proc/${m[1]}`)) continue;
    try {
      rmdirSync(join(parent, name));
    } catch {
      // still in use, or not ours
    }
  }
}

function probeV2(): CgroupSupport | null {
  const mount = '/sys/fs/cgroup';
  if (!existsSync(join(mount, 'cgroup.controllers'))) return null;
  const own = ownPath(null);
  if (own === null) return null;
  const parent = join(mount, own);
  let enabled: string[] = [];
  try {
    enabled = readFileSync(join(parent, 'cgroup.subtree_control'), 'utf8').trim().split(/\s+/);
  } catch {
    return null;
  }
  for (const c of ['memory', 'pids']) {
    if (enabled.includes(c)) continue;
    try {
      writeFileSync(join(parent, 'cgroup.subtree_control'), `+${c}`);
      enabled.push(c);
    } catch {
      // busy (processes in this cgroup) or not delegated
    }
  }
  removeStale(parent);
  const memory = enabled.includes('memory') && tryCreate(parent, ['memory.max']) ? parent : null;
  const pids = enabled.includes('pids') && tryCreate(parent, ['pids.max']) ? parent : null;
  if (!memory && !pids) return null;
  return { version: 2, memory, pids };
}

function probeV1(): CgroupSupport | null {
  const dirFor = (controller: string, file: string): string | null => {
    const mount = join('/sys/fs/cgroup', controller);
    const own = ownPath(controller);
    if (own === null || !existsSync(mount)) return null;
    const parent = join(mount, own);
    removeStale(parent);
    return tryCreate(parent, [file]) ? parent : null;
  };
  const memory = dirFor('memory', 'memory.limit_in_bytes');
  const pids = dirFor('pids', 'pids.max');
  if (!memory && !pids) return null;
  return { version: 1, memory, pids };
}

export function probeCgroups(): CgroupSupport | null {
  if (process.platform !== 'linux') return null;
  return probeV2() ?? probeV1();
}

let seq = 0;

/** The cgroup(s) of one run. */
export class RunCgroup {
  private constructor(
    private readonly support: CgroupSupport,
    /** One dir (v2) or one per controller (v1). */
    private readonly dirs: { memory?: string; pids?: string },
  ) {}

  static create(support: CgroupSupport | null, limits: { memoryBytes: number; maxProcesses: number }): RunCgroup | null {
    if (!support) return null;
    const v2Parent = support.memory ?? support.pids;
    if (support.version === 2 && v2Parent === null) return null;
    const name = `slopgate-${process.pid}-${++seq}`;
    const dirs: { memory?: string; pids?: string } = {};
    const made: string[] = [];
    try {
      if (support.version === 2) {
        const dir = join(v2Parent ?? '', name);
        mkdirSync(dir);
        made.push(dir);
        if (support.memory) {
          writeFileSync(join(dir, 'memory.max'), String(limits.memoryBytes));
          if (existsSync(join(dir, 'memory.swap.max'))) writeFileSync(join(dir, 'memory.swap.max'), '0');
          dirs.memory = dir;
        }
        if (support.pids) {
          writeFileSync(join(dir, 'pids.max'), String(limits.maxProcesses));
          dirs.pids = dir;
        }
      } else {
        if (support.memory) {
          const dir = join(support.memory, name);
          mkdirSync(dir);
          made.push(dir);
          writeFileSync(join(dir, 'memory.limit_in_bytes'), String(limits.memoryBytes));
          try {
            writeFileSync(join(dir, 'memory.memsw.limit_in_bytes'), String(limits.memoryBytes));
          } catch {
            // no swap accounting
          }
          dirs.memory = dir;
        }
        if (support.pids) {
          const dir = join(support.pids, name);
          mkdirSync(dir);
          made.push(dir);
          writeFileSync(join(dir, 'pids.max'), String(limits.maxProcesses));
          dirs.pids = dir;
        }
      }
      return new RunCgroup(support, dirs);
    } catch {
      for (const d of made.reverse()) {
        try {
          rmdirSync(d);
        } catch {
          // ignore
        }
      }
      return null;
    }
  }

  get hasMemory(): boolean {
    return this.dirs.memory !== undefined;
  }
  get hasPids(): boolean {
    return this.dirs.pids !== undefined;
  }

  /** cgroup.procs files the first process writes its pid into (deduplicated). */
  get procsFiles(): string[] {
    return [...new Set(Object.values(this.dirs))].map((d) => join(d, 'cgroup.procs'));
  }

  private read(dir: string | undefined, file: string): string {
    if (!dir) return '';
    try {
      return readFileSync(join(dir, file), 'utf8');
    } catch {
      return '';
    }
  }

  /** True once a fork failed at pids.max. */
  processLimitHit(): boolean {
    const m = /^max (\d+)/m.exec(this.read(this.dirs.pids, 'pids.events'));
    return Number(m?.[1] ?? 0) > 0;
  }

  /** True once the kernel's OOM killer acted in the run (memory limit reached). */
  memoryLimitHit(): boolean {
    if (this.support.version === 2) return Number(/^oom_kill (\d+)/m.exec(this.read(this.dirs.memory, 'memory.events'))?.[1] ?? 0) > 0;
    return Number(/^oom_kill (\d+)/m.exec(this.read(this.dirs.memory, 'memory.oom_control'))?.[1] ?? 0) > 0;
  }

  processCount(): number {
    return Number(this.read(this.dirs.pids, 'pids.current').trim()) || this.members().length;
  }

  members(): number[] {
    const pids = new Set<number>();
    for (const f of this.procsFiles) {
      try {
        for (const line of readFileSync(f, 'utf8').split('\n')) if (line) pids.add(Number(line));
      } catch {
        // gone
      }
    }
    return [...pids];
  }

  /** Kills every process of the run (cgroup.kill on v2; each member otherwise). */
  killAll(): void {
    if (this.support.version === 2) {
      const dir = this.dirs.pids ?? this.dirs.memory;
      if (dir && existsSync(join(dir, 'cgroup.kill'))) {
        try {
          writeFileSync(join(dir, 'cgroup.kill'), '1');
        } catch {
          // fall through to per-process kill
        }
      }
    }
    for (const pid of this.members()) killQuietly(pid, 'SIGKILL');
  }

  /** Kills what is left and removes the cgroup(s). Waits briefly for the kernel to reap. */
  async dispose(): Promise<void> {
    const dirs = [...new Set(Object.values(this.dirs))];
    for (let i = 0; i < 40 && dirs.length; i++) {
      this.killAll();
      for (const d of [...dirs]) {
        try {
          rmdirSync(d);
          dirs.splice(dirs.indexOf(d), 1);
        } catch {
          // not empty yet
        }
      }
      if (dirs.length) await new Promise((r) => setTimeout(r, 25));
    }
  }
}
