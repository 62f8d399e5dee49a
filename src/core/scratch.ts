import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { lstat, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isMainThread } from 'node:worker_threads';
import { z } from 'zod';

/**
 * slopgate's temporary folders and mounts, in one place, so that none outlives the run that made it.
 *
 * Every folder is `$TMPDIR/slopgate-<kind>-XXXXXX` with a marker file ({@link MARKER}) naming its owner:
 * pid, the process's start time (so that a reused pid is not taken for the owner) and host. A folder is
 * registered while it lives; what is mounted is mounted on a folder inside it, never on the folder
 * itself, so the marker stays outside anything a sandboxed run can write. A folder is removed (its mounts
 * unmounted first) by its owner when the work is done, by {@link cleanUpNow} when the process is
 * interrupted or exits, and otherwise by the next slopgate start ({@link sweepStaleScratch}) once its
 * owner is gone.
 */

export const MARKER = '.slopgate-scratch';
/** A marker whose owner cannot be checked (another host, no start time) is stale after this long without a refresh. */
export const STALE_AFTER_MS = 24 * 60 * 60_000;
/** Live owners refresh their markers' mtime this often, so the age bound never catches a long-lived worker. */
const REFRESH_MS = 60 * 60_000;
const MARKER_CAP = 4096;

const run = promisify(execFile);

export interface ScratchOwner {
  pid: number;
  /** /proc/<pid>/stat start time (clock ticks since boot), or null off Linux. */
  start: string | null;
  host: string;
}

const markerSchema = z.object({
  tool: z.literal('slopgate'),
  kind: z.string(),
  pid: z.number().int().positive(),
  start: z.string().nullable(),
  host: z.string(),
  createdAt: z.string(),
});
type MarkerFile = z.infer<typeof markerSchema>;

/** The start time of `pid` (field 22 of /proc/<pid>/stat), or null. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

let self: ScratchOwner | undefined;
export function selfOwner(): ScratchOwner {
  return (self ??= { pid: process.pid, start: processStart(process.pid), host: hostname() });
}

/** This process, short, for names: `<host hash>.<pid>.<start>` (dependency-cache staging folders carry it). */
export function ownerTag(): string {
  const o = selfOwner();
  return `${createHash('sha256').update(o.host).digest('hex').slice(0, 6)}.${o.pid}.${o.start ?? 'x'}`;
}

/** Whether the owner named by {@link ownerTag} is still running (true when it cannot be told). */
export function tagOwnerAlive(tag: string): boolean | null {
  const m = /^([0-9a-f]{6})\.(\d+)\.(\d+|x)$/.exec(tag);
  if (!m) return null;
  if (m[1] !== ownerTag().split('.')[0]) return true;
  return ownerAlive({ pid: Number(m[2]), start: m[3] === 'x' ? null : m[3]!, host: selfOwner().host });
}

/** Whether `o` is running on this host: pid alive and, where known, started when the marker says. */
export function ownerAlive(o: ScratchOwner): boolean {
  if (o.host !== selfOwner().host) return true;
  try {
    process.kill(o.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false; // cast: Node's errors carry `code`
  }
  return o.start === null || processStart(o.pid) === o.start;
}

const live = new Map<string, ScratchDir>();
const tracked = new Set<string>();
const hooks = new Set<() => void>();
let refresher: NodeJS.Timeout | undefined;

function register(dir: ScratchDir): void {
  live.set(dir.path, dir);
  refresher ??= setInterval(() => {
    const now = new Date();
    for (const p of live.keys()) {
      try {
        utimesSync(join(p, MARKER), now, now);
      } catch {
        // removed meanwhile
      }
    }
  }, REFRESH_MS).unref();
}

/** One temporary folder of this process. */
export class ScratchDir {
  private readonly mounts: string[] = [];
  private removed = false;
  constructor(readonly path: string) {}

  /** Mounts a tmpfs capped at `bytes` on `<path>/<sub>` (made here) and returns that folder. */
  async mountTmpfs(sub: string, fsName: string, bytes: number): Promise<string> {
    const target = join(this.path, sub);
    await mkdir(target, { mode: 0o700 });
    await run('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700,nosuid,nodev`, fsName, target]);
    this.mounts.push(target);
    return target;
  }

  get mounted(): boolean {
    return this.mounts.length > 0;
  }

  /** Unmounts what was mounted in it and removes it (and forgets it). */
  async remove(): Promise<void> {
    if (this.removed) return;
    this.removed = true;
    live.delete(this.path);
    for (const m of this.mounts.splice(0).reverse()) await run('umount', ['-l', m]).catch(() => undefined);
    try {
      await rm(this.path, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      removeTreeSync(this.path);
    }
  }

  removeSync(): void {
    if (this.removed) return;
    this.removed = true;
    live.delete(this.path);
    for (const m of this.mounts.splice(0).reverse()) spawnSync('umount', ['-l', m], { stdio: 'ignore' });
    unmountUnder(this.path);
    removeTreeSync(this.path);
  }
}

function markerText(kind: string): string {
  const marker: MarkerFile = { tool: 'slopgate', kind, ...selfOwner(), createdAt: new Date().toISOString() };
  return `${JSON.stringify(marker)}\n`;
}

/** A new marked and registered folder `$TMPDIR/slopgate-<kind>-XXXXXX`. */
export async function makeScratchDir(kind: string): Promise<ScratchDir> {
  const path = await mkdtemp(join(tmpdir(), `slopgate-${kind}-`));
  const dir = new ScratchDir(path);
  register(dir);
  await writeFile(join(path, MARKER), markerText(kind), { flag: 'wx', mode: 0o600 });
  return dir;
}

export function makeScratchDirSync(kind: string): ScratchDir {
  const path = mkdtempSync(join(tmpdir(), `slopgate-${kind}-`));
  const dir = new ScratchDir(path);
  register(dir);
  writeFileSync(join(path, MARKER), markerText(kind), { flag: 'wx', mode: 0o600 });
  return dir;
}

/** A path outside the temp dir this process is making (a staging folder): removed on interrupt; call the result when done. */
export function trackScratchPath(path: string): () => void {
  tracked.add(path);
  return () => tracked.delete(path);
}

/** Something to stop before the folders go (a sandbox's process group); call the result when it ended. */
export function onInterrupt(stop: () => void): () => void {
  hooks.add(stop);
  return () => hooks.delete(stop);
}

/**
 * Synchronously ends what this process started and removes what it made: the interrupt hooks (sandboxes
 * are killed), then every registered folder (unmounted first) and tracked path, then any folder in the
 * temp dir whose marker names this process (made in a guard thread, whose registry is not this one).
 */
export function cleanUpNow(): void {
  for (const stop of [...hooks]) {
    try {
      stop();
    } catch {
      // keep going: the folders must go
    }
  }
  hooks.clear();
  for (const dir of [...live.values()]) dir.removeSync();
  for (const p of [...tracked]) {
    unmountUnder(p);
    removeTreeSync(p);
  }
  tracked.clear();
  const me = selfOwner();
  for (const { path, marker } of markedFolders(tmpdir())) {
    if (marker.pid === me.pid && marker.start === me.start && marker.host === me.host) {
      unmountUnder(path);
      removeTreeSync(path);
    }
  }
}

/** Mount points at or under `path`, deepest first (from /proc/self/mounts; octal escapes decoded). */
export function mountsUnder(path: string): string[] {
  let text = '';
  try {
    text = readFileSync('/proc/self/mounts', 'utf8');
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const line of text.split('\n')) {
    const raw = line.split(' ')[1];
    if (!raw) continue;
    const mp = raw.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    if (mp === path || mp.startsWith(`${path}/`)) found.push(mp);
  }
  return found.sort((a, b) => b.length - a.length);
}

function unmountUnder(path: string): void {
  for (const mp of mountsUnder(path)) spawnSync('umount', ['-l', mp], { stdio: 'ignore' });
}

/** rm -rf without following links; a folder made read-only (an installed tree) is made writable first. */
function removeTreeSync(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    spawnSync('chmod', ['-R', 'u+w', '--', path], { stdio: 'ignore' });
    try {
      rmSync(path, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // left for the next start's sweep
    }
  }
}

/** The marker of folder `dir`, read without following a link, or null when it has none (or not slopgate's). */
export function readMarker(dir: string): (MarkerFile & { mtimeMs: number }) | null {
  let fd: number;
  try {
    fd = openSync(join(dir, MARKER), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MARKER_CAP || st.uid !== (process.getuid?.() ?? st.uid)) return null;
    const buf = Buffer.alloc(MARKER_CAP);
    const n = readSync(fd, buf, 0, MARKER_CAP, 0);
    const m = markerSchema.safeParse(JSON.parse(buf.subarray(0, n).toString('utf8')));
    return m.success ? { ...m.data, mtimeMs: st.mtimeMs } : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Folders `slopgate-*` directly in `root` that are real folders of this user (never a link) with a slopgate marker. */
function markedFolders(root: string): { path: string; marker: NonNullable<ReturnType<typeof readMarker>> }[] {
  let names: string[];
  try {
    names = readdirSync(root).filter((n) => n.startsWith('slopgate-'));
  } catch {
    return [];
  }
  const out: { path: string; marker: NonNullable<ReturnType<typeof readMarker>> }[] = [];
  for (const name of names) {
    const path = join(root, name);
    try {
      const st = lstatSync(path);
      if (!st.isDirectory() || st.uid !== (process.getuid?.() ?? st.uid)) continue;
    } catch {
      continue;
    }
    const marker = readMarker(path);
    if (marker) out.push({ path, marker });
  }
  return out;
}

/** Whether a marked folder is left from a run that is gone: its owner is dead, or it was not refreshed for {@link STALE_AFTER_MS}. */
export function isStale(marker: ScratchOwner & { mtimeMs: number }, now = Date.now(), maxAgeMs = STALE_AFTER_MS): boolean {
  const me = selfOwner();
  if (marker.pid === me.pid && marker.start === me.start && marker.host === me.host) return false;
  if (!ownerAlive(marker)) return true;
  // An owner that cannot be checked (another host sharing this temp dir, no start time) gets the age bound.
  const unverifiable = marker.host !== me.host || marker.start === null;
  return unverifiable && now - marker.mtimeMs > maxAgeMs;
}

/**
 * Removes what killed slopgate runs left in `root` (default: the temp dir): only folders with a slopgate
 * marker whose owner is gone, never a link, never another user's; mounts under one are unmounted first.
 * Returns the folders removed.
 */
export async function sweepStaleScratch(opts: { root?: string; now?: number; maxAgeMs?: number } = {}): Promise<string[]> {
  const removed: string[] = [];
  for (const { path, marker } of markedFolders(opts.root ?? tmpdir())) {
    if (!isStale(marker, opts.now, opts.maxAgeMs)) continue;
    // Checked again right before: the folder must still be a real folder (a rename cannot swap in a link unseen).
    const st = await lstat(path).catch(() => null);
    if (!st?.isDirectory()) continue;
    for (const mp of mountsUnder(path)) await run('umount', ['-l', mp]).catch(() => undefined);
    try {
      await rm(path, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      removeTreeSync(path);
    }
    removed.push(path);
  }
  return removed;
}

// Whatever exit the main thread takes (a thrown error, process.exit), the folders of this process go.
if (isMainThread) process.once('exit', () => cleanUpNow());
