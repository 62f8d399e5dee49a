import type { GuardServices } from '../core/guard.js';
import { StoreBaselineCache } from './baseline-store.js';
import type { BaselineCache, HistoryReader, RunIdentity } from '../core/ports.js';
import type { Store } from './store.js';

/**
 * The guard services a store provides for one run: `history` (G9), `run` (who is being gated) and
 * `baselineCache` (G8's baseline results, shared by every process on the same database).
 */
export function storeServices(store: Store, run: RunIdentity): GuardServices {
  return { history: store, run, baselineCache: new StoreBaselineCache(store.db) };
}

/**
 * The same services over a store that is still opening. Opening an embedded store costs about a second
 * (PGlite loads its WebAssembly); the CLI starts the gate meanwhile, and the first guard that needs the
 * store waits for it. When the store cannot open, those calls fail like a store that went away: G8
 * runs its baseline, G9 reports its error. The caller awaits `opening` itself and reports the failure.
 */
export function pendingStoreServices(opening: Promise<Store>, run: RunIdentity): GuardServices {
  const cache = opening.then((store) => new StoreBaselineCache(store.db));
  // A failure is the caller's to report; until then it must not count as unhandled.
  cache.catch(() => undefined);
  const history: HistoryReader = {
    hotspots: async (...args) => (await opening).hotspots(...args),
    listRefineAttempts: async (...args) => (await opening).listRefineAttempts(...args),
  };
  const baselineCache: BaselineCache = {
    get: async (key) => (await cache).get(key),
    put: async (key, result) => (await cache).put(key, result),
  };
  return { history, run, baselineCache };
}
