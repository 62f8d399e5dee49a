import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { readCappedText } from '../../core/safe-read.js';
import { touchFile, writeNewFile } from '../../core/safe-write.js';
import { ownerTag, STALE_AFTER_MS, tagOwnerAlive, trackScratchPath } from '../../core/scratch.js';
import type { Ecosystem } from './deps-plan.js';

const run = promisify(execFile);

/**
 * The installed-dependencies cache of this machine. An install is PR code (lifecycle scripts, build
 * backends, cargo wrappers, Maven plugins), so what one wrote is trusted only as far as GitHub trusts
 * an Actions cache, in two scopes:
 * - `shared/<key>`: written only by installs of a base revision (a commit the repository holds);
 *   every run whose dependencies have that key reads it;
 * - `tree/<key>`: written by an install that ran a pull request's tree; its key holds that tree's id,
 *   so it serves that identical tree and nothing else.
 * An install never writes here: it fills a folder of its own (install-deps.ts), which is moved or
 * copied (links kept as links, never followed) into `.staging/`, given its metadata there, made
 * read-only and renamed into place. A reader checks that the entry is a real folder of this user's,
 * and that its metadata is a regular file naming the key and the scope asked for. Last use is kept in
 * `.used/`, locks in `.locks/`: folders no sandbox ever sees. Least recently used entries are removed
 * past a size cap.
 */

export type CacheScope = 'shared' | 'tree';
const SCOPES: CacheScope[] = ['shared', 'tree'];

const META = 'meta.json';
/** The part of an entry test runs mount (read-only), and the only part an install wrote. */
export const ENTRY_CONTENT = 'deps';
const META_CAP = 1024 * 1024;
/** Entries of the first layout (the cache's root, no scopes): removed when the cache is trimmed. */
const LEGACY_ENTRY = /^(npm|pnpm|yarn|python|go|cargo|maven)-[0-9a-f]{32}$/;

const entryMetaSchema = z.object({
  version: z.literal(2),
  key: z.string(),
  scope: z.enum(['shared', 'tree']),
  ecosystem: z.enum(['npm', 'pnpm', 'yarn', 'python', 'go', 'cargo', 'maven']),
  createdAt: z.string(),
  sizeBytes: z.number(),
  installMs: z.number(),
  /** Paths (relative to the content's `tree/`) of what the install produced: node_modules directories, PnP files. */
  outputs: z.array(z.string()),
  notes: z.array(z.string()),
  toolchain: z.record(z.string(), z.string()),
  /** A cargo source-replacement config (vendored crates), as slopgate wrote it from what cargo printed. */
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
    // du counts links as links and never follows them.
    const { stdout } = await run('du', ['-sk', dir], { maxBuffer: 1024 * 1024 });
    return Number(stdout.split('\t')[0]) * 1024;
  } catch {
    return 0;
  }
}

/** A real folder (not a link to one) owned by this process's user. */
async function ownFolder(path: string): Promise<boolean> {
  const st = await lstat(path).catch(() => null);
  return st !== null && st.isDirectory() && (process.getuid === undefined || st.uid === process.getuid());
}

/** Moves `from` to `to`; across file systems (an install's own tmpfs) copies it, links kept as links. */
async function moveTree(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    // cast: Node's errors carry `code`
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await run('cp', ['-a', '--no-dereference', '--', from, to], { maxBuffer: 1024 * 1024 });
  }
}

/** Removes a tree that may have been made read-only. */
async function removeTree(dir: string): Promise<void> {
  await run('chmod', ['-R', 'u+w', '--', dir]).catch(() => undefined);
  await rm(dir, { recursive: true, force: true, maxRetries: 3 });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type BuildOutcome =
  { ok: true; meta: EntryMeta; dir: string; cached: boolean } | { ok: false; error: string; tail: string; diskFull?: boolean };

/** What an install produced: a folder of its own (becomes the entry's content), and how to let go of it. */
export type Built =
  | {
      ok: true;
      content: string;
      outputs: string[];
      notes: string[];
      toolchain: Record<string, string>;
      cargoConfig?: string;
    }
  | { ok: false; error: string; tail: string; diskFull?: boolean };

export interface Builder {
  ecosystem: Ecosystem;
  /** Runs the install; `release` is called once its content was taken (or on failure). */
  build(): Promise<{ built: Built; release: () => Promise<void> }>;
}

/** Cache roots whose `.staging/` this process swept already. */
const swept = new Set<string>();

/**
 * A `.staging/` entry's name starts with its maker ({@link ownerTag}), so that what a killed run left
 * there can be told from what a running one is filling: `<host>.<pid>.<start>~<what>`.
 */
function stagingName(what: string): string {
  return `${ownerTag()}~${what}-${randomBytes(4).toString('hex')}`;
}

/**
 * Removes `.staging/` entries a killed run left: its maker is gone (same host, pid dead or reused), or
 * the name says no maker (an older slopgate's) or another host's and it is older than {@link STALE_AFTER_MS}.
 * Never follows a link (an entry that is not a real folder of this user's is only unlinked). Returns the names removed.
 */
export async function sweepStaging(root: string, now = Date.now()): Promise<string[]> {
  const dir = join(root, '.staging');
  const names = await readdir(dir).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const st = await lstat(join(dir, name)).catch(() => null);
    if (!st) continue;
    const tag = name.includes('~') ? name.slice(0, name.indexOf('~')) : '';
    const owner = tagOwnerAlive(tag);
    const stale =
      owner === false || ((owner === null || tag.split('.')[0] !== ownerTag().split('.')[0]) && now - st.mtimeMs > STALE_AFTER_MS);
    if (!stale) continue;
    if (st.isDirectory() && st.uid === (process.getuid?.() ?? st.uid)) await removeTree(join(dir, name)).catch(() => undefined);
    else await rm(join(dir, name), { force: true }).catch(() => undefined);
    removed.push(name);
  }
  return removed;
}

export class DepCache {
  constructor(readonly opts: DepCacheOptions) {}

  entryDir(scope: CacheScope, key: string): string {
    return join(this.opts.root, scope, key);
  }

  private usedMarker(scope: CacheScope, key: string): string {
    return join(this.opts.root, '.used', `${scope}-${key}`);
  }

  private async ensureFolders(): Promise<void> {
    for (const d of ['.used', '.locks', '.staging', ...SCOPES]) await mkdir(join(this.opts.root, d), { recursive: true, mode: 0o700 });
    if (!swept.has(this.opts.root)) {
      swept.add(this.opts.root);
      await sweepStaging(this.opts.root);
    }
  }

  /** The entry for `key` in `scope` when it is complete and what it says it is; marks it used. */
  async lookup(scope: CacheScope, key: string): Promise<{ meta: EntryMeta; dir: string } | null> {
    const dir = this.entryDir(scope, key);
    if (!(await ownFolder(join(this.opts.root, scope))) || !(await ownFolder(dir)) || !(await ownFolder(join(dir, ENTRY_CONTENT))))
      return null;
    let meta: EntryMeta;
    try {
      meta = entryMetaSchema.parse(JSON.parse(await readCappedText(join(dir, META), META_CAP)));
    } catch {
      return null;
    }
    if (meta.key !== key || meta.scope !== scope) return null;
    await mkdir(join(this.opts.root, '.used'), { recursive: true, mode: 0o700 });
    await touchFile(this.usedMarker(scope, key)).catch(() => undefined);
    return { meta, dir };
  }

  /**
   * The entry for `key` in `scope`: from the cache, or built once (other workers wait for the lock),
   * then the cache is trimmed to its size cap. `cached` is true only for an entry that was complete
   * when asked for: one another worker (another guard of the same run, as often as not) finished
   * while this one waited was installed at this run's cost, and says so.
   */
  async getOrBuild(scope: CacheScope, key: string, builder: Builder): Promise<BuildOutcome> {
    const found = await this.lookup(scope, key);
    if (found) return { ok: true, ...found, cached: true };
    await this.ensureFolders();
    const lock = join(this.opts.root, '.locks', `${scope}-${key}`);
    const deadline = Date.now() + (this.opts.waitMs ?? 30 * 60_000);
    for (;;) {
      try {
        await mkdir(lock);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // cast: Node's errors carry `code`
      }
      const again = await this.lookup(scope, key);
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
      await writeNewFile(join(lock, 'owner'), `${hostname()} ${process.pid}`);
      const again = await this.lookup(scope, key);
      if (again) return { ok: true, ...again, cached: false };
      return await this.buildEntry(scope, key, builder);
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  }

  private async buildEntry(scope: CacheScope, key: string, builder: Builder): Promise<BuildOutcome> {
    const started = Date.now();
    const { built, release } = await builder.build();
    const staging = join(this.opts.root, '.staging', stagingName(`${scope}-${key}`));
    // An interrupted run removes it (core/scratch.ts); a killed one leaves it to the next sweep.
    const untrack = trackScratchPath(staging);
    try {
      if (!built.ok) return built;
      await mkdir(staging, { mode: 0o700 });
      const content = join(staging, ENTRY_CONTENT);
      await moveTree(built.content, content);
      const meta: EntryMeta = {
        version: 2,
        key,
        scope,
        ecosystem: builder.ecosystem,
        createdAt: new Date().toISOString(),
        sizeBytes: await sizeOf(content),
        installMs: Date.now() - started,
        outputs: built.outputs,
        notes: built.notes,
        toolchain: built.toolchain,
        ...(built.cargoConfig ? { cargoConfig: built.cargoConfig } : {}),
      };
      await writeNewFile(join(staging, META), JSON.stringify(meta, null, 1));
      // Nothing writes an entry once it is in place (runs mount it read-only; chmod -R leaves links alone).
      await run('chmod', ['-R', 'a-w', '--', content]);
      const dir = this.entryDir(scope, key);
      try {
        await rename(staging, dir);
      } catch {
        // Someone else's entry won (a worker on another lock dir after a takeover): use it.
        const other = await this.lookup(scope, key);
        if (other) return { ok: true, ...other, cached: false };
        throw new Error(`could not move the installed dependencies into ${dir}`);
      }
      await touchFile(this.usedMarker(scope, key));
      await this.trim(`${scope}/${key}`);
      return { ok: true, meta, dir, cached: false };
    } finally {
      await release();
      await removeTree(staging).catch(() => undefined);
      untrack();
    }
  }

  /** Removes least recently used entries until the cache fits its cap; never `keep` (`scope/key`), never one used recently. */
  async trim(keep?: string): Promise<string[]> {
    const protectMs = this.opts.protectMs ?? 60 * 60_000;
    const removed: string[] = [];
    const legacy = await readdir(this.opts.root).catch(() => [] as string[]);
    for (const name of legacy.filter((n) => LEGACY_ENTRY.test(n))) {
      await removeTree(join(this.opts.root, name)).catch(() => undefined);
      removed.push(name);
    }
    const entries: { scope: CacheScope; name: string; size: number; used: number }[] = [];
    for (const scope of SCOPES) {
      const names = await readdir(join(this.opts.root, scope)).catch(() => [] as string[]);
      for (const name of names) {
        const dir = this.entryDir(scope, name);
        const meta = await readCappedText(join(dir, META), META_CAP)
          .then((t) => entryMetaSchema.parse(JSON.parse(t)))
          .catch(() => null);
        const used = await stat(this.usedMarker(scope, name)).then(
          (s) => s.mtimeMs,
          () => 0,
        );
        entries.push({ scope, name, size: meta?.sizeBytes ?? (await sizeOf(dir)), used });
      }
    }
    let total = entries.reduce((n, e) => n + e.size, 0);
    for (const e of entries.sort((a, b) => a.used - b.used)) {
      if (total <= this.opts.maxBytes) break;
      const id = `${e.scope}/${e.name}`;
      if (id === keep || Date.now() - e.used < protectMs) continue;
      const trash = join(this.opts.root, '.staging', stagingName(`trash-${e.scope}-${e.name}`));
      await mkdir(join(this.opts.root, '.staging'), { recursive: true, mode: 0o700 });
      try {
        await rename(this.entryDir(e.scope, e.name), trash);
      } catch {
        continue;
      }
      const untrack = trackScratchPath(trash);
      await removeTree(trash).catch(() => undefined);
      untrack();
      await rm(this.usedMarker(e.scope, e.name), { force: true });
      total -= e.size;
      removed.push(id);
    }
    return removed;
  }
}
