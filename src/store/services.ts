import type { GuardServices } from '../core/guard.js';
import { StoreBaselineCache } from './baseline-store.js';
import type { RunIdentity } from '../core/ports.js';
import type { Store } from './store.js';

/**
 * The guard services a store provides for one run: `history` (G9), `run` (who is being gated) and
 * `baselineCache` (G8's baseline results, shared by every process on the same database).
 */
export function storeServices(store: Store, run: RunIdentity): GuardServices {
  return { history: store, run, baselineCache: new StoreBaselineCache(store.db) };
}
