import type { SlopgateConfig } from '../core/config-schema.js';
import type { GuardFinding } from '../core/guard.js';
import type { PatchSet } from '../core/patch-set.js';
import type { ReportSections } from '../core/report-sections.js';
import type { TracePhase } from '../core/trace.js';

/** The messages between the pipeline (guard-pool.ts) and a guard thread (guard-worker.ts). */

export interface InitRun {
  type: 'init';
  patch: PatchSet;
  config: SlopgateConfig;
  phase: TracePhase;
  sanctions: string[];
  maxBytes: number;
}

export interface RunGuard {
  type: 'guard';
  id: string;
  /** Module that exports the guard (default: the guard registry). */
  module?: string;
  paths: string[];
  budgetMs: number;
}

export interface GuardDone {
  type: 'done';
  findings: GuardFinding[];
  errors: number;
  skipped?: string;
  sections: ReportSections;
}

export interface GuardStarted {
  type: 'started';
}

export interface GuardFailed {
  type: 'failed';
  message: string;
}
