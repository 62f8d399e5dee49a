import type { Decision } from './decision.js';
import type { Finding } from './finding.js';
import type { CoverageEntry, ReportSections } from './report-sections.js';

export type { ReportSections } from './report-sections.js';

/** Bumped on any breaking change of the report shape. */
export const REPORT_VERSION = 1;

/**
 * What became of a guard: `pass` (nothing found, or everything found was dismissed); `fail`, `risk` or
 * `nit`, the worst severity among its findings; `skipped` (with the reason); `error` (it crashed or ran
 * out of time: a `guard-error` finding).
 */
export type GuardStatusValue = 'pass' | 'fail' | 'risk' | 'nit' | 'skipped' | 'error';

export interface GuardStatus {
  id: string;
  name: string;
  status: GuardStatusValue;
  /** Why it was skipped or errored. */
  reason?: string;
  /** Files the guard looked at. */
  files: number;
  findings: number;
  ms: number;
}

export interface ChangedFileSummary {
  path: string;
  oldPath?: string;
  status: string;
  additions: number;
  deletions: number;
  /** Why the file's head text was not checked (binary, too large, not UTF-8, …). */
  unreadable?: string;
}

/** The one output every reporter renders; also what `--format json` prints and the store keeps. */
export interface Report {
  version: typeof REPORT_VERSION;
  tool: { name: 'slopgate'; version: string };
  repo: string;
  base: { ref: string; sha: string };
  head: { ref: string; sha: string };
  /** Where the config came from: `.github/slopgate.yml at main (abc1234)`, `x.yml (--config)`, the embedded defaults. */
  configSource?: string;
  commits: string[];
  files: ChangedFileSummary[];
  guards: GuardStatus[];
  findings: Finding[];
  /** Extra sections guards contribute (psi, tests, links, …). */
  sections: ReportSections;
  decision: Decision;
  /** What was checked, on which scope, and what was not and why (see core/coverage.ts); absent in reports written before it. */
  coverage?: CoverageEntry[];
  createdAt: string;
  durationMs: number;
}
