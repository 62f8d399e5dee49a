import { gatePr, type GatePrDeps, type JobResult } from '../../host/pr-job.js';
import type { GateJob } from '../../host/queued-job.js';
import type { GitHubClient } from './check-run.js';
import { GitHubReviewHost } from './github-review-host.js';
import { autoRefineFor, type RefinerDeps, type RequestGate } from './refine-on-github.js';

export interface JobDeps extends GatePrDeps, RefinerDeps {
  /** An Octokit authenticated as the installation (re-minted tokens, never persisted). */
  octokitFor(installationId: number): Promise<GitHubClient>;
  /** The App's id: its own comments (sanction markers) are the ones it made. */
  appId: number;
  /** Queues a gate job (set by the runtime): where a refine's new head goes. */
  requestGate?: RequestGate;
}

/** The host of one job: its installation's Octokit, bound to the job's repository. */
export async function hostFor(deps: JobDeps, job: GateJob): Promise<GitHubReviewHost> {
  return new GitHubReviewHost(await deps.octokitFor(job.installationId), { owner: job.owner, repo: job.repo }, deps.appId);
}

/**
 * Runs one gate job on GitHub: the job policy (host/pr-job.ts) over the installation's Octokit.
 * Without an installation token nothing can be reported, so that failure is thrown: the queue retries
 * the job or closes it out as abandoned, which completes the check run once GitHub answers again.
 */
export async function runGateJob(job: GateJob, deps: JobDeps, signal?: AbortSignal): Promise<JobResult> {
  const gh = await deps.octokitFor(job.installationId);
  const host = new GitHubReviewHost(gh, { owner: job.owner, repo: job.repo }, deps.appId);
  const autoRefine = deps.requestGate && autoRefineFor(deps, gh, deps.requestGate, job);
  return gatePr(host, job, autoRefine ? { ...deps, autoRefine } : deps, signal);
}
