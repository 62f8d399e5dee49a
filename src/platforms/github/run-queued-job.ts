import { runPrJob } from '../../host/pr-job.js';
import type { JobRun, PrJobDeps } from '../../host/pr-job-deps.js';
import type { QueuedPrJob } from '../../host/queued-job.js';
import type { RepoMirrors } from '../../workspace/repo-mirror.js';
import type { GitHubClient } from './check-run.js';
import { GitHubReviewHost } from './github-review-host.js';
import { autoRefineFor, type RefinerDeps, type RequestGate } from './refine-on-github.js';

export interface JobDeps extends PrJobDeps<QueuedPrJob>, RefinerDeps {
  /** An Octokit authenticated as the installation (re-minted tokens, never persisted). */
  octokitFor(installationId: number): Promise<GitHubClient>;
  /** The App's id: its own comments (sanction markers) are the ones it made. */
  appId: number;
  /** Queues a gate job (set by the runtime): where a refine's new head goes. */
  requestGate?: RequestGate;
  /** The mirrors behind `workspace` (removed when the App is uninstalled from a repository). */
  mirrors: RepoMirrors;
  /** The App signs its `/slopgate allow` markers: the key is required here. */
  sanctionKey: Buffer;
}

/** The host of one job: its installation's Octokit, bound to the job's repository. */
export async function hostFor(deps: JobDeps, job: QueuedPrJob): Promise<GitHubReviewHost> {
  return new GitHubReviewHost(await deps.octokitFor(job.installationId), { owner: job.owner, repo: job.repo }, deps.appId);
}

/**
 * Runs one queued PR job on GitHub: the job policy (host/pr-job.ts) over the installation's Octokit.
 * Without an installation token nothing can be reported, so that failure is thrown: the queue retries
 * the job or closes it out as abandoned, which completes the check run once GitHub answers again.
 */
export async function runQueuedJob(job: QueuedPrJob, deps: JobDeps, signal?: AbortSignal): Promise<JobRun> {
  const gh = await deps.octokitFor(job.installationId);
  const host = new GitHubReviewHost(gh, { owner: job.owner, repo: job.repo }, deps.appId);
  const autoRefine = deps.requestGate && autoRefineFor(deps, gh, deps.requestGate, job);
  return runPrJob(host, job, autoRefine ? { ...deps, autoRefine } : deps, signal);
}
