import type { Report } from '../core/report.js';
import type { Db } from './db.js';
import {
  appendDecision,
  exportDecisions,
  listDecisions,
  type DecisionEntry,
  type DecisionFilter,
  type DecisionRecord,
} from './decisions.js';
import { pruneDeliveries, recordDelivery } from './deliveries.js';
import { admitCommand, settleCommand, type CommandScope, type CommandWindow } from './command-attempts.js';
import type { FlakyLookup, FlakyMemory, HistoryExclusions, HistoryReader, Hotspot, KnownFlakyTest } from '../core/ports.js';
import { knownFlaky, listFlakyTests, recordFlips, type FlakyTestSummary, type FlipEntry } from './flaky-tests.js';
import { recordJob, type JobEntry } from './jobs.js';
import { dismissFinding, listDismissals, type DismissalEntry, type StoredDismissal } from './dismissals.js';
import type { DismissalSource } from '../core/finding.js';
import { advanceRound, getRound, resetRound, setMaxRoundsOverride, type AdvanceResult, type RoundState } from './rounds.js';
import type { RefineAttempt } from '../refiner/attempt.js';
import {
  hotspotsWithReverts,
  listRefineAttempts,
  recordRefineAttempt,
  type RefineAttemptScope,
  type StoredRefineAttempt,
} from './refine-attempts.js';
import { getRun, listRuns, saveRun, type RunMeta, type StoredRun } from './runs.js';

/**
 * The store as one object: a thin facade over the single-purpose modules, so the App and the CLI hold
 * one handle. Every method is also available as a plain function taking a `Db`.
 */
export class Store implements HistoryReader, FlakyMemory {
  constructor(readonly db: Db) {}

  saveRun(report: Report, meta: RunMeta): Promise<string> {
    return saveRun(this.db, report, meta);
  }
  getRun(id: string): Promise<StoredRun | undefined> {
    return getRun(this.db, id);
  }
  listRuns(repo: string, pr: number, limit?: number): Promise<StoredRun[]> {
    return listRuns(this.db, repo, pr, limit);
  }
  recordDelivery(id: string): Promise<boolean> {
    return recordDelivery(this.db, id);
  }
  pruneDeliveries(olderThan: Date): Promise<number> {
    return pruneDeliveries(this.db, olderThan);
  }
  getRound(repo: string, pr: number): Promise<RoundState> {
    return getRound(this.db, repo, pr);
  }
  advanceRound(repo: string, pr: number, expected: number): Promise<AdvanceResult> {
    return advanceRound(this.db, repo, pr, expected);
  }
  resetRound(repo: string, pr: number): Promise<void> {
    return resetRound(this.db, repo, pr);
  }
  setMaxRoundsOverride(repo: string, pr: number, maxRounds: number | null): Promise<void> {
    return setMaxRoundsOverride(this.db, repo, pr, maxRounds);
  }
  appendDecision(entry: DecisionEntry): Promise<number> {
    return appendDecision(this.db, entry);
  }
  listDecisions(filter?: DecisionFilter): Promise<DecisionRecord[]> {
    return listDecisions(this.db, filter);
  }
  exportDecisions(filter?: DecisionFilter): Promise<string> {
    return exportDecisions(this.db, filter);
  }
  hotspots(repo: string, paths: string[], windowDays: number, threshold: number, exclude?: HistoryExclusions): Promise<Hotspot[]> {
    return hotspotsWithReverts(this.db, repo, paths, windowDays, threshold, exclude);
  }
  recordRefineAttempt(scope: RefineAttemptScope, attempt: RefineAttempt): Promise<void> {
    return recordRefineAttempt(this.db, scope, attempt);
  }
  listRefineAttempts(repo: string, pr: number | null, limit?: number): Promise<StoredRefineAttempt[]> {
    return listRefineAttempts(this.db, repo, pr, limit);
  }
  dismissFinding(entry: DismissalEntry): Promise<StoredDismissal> {
    return dismissFinding(this.db, entry);
  }
  listDismissals(repo: string, pr: number, source?: DismissalSource): Promise<StoredDismissal[]> {
    return listDismissals(this.db, repo, pr, source);
  }
  admitCommand(scope: CommandScope, window: CommandWindow, now: Date): Promise<string | null> {
    return admitCommand(this.db, scope, window, now);
  }
  settleCommand(scope: CommandScope, id: string, command: string, window: CommandWindow, now: Date): Promise<boolean> {
    return settleCommand(this.db, scope, id, command, window, now);
  }
  recordFlips(entry: FlipEntry): Promise<void> {
    return recordFlips(this.db, entry);
  }
  knownFlaky(repo: string, testIds: string[], lookup: FlakyLookup): Promise<KnownFlakyTest[]> {
    return knownFlaky(this.db, repo, testIds, lookup);
  }
  listFlakyTests(opts: { owners?: string[]; windowDays: number; prs: number; now?: Date; limit?: number }): Promise<FlakyTestSummary[]> {
    return listFlakyTests(this.db, opts);
  }
  recordJob(entry: JobEntry): Promise<void> {
    return recordJob(this.db, entry);
  }
  close(): Promise<void> {
    return this.db.close();
  }
}
