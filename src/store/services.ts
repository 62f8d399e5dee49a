import type { GuardServices } from '../core/guard.js';
import { StoreBaselineCache } from './baseline-store.js';
import type { BaselineCache, FlakyMemory, HistoryReader, RunIdentity } from '../core/ports.js';
import type { Store } from './store.js';

/**
 * The guard services a store provides for one run: `history` (G9), `run` (who is being gated),
 * `baselineCache` (G8's baseline results, shared by every process on the same database) and `flaky`
 * (G8's memory of tests that flipped on earlier runs).
 */
export function storeServices(store: Store, run: RunIdentity): GuardServices {
  return { history: store, run, baselineCache: new StoreBaselineCache(store.db), flaky: store };
}

/**
 * The same services over a store that opens when first needed (`open` is called then; it must return
 * the same promise every time). Opening an embedded store costs about a second of the main thread
 * (PGlite loads its WebAssembly and starts Postgres): the CLI starts the gate without it, G8 asks for
 * its cached baseline once the head's suite is running, and whatever needs the store first waits for
 * it. When the store cannot open, those calls fail like a store that went away: G8 runs its baseline,
 * G9 reports its error. The caller awaits `open()` itself and reports the failure.
 */
export function pendingStoreServices(open: () => Promise<Store>, run: RunIdentity): GuardServices {
  let cache: Promise<StoreBaselineCache> | undefined;
  const baselines = () => (cache ??= open().then((store) => new StoreBaselineCache(store.db)));
  const history: HistoryReader = {
    hotspots: async (...args) => (await open()).hotspots(...args),
    listRefineAttempts: async (...args) => (await open()).listRefineAttempts(...args),
  };
  const baselineCache: BaselineCache = {
    get: async (key) => (await baselines()).get(key),
    put: async (key, result) => (await baselines()).put(key, result),
  };
  const flaky: FlakyMemory = { knownFlaky: async (...args) => (await open()).knownFlaky(...args) };
  return { history, run, baselineCache, flaky };
}
