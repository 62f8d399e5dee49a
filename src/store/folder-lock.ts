import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { z } from 'zod';
import { errorMessage, InputError } from '../core/errors.js';
import { parseJsonAs } from '../core/parse-data.js';

/**
 * An exclusive lock on a folder for one process: the file `<folder>.lock` beside it, holding who has
 * it (pid, host, boot and process start). It is created atomically with its content (written to a
 * private file first, then hard-linked into place, which fails when the lock exists), so a reader never
 * sees a half-written lock. A lock whose process is gone — same host, and the pid is dead, was reused by
 * another process (another start time) or belongs to an earlier boot — is stale and taken over. A lock
 * of a live process is waited for, up to `waitMs` per holder; then {@link FolderBusyError}.
 */

export interface LockHolder {
  pid: number;
  host: string;
  /** /proc/sys/kernel/random/boot_id (Linux): a lock from before a reboot is stale. */
  boot?: string;
  /** The holder's start time in clock ticks since boot (/proc/<pid>/stat field 22): tells a reused pid. */
  start?: string;
  /** When it took the lock (ISO time; for people). */
  since: string;
}

export interface FolderLockOptions {
  /** How long to wait for one holder before giving up (default 30 s). */
  waitMs?: number;
  /** Told once per holder that the caller waits for it, and once when a stale lock is taken over. */
  onNotice?: (message: string) => void;
  /** Poll interval while waiting (default 200 ms). */
  pollMs?: number;
}

export interface FolderLock {
  readonly path: string;
  /** Removes the lock file, if it is still this process's. */
  release(): Promise<void>;
}

/** Another live process holds the folder and did not let go within the wait. */
export class FolderBusyError extends InputError {
  constructor(
    readonly folder: string,
    readonly holder: LockHolder,
    waitedMs: number,
  ) {
    super(
      `the database folder ${folder} is in use by another slopgate process (pid ${holder.pid} on ${holder.host}, since ${holder.since}); waited ${Math.round(waitedMs / 1000)} s for it`,
      `let that run finish and try again (SLOPGATE_DB_LOCK_WAIT_SECONDS waits longer), or use another --db folder; if no such process exists, remove ${folder}.lock`,
    );
    this.name = 'FolderBusyError';
  }
}

export const DEFAULT_LOCK_WAIT_MS = 30_000;

function procStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses): field 22 is the 20th.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined;
  }
}

function me(): LockHolder {
  const boot = bootId();
  const start = procStart(process.pid);
  return { pid: process.pid, host: hostname(), ...(boot ? { boot } : {}), ...(start ? { start } : {}), since: new Date().toISOString() };
}

/**
 * The lock file as another process wrote it: without a positive integer pid and a host it names no holder;
 * an optional field of another type reads as absent.
 */
const lockFile = z.object({
  pid: z.number().int().positive(),
  host: z.string(),
  since: z.string().optional().catch(undefined),
  boot: z.string().optional().catch(undefined),
  start: z.string().optional().catch(undefined),
});

function parseHolder(text: string): LockHolder | null {
  try {
    const v = parseJsonAs(lockFile, text, 'the lock file');
    return {
      pid: v.pid,
      host: v.host,
      since: v.since ?? 'an unknown time',
      ...(v.boot !== undefined ? { boot: v.boot } : {}),
      ...(v.start !== undefined ? { start: v.start } : {}),
    };
  } catch {
    return null;
  }
}

/** Why the holder is gone, or null while it may still be running (another host: it cannot be told). */
export function goneReason(h: LockHolder): string | null {
  if (h.host !== hostname()) return null;
  const boot = bootId();
  if (h.boot && boot && h.boot !== boot) return 'it is from before a reboot';
  try {
    process.kill(h.pid, 0);
  } catch (err) {
    if (codeOf(err) === 'ESRCH') return `process ${h.pid} is gone`;
    // EPERM: it exists (another user's process).
  }
  const start = procStart(h.pid);
  if (h.start && start && h.start !== start) return `pid ${h.pid} now belongs to another process`;
  return null;
}

/** The `code` of a Node system error (ENOENT, EEXIST, ESRCH…), if it has one. */
function codeOf(err: unknown): unknown {
  return err instanceof Error && 'code' in err ? err.code : undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Creates `path` holding `content` only if it does not exist: the content is there the moment it is. */
async function createWith(path: string, content: string): Promise<boolean> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(tmp, content, { flag: 'wx', mode: 0o644 });
  try {
    await link(tmp, path);
    return true;
  } catch (err) {
    if (codeOf(err) === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/**
 * Moves a stale lock out of the way, unless it changed since it was judged: the lock is renamed to a
 * private name and compared; if another process has taken it over meanwhile, it is put back.
 */
async function removeStale(path: string, staleText: string): Promise<void> {
  const aside = `${path}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    await rename(path, aside);
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return;
    throw err;
  }
  const moved = await readFile(aside, 'utf8').catch(() => '');
  if (moved !== staleText) await link(aside, path).catch(() => undefined); // a live lock: put it back
  await unlink(aside).catch(() => undefined);
}

/** Takes the lock of `folder` (waiting as described above) and returns it. */
export async function lockFolder(folder: string, opts: FolderLockOptions = {}): Promise<FolderLock> {
  const path = `${folder}.lock`;
  const waitMs = opts.waitMs ?? DEFAULT_LOCK_WAIT_MS;
  const pollMs = opts.pollMs ?? 200;
  try {
    await mkdir(dirname(path), { recursive: true });
  } catch (err) {
    throw new InputError(`cannot create the folder of the database ${folder}: ${errorMessage(err)}`, 'choose a folder this user can write');
  }
  const mine = me();
  const content = JSON.stringify(mine) + '\n';
  /** The holder being waited for (an object, so that the loop's reads are not narrowed to the initial value). */
  const current = { key: '', firstSeen: 0 };
  for (;;) {
    const created = await createWith(path, content).catch((err: unknown) => {
      throw new InputError(`cannot lock the database folder ${folder}: ${errorMessage(err)}`, 'choose a folder this user can write');
    });
    if (created) {
      const { ino, dev } = await stat(path);
      return {
        path,
        release: async () => {
          // Only our own file: never one another process wrote after ours was (wrongly) taken over.
          const now = await stat(path).catch(() => null);
          if (now?.ino === ino && now.dev === dev) await unlink(path).catch(() => undefined);
        },
      };
    }
    const text = await readFile(path, 'utf8').catch((err: unknown) => {
      if (codeOf(err) === 'ENOENT') return null;
      throw new Error(`cannot read the lock file ${path}: ${errorMessage(err)}`);
    });
    if (text === null) continue; // released meanwhile: try again at once
    const holder = parseHolder(text);
    if (!holder) {
      // Not a lock slopgate wrote (only created complete, by link): someone else's file in the way.
      throw new InputError(`${path} is not a slopgate lock file`, `move it away if nothing uses the database folder ${folder}`);
    }
    const gone = goneReason(holder);
    if (gone) {
      opts.onNotice?.(`taking over the lock of ${folder} from pid ${holder.pid} (${gone})`);
      await removeStale(path, text);
      current.key = '';
      continue;
    }
    const key = `${holder.host}:${holder.pid}:${holder.since}`;
    if (current.key !== key) {
      Object.assign(current, { key, firstSeen: Date.now() });
      opts.onNotice?.(`waiting for pid ${holder.pid}, which is using the database folder ${folder}`);
    }
    const waited = Date.now() - current.firstSeen;
    if (waited >= waitMs) throw new FolderBusyError(folder, holder, waited);
    await sleep(Math.min(pollMs, waitMs - waited));
  }
}
