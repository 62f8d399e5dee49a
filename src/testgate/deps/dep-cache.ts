import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import type { Ecosystem } from './deps-plan.js';

const run = promisify(execFile);

/**
 * The installed-dependencies cache: one directory per key (ecosystem, dependency files, toolchain,
 * platform), shared by every run and PR on this machine and only ever mounted read-only into a test
 * sandbox. An entry is built in a staging directory and renamed into place, so a reader never sees a
 * half-written one; a lock directory per key makes concurrent workers wait for one install instead of
 * doing it twice; the least recently used entries are removed past a size cap.
 */

const META = 'meta.json';
const USED = '.used';

const entryMetaSchema = z.object({
  version: z.literal(1),
  key: z.string(),
  ecosystem: z.enum(['npm', 'pnpm', 'yarn', 'python', 'go', 'cargo', 'maven']),
  createdAt: z.string(),
  sizeBytes: z.number(),
  installMs: z.number(),
  /** Paths (relative to the entry's `tree/`) of what the install produced: node_modules directories, PnP files. */
  outputs: z.array(z.string()),
  notes: z.array(z.string()),
  toolchain: z.record(z.string(), z.string()),
  /** A cargo source-replacement config (vendored crates). */
  cargoConfig: z.string().optional(),
});
export type EntryMeta = z.infer<typeof entryMetaSchema>;

export interface DepCacheOptions {
  root: string;
  /** Total size the cache may keep (entries in use are never removed). */
  maxBytes: number;
  /** An entry used this recently is never evicted (a run may be using it). Default one hour. */
  protectMs?: number;
  /** How long a worker waits for another worker's install of the same key. Default 30 minutes. */
  waitMs?: number;
}

/** `SLOPGATE_DEPS_CACHE_DIR` (default `$XDG_CACHE_HOME/slopgate/deps` or `~/.cache/slopgate/deps`), `SLOPGATE_DEPS_CACHE_MB` (default 20480). */
export function depCacheOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): DepCacheOptions {
  const xdg = env.XDG_CACHE_HOME?.trim();
  const root = env.SLOPGATE_DEPS_CACHE_DIR?.trim() || join(xdg || join(homedir(), '.cache'), 'slopgate', 'deps');
  const mb = Number(env.SLOPGATE_DEPS_CACHE_MB);
  return { root, maxBytes: (Number.isFinite(mb) && mb > 0 ? mb : 20_480) * 1024 * 1024 };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // cast: Node's errors carry `code`
  }
}

async function sizeOf(dir: string): Promise<number> {
  try {
    const { stdout } = await run('du', ['-sk', dir], { maxBuffer: 1024 * 1024 });
    return Number(stdout.split('\t')[0]) * 1024;
  } catch {
    return 0;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type BuildOutcome = { ok: true; meta: EntryMeta; dir: string; cached: boolean } | { ok: false; error: string; tail: string };

export interface Builder {
  ecosystem: Ecosystem;
  /** Fills `staging` (an empty directory); returns the entry's outputs or the failure. */
  build(
    staging: string,
  ): Promise<
    | { ok: true; outputs: string[]; notes: string[]; toolchain: Record<string, string>; cargoConfig?: string }
    | { ok: false; error: string; tail: string }
  >;
}

export class DepCache {
  constructor(readonly opts: DepCacheOptions) {}

  entryDir(key: string): string {
    return join(this.opts.root, key);
  }

  /** The entry for `key` when it is complete; marks it used. */
  async lookup(key: string): Promise<{ meta: EntryMeta; dir: string } | null> {
    const dir = this.entryDir(key);
    let meta: EntryMeta;
    try {
      meta = entryMetaSchema.parse(JSON.parse(await readFile(join(dir, META), 'utf8')));
    } catch {
      return null;
    }
    const now = new Date();
    await writeFile(join(dir, USED), '').catch(() => undefined);
    await utimes(join(dir, USED), now, now).catch(() => undefined);
    return { meta, dir };
  }

  /**
   * The entry for `key`: from the cache, or built once (other workers wait for the lock), then the
   * cache is trimmed to its size cap. `cached` is true only for an entry that was complete when asked
   * for: one another worker (another guard of the same run, as often as not) finished while this one
   * waited was installed at this run's cost, and says so.
   */
  async getOrBuild(key: string, builder: Builder): Promise<BuildOutcome> {
    const found = await this.lookup(key);
    if (found) return { ok: true, ...found, cached: true };
    await mkdir(join(this.opts.root, '.locks'), { recursive: true });
    const lock = join(this.opts.root, '.locks', key);
    const deadline = Date.now() + (this.opts.waitMs ?? 30 * 60_000);
    for (;;) {
      try {
        await mkdir(lock);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // cast: Node's errors carry `code`
      }
      const again = await this.lookup(key);
      if (again) return { ok: true, ...again, cached: false };
      const owner = await readFile(join(lock, 'owner'), 'utf8').catch(() => '');
      const [host, pid] = owner.split(' ');
      if (host === hostname() && pid && !alive(Number(pid))) await rm(lock, { recursive: true, force: true });
      else if (Date.now() > deadline)
        return {
          ok: false,
          error: `another install of the same dependencies (${owner || 'unknown owner'}) did not finish in time`,
          tail: '',
        };
      else await sleep(500);
    }
    try {
      await writeFile(join(lock, 'owner'), `${hostname()} ${process.pid}`);
      const again = await this.lookup(key);
      if (again) return { ok: true, ...again, cached: false };
      return await this.buildEntry(key, builder);
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  }

  private async buildEntry(key: string, builder: Builder): Promise<BuildOutcome> {
    const staging = join(this.opts.root, '.staging', `${key}-${randomBytes(4).toString('hex')}`);
    await mkdir(staging, { recursive: true });
    const started = Date.now();
    try {
      const r = await builder.build(staging);
      if (!r.ok) return r;
      const meta: EntryMeta = {
        version: 1,
        key,
        ecosystem: builder.ecosystem,
        createdAt: new Date().toISOString(),
        sizeBytes: await sizeOf(staging),
        installMs: Date.now() - started,
        outputs: r.outputs,
        notes: r.notes,
        toolchain: r.toolchain,
        ...(r.cargoConfig ? { cargoConfig: r.cargoConfig } : {}),
      };
      await writeFile(join(staging, META), JSON.stringify(meta, null, 1));
      const dir = this.entryDir(key);
      try {
        await rename(staging, dir);
      } catch {
        // Someone else's entry won (a worker on another lock dir after a takeover): use it.
        const other = await this.lookup(key);
        if (other) return { ok: true, ...other, cached: false };
        throw new Error(`could not move the installed dependencies into ${dir}`);
      }
      await writeFile(join(dir, USED), '');
      await this.trim(key);
      return { ok: true, meta, dir, cached: false };
    } finally {
      await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /** Removes least recently used entries until the cache fits its cap; never `keep`, never one used recently. */
  async trim(keep?: string): Promise<string[]> {
    const protectMs = this.opts.protectMs ?? 60 * 60_000;
    let names: string[];
    try {
      names = (await readdir(this.opts.root)).filter((n) => !n.startsWith('.'));
    } catch {
      return [];
    }
    const entries: { name: string; size: number; used: number }[] = [];
    for (const name of names) {
      const dir = this.entryDir(name);
      const meta = await readFile(join(dir, META), 'utf8')
        .then((t) => entryMetaSchema.parse(JSON.parse(t)))
        .catch(() => null);
      const used = await stat(join(dir, USED)).then(
        (s) => s.mtimeMs,
        () => 0,
      );
      entries.push({ name, size: meta?.sizeBytes ?? (await sizeOf(dir)), used });
    }
    let total = entries.reduce((n, e) => n + e.size, 0);
    const removed: string[] = [];
    for (const e of entries.sort((a, b) => a.used - b.used)) {
      if (total <= this.opts.maxBytes) break;
      if (e.name === keep || Date.now() - e.used < protectMs) continue;
      const trash = join(this.opts.root, '.staging', `trash-${e.name}-${randomBytes(4).toString('hex')}`);
      await mkdir(join(this.opts.root, '.staging'), { recursive: true });
      try {
        await rename(this.entryDir(e.name), trash);
      } catch {
        continue;
      }
      await rm(trash, { recursive: true, force: true }).catch(() => undefined);
      total -= e.size;
      removed.push(e.name);
    }
    return removed;
  }
}
