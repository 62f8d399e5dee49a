import type { SlopgateConfig } from '../core/config-schema.js';
import type { Guard } from '../core/guard.js';
import type { TestRunOptions } from '../core/ports.js';
import type { Report } from '../core/report.js';
import type { Logger } from '../core/trace.js';
import type { GateOptions } from '../gate/run-gate.js';
import type { LlmDeps } from '../gate/llm-stage-options.js';
import type { PrRevisions } from '../workspace/pr-workspace.js';
import type { JobCheckRun } from './job-check-run.js';
import type { PrGateDeps } from './prepare-pr.js';
import type { PrJob } from './queued-job.js';
import type { PullRequestFacts, ReviewHost } from './review-host.js';

/*
 * What the PR job (pr-job.ts) is given and what it gives back, and the job as its two paths receive it
 * (pull-request-job.ts for a PR head, merge-queue-job.ts for a merge queue's commit).
 */

/** The config a job runs under, and any guard the host adds for this run (the Action's workflow-trust guard). */
export interface JobSettings {
  config: SlopgateConfig;
  /** Replaces `deps.guards` for this run when given. */
  guards?: Guard[];
  /** G8's run options for this run (the Action's `tests: false`), over `deps.testRun`. */
  testRun?: TestRunOptions;
  /** Where the config came from, as the report says it ("`.github/slopgate.yml` on `main`"). */
  source?: string;
}

/**
 * Where a job's config comes from. The default reads it through the host from the default branch (the
 * App); the Action reads it from the base commit in its checkout. Never from the PR's head.
 */
export interface ConfigSource {
  /** The branch named when the config is broken ("the config on the default branch (`main`)"). */
  where(pr: PullRequestFacts): string;
  /** Throws {@link ConfigError} for a broken config: there is no quiet fallback to the defaults. */
  load(pr: PullRequestFacts): Promise<JobSettings>;
}

/** What the job policy needs besides the host: the workspace, the guards, the store and settings. */
export interface PrJobDeps<J extends PrJob = PrJob> extends PrGateDeps {
  /** Resolve the threads of fixed findings where the host has the `threads` capability, instead of minimising the comments. */
  resolveThreads: boolean;
  log: Logger;
  /** Where the config comes from (default: the host, from the default branch). */
  config?: ConfigSource;
  /**
   * A job whose head is no longer the PR's: `supersede` (the App, default) cancels it and leaves the
   * newer head to its own job; `gate` gates the job's head anyway (the Action: each push runs its own workflow).
   */
  staleHead?: 'supersede' | 'gate';
  /** The head sha of a queued job (to say what superseded a run); unknown ids are looked up on the host. */
  headOfJob?(jobId: string): string | undefined;
  /** Called when the PR's head is not the job's head (the runtime may gate the real head). */
  onStaleHead?(job: J, actualHead: string): Promise<void>;
  /** The pipeline (injectable for tests). */
  gate?: (opts: GateOptions) => Promise<Report>;
  /** Where the Q&A and navigator models come from (default: the process environment); false: no model stages (the Action). */
  llm?: LlmDeps | false;
  /** `refiner.auto`: refines a REFINE decision of a new head once its report is out (see refine-pr.ts). */
  autoRefine?(
    host: ReviewHost,
    head: { pr: PullRequestFacts; config: SlopgateConfig; report: Report; revisions: PrRevisions; trigger: 'auto' },
  ): Promise<unknown>;
}

export type JobResult = 'reported' | 'skipped' | 'superseded' | 'config-error' | 'infrastructure-error';

/** What one job did, for a caller that has more to say than the check run (the Action's outputs and exit code). */
export interface JobRun {
  result: JobResult;
  /** The check run the job completed (or started); absent when it could not even be started. */
  checkRunId?: number;
  /** The gate's report (raw), when the job reported one. */
  report?: Report;
  /** The config the job ran under, once read. */
  config?: SlopgateConfig;
  /** Why the job did not report: the config error, or what failed. */
  error?: unknown;
  /** For a merge queue's commit: the verdict was a PR head's, reused. */
  reusedFrom?: { number: number; headSha: string };
}

/**
 * A job past its skips, its config read and its revisions prepared: what the PR path and the merge-queue
 * path each gate and report.
 */
export interface JobToGate<J extends PrJob = PrJob> {
  host: ReviewHost;
  job: J;
  deps: PrJobDeps<J>;
  pr: PullRequestFacts;
  settings: JobSettings;
  revisions: PrRevisions;
  check: JobCheckRun;
  /** The started check run's id. */
  checkRunId: number;
  log: Logger;
  /** Throws once the job is aborted (shutdown, a lost lease, a newer job). */
  checkpoint(): void;
}
