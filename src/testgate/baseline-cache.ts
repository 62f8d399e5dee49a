import type { BaselineCache, BaselineKey } from '../core/ports.js';
import type { SuiteResult } from '../core/suite-result.js';

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
