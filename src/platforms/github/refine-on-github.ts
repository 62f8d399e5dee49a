import type { QueuedPrJob } from '../../host/queued-job.js';
import type { PrJobDeps } from '../../host/pr-job-deps.js';
import { refinePr, refineGatedHead, type RefineOutcome, type RefinePrDeps } from '../../host/refine-pr.js';
import type { ReviewHost } from '../../host/review-host.js';
import type { JsonModel } from '../../llm/port.js';
import type { Recipe } from '../../refiner/types.js';
import type { GitHubClient } from './check-run.js';

/** What the App's refiner needs on top of the gate job's deps. */
export interface RefinerDeps {
  /** The known fixes; they run without a model. */
  recipes?: readonly Recipe[];
  /** The model from SLOPGATE_LLM_* (absent: recipes only). */
  model?: JsonModel;
}

/** A gate job for a head the refiner pushed (the runtime's GateRequest, restated here to keep imports one-way). */
export interface RefinedHeadGate {
  installationId: number;
  owner: string;
  repo: string;
  number: number;
  headSha: string;
  trigger: 'pull_request';
  deliveryId: string;
  requestedBy?: string;
}

/** Where a refine on GitHub sends the new head: a gate job through the runtime's queue (a new check run). */
export type RequestGate = (gh: GitHubClient, req: RefinedHeadGate) => void;

/**
 * The refiner's deps for one installation: the new head is gated as a `pull_request` job, so the round
 * advances as for any push. GitHub also sends `synchronize` for the App's own push; that job gates the
 * same head and supersedes this one, which is harmless (one verdict per head wins).
 */
export function refineDepsFor(
  deps: PrJobDeps & RefinerDeps,
  gh: GitHubClient,
  requestGate: RequestGate,
  where: { installationId: number; deliveryId: string; requestedBy?: string },
): RefinePrDeps {
  return {
    ...deps,
    recipes: deps.recipes ?? [],
    model: deps.model,
    regate: async (host: ReviewHost, number: number, headSha: string) =>
      requestGate(gh, {
        installationId: where.installationId,
        owner: host.target.owner,
        repo: host.target.repo,
        number,
        headSha,
        trigger: 'pull_request',
        deliveryId: `${where.deliveryId}:refined`,
        ...(where.requestedBy ? { requestedBy: where.requestedBy } : {}),
      }),
  };
}

/** `/slopgate refine` or the Refine button, after the permission check: one refine round, landed on GitHub. */
export function refineOnGitHub(
  deps: PrJobDeps & RefinerDeps,
  gh: GitHubClient,
  requestGate: RequestGate,
  host: ReviewHost,
  origin: { installationId: number; number: number; deliveryId: string; sender: string },
): Promise<RefineOutcome> {
  const refineDeps = refineDepsFor(deps, gh, requestGate, { ...origin, requestedBy: origin.sender });
  return refinePr(host, { number: origin.number, trigger: 'command', requestedBy: origin.sender }, refineDeps);
}

/** The gate job's `autoRefine` hook (`refiner.auto`) for one job. */
export function autoRefineFor(
  deps: PrJobDeps & RefinerDeps,
  gh: GitHubClient,
  requestGate: RequestGate,
  job: QueuedPrJob,
): PrJobDeps['autoRefine'] {
  const refineDeps = refineDepsFor(deps, gh, requestGate, { installationId: job.installationId, deliveryId: job.deliveryId });
  return (host, head) => refineGatedHead(host, head, refineDeps);
}
