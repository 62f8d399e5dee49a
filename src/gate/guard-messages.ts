import type { HostKind } from '../core/host-kind.js';
import type { SlopgateConfig } from '../core/config-schema.js';
import type { GuardFinding } from '../core/guard.js';
import type { PatchSet } from '../core/patch-set.js';
import type { ReportSections } from '../core/report-sections.js';
import type { RunIdentity, TestRunOptions } from '../core/ports.js';
import type { TracePhase } from '../core/trace.js';

/** The messages between the pipeline (guard-pool.ts) and a guard thread (guard-worker.ts). */

export interface InitRun {
  type: 'init';
  patch: PatchSet;
  config: SlopgateConfig;
  phase: TracePhase;
  sanctions: string[];
  maxBytes: number;
  /**
   * The plain-data services a thread can receive (thread-placement.ts `IN_A_THREAD`): who is gated (G1 reads
   * the PR author) and the repository's name (G11, Ψ). A guard still gets only those its needs name.
   */
  run?: RunIdentity;
  repoName?: string;
  /** Which host runs the gate (G1 words its sanction hint by it). */
  host?: HostKind;
  /** The run's test options a thread can receive (plain data): G17's Python half installs and runs by them. */
  tests?: ThreadTestOptions;
}

/** The plain-data part of the run's test options; functions (the progress line, a test's egress) stay in the main thread. */
export type ThreadTestOptions = Pick<TestRunOptions, 'enabled' | 'mergeRef' | 'repo' | 'cacheDir' | 'prepared'>;

/**
 * Several guards can be in one thread at a time (G17 waits on pyright while the static guards run), so
 * every answer carries the number of the request it answers.
 */
export interface RunGuard {
  type: 'guard';
  seq: number;
  id: string;
  /** Module that exports the guard (default: the guard registry). */
  module?: string;
  paths: string[];
  budgetMs: number;
}

export interface GuardDone {
  type: 'done';
  seq: number;
  findings: GuardFinding[];
  errors: number;
  skipped?: string;
  sections: ReportSections;
}

export interface GuardStarted {
  type: 'started';
  seq: number;
}

export interface GuardFailed {
  type: 'failed';
  seq: number;
  message: string;
}
