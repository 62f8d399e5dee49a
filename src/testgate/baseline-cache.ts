import { createHash, randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import type { BaselineCache, BaselineKey } from '../core/ports.js';
import { isRecord } from '../core/is-record.js';
import { looksLikeSuiteResult, type SuiteResult } from '../core/suite-result.js';

/** Stable string form of a key (for maps and logs). */
export function baselineKeyString(key: BaselineKey): string {
  return JSON.stringify([key.repo, key.baseTree, key.command, key.lockfileHash]);
}

/** An in-process cache with least-recently-used eviction. Results are copied in and out. */
export class MemoryBaselineCache implements BaselineCache {
  private readonly entries = new Map<string, SuiteResult>();

  constructor(private readonly maxEntries = 256) {}

  async get(key: BaselineKey): Promise<SuiteResult | null> {
    const k = baselineKeyString(key);
    const hit = this.entries.get(k);
    if (hit === undefined) return null;
    this.entries.delete(k);
    this.entries.set(k, hit);
    return structuredClone(hit);
  }

  async put(key: BaselineKey, result: SuiteResult): Promise<void> {
    const k = baselineKeyString(key);
    this.entries.delete(k);
    this.entries.set(k, structuredClone(result));
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

let shared: MemoryBaselineCache | undefined;

/** The process-wide default cache (used when the host provides no `baselineCache` service). */
export function sharedMemoryBaselineCache(): MemoryBaselineCache {
  shared ??= new MemoryBaselineCache();
  return shared;
}

/** Where the CLI keeps baselines without a store: `SLOPGATE_BASELINE_CACHE_DIR`, else the user's cache folder. */
export function fileBaselineCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME?.trim();
  return env.SLOPGATE_BASELINE_CACHE_DIR?.trim() || join(xdg || join(homedir(), '.cache'), 'slopgate', 'baselines');
}

/**
 * Baselines in files, for the CLI without `--db`: a second check against the same base runs only the
 * head's suite. One JSON file per key (named by the key's hash, holding the key, which a read checks),
 * written whole or not at all (a temporary file renamed into place), in a folder only its owner can
 * read; beyond `maxEntries`, the files used longest ago go. A file that does not read back as a suite
 * result is a miss, so the baseline runs again.
 */
export class FileBaselineCache implements BaselineCache {
  constructor(
    private readonly dir: string,
    private readonly maxEntries = 256,
  ) {}

  private file(key: BaselineKey): { path: string; id: string } {
    const id = baselineKeyString(key);
    return { path: join(this.dir, `${createHash('sha256').update(id).digest('hex')}.json`), id };
  }

  async get(key: BaselineKey): Promise<SuiteResult | null> {
    const { path, id } = this.file(key);
    let value: unknown;
    try {
      value = JSON.parse(await readFile(path, 'utf8'));
    } catch {
      return null;
    }
    if (!isRecord(value) || value.key !== id || !looksLikeSuiteResult(value.result)) return null;
    // Read is use: the eviction keeps what was used last.
    const now = new Date();
    await utimes(path, now, now).catch(() => undefined);
    return value.result;
  }

  async put(key: BaselineKey, result: SuiteResult): Promise<void> {
    const { path, id } = this.file(key);
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(tmp, JSON.stringify({ key: id, result }), { mode: 0o600 });
    await rename(tmp, path);
    await this.evict();
  }

  private async evict(): Promise<void> {
    const names = (await readdir(this.dir)).filter((n) => n.endsWith('.json'));
    if (names.length <= this.maxEntries) return;
    const aged = await Promise.all(names.map(async (n) => ({ n, at: (await stat(join(this.dir, n)).catch(() => null))?.mtimeMs ?? 0 })));
    aged.sort((a, b) => a.at - b.at);
    for (const { n } of aged.slice(0, names.length - this.maxEntries)) await rm(join(this.dir, n), { force: true });
  }
}
