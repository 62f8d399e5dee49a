export type { Db, Queryable, QueryResult } from './db.js';
export { openStore, openDb, storeOptionsFromEnv, type StoreOptions } from './open-store.js';
export { Store } from './store.js';
export { migrate } from './migrate.js';
export { saveRun, getRun, listRuns, isGuardFailure, type RunMeta, type RunStatus, type RunTrigger, type StoredRun } from './runs.js';
export { recordDelivery, pruneDeliveries } from './deliveries.js';
export { getRound, advanceRound, resetRound, setMaxRoundsOverride, type RoundState, type AdvanceResult } from './rounds.js';
export { appendDecision, listDecisions, exportDecisions, type DecisionEntry, type DecisionRecord, type DecisionFilter } from './decisions.js';
export { findHotspots, storeHistory, type Hotspot, type HistoryProvider, type HistoryExclusions, type RunIdentity } from './history.js';
export { StoreBaselineCache, looksLikeSuiteResult } from './baseline-store.js';
export { storeServices } from './services.js';
export {
  recordRefineAttempt,
  listRefineAttempts,
  revertedHotspots,
  hotspotsWithReverts,
  type RefineAttemptScope,
  type StoredRefineAttempt,
} from './refine-attempts.js';
export { dismissFinding, listDismissals, type DismissalEntry, type StoredDismissal } from './dismissals.js';
