import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SlopgateConfig } from '../core/config-schema.js';
import type { Guard, GuardServices } from '../core/guard.js';
import type { Logger } from '../core/trace.js';
import type { GateOptions } from '../gate/run-gate.js';
import { storeServices } from '../store/services.js';
import type { Store } from '../store/store.js';
import { preparePrRevisions, type PrRevisions } from '../workspace/pr-workspace.js';
import type { RepoMirrors } from '../workspace/repo-mirror.js';
import { priorDismissals } from './prior-dismissals.js';
import type { PullRequestFacts, ReviewHost } from './review-host.js';
import { prSanctions } from './sanctions.js';

/** What gating one PR head needs, shared by the gate job (pr-job.ts) and the refiner (refine-pr.ts). */
export interface PrGateDeps {
  mirrors: RepoMirrors;
  /** Where per-job snapshots go (default: the OS temp dir). */
  scratchRoot?: string;
  /** Build caches of the test sandbox, per repository. */
  cacheDir?: string;
  guards: Guard[];
  store?: Store;
  /** Key of the `/slopgate allow` marker MAC (see sanctions.ts). */
  sanctionKey: Buffer;
  /** The refiner is offered (the Refine button and `/slopgate refine`): recipes alone are enough, a model is optional. */
  refinerAvailable: boolean;
}

export function repoName(host: ReviewHost): string {
  return `${host.target.owner}/${host.target.repo}`;
}

/** Fetches base and `headSha` of the PR into the mirror (G8 checks revisions out of it in its own sandbox). */
export async function preparePr(host: ReviewHost, pr: PullRequestFacts, headSha: string, deps: PrGateDeps): Promise<PrRevisions> {
  const creds = await host.cloneCredentials();
  return preparePrRevisions(deps.mirrors, {
    repo: host.target,
    number: pr.number,
    baseRef: pr.baseRef,
    baseSha: pr.baseSha,
    headSha,
    withMerge: pr.mergeable === true,
    // Every blob the guards need is local once the mirror has fetched; no per-job snapshot.
    snapshots: false,
    ...(creds.token ? { creds: { token: creds.token } } : {}),
    scratchRoot: deps.scratchRoot ?? join(tmpdir(), 'slopgate-jobs'),
  });
}

/** The guard services of one PR run: test-run options, and the store's history, baselines and run identity. */
export function prServices(
  host: ReviewHost,
  deps: PrGateDeps,
  pr: Pick<PullRequestFacts, 'number' | 'author'>,
  revisions: Pick<PrRevisions, 'mergeSha'>,
): GuardServices {
  const repo = repoName(host);
  const run = { repo, pr: pr.number, ...(pr.author ? { author: pr.author } : {}) };
  return {
    tests: { repo, ...(revisions.mergeSha ? { mergeRef: revisions.mergeSha } : {}), ...(deps.cacheDir ? { cacheDir: deps.cacheDir } : {}) },
    ...(deps.store ? storeServices(deps.store, run) : { run }),
  };
}

/**
 * Everything the pipeline takes for one PR head except the optional LLM stages: sanctions (labels and
 * signed `/slopgate allow` markers), the PR's round, its stored dismissals and the services.
 */
export async function prGateOptions(
  host: ReviewHost,
  pr: PullRequestFacts,
  config: SlopgateConfig,
  revisions: PrRevisions,
  deps: PrGateDeps,
  log: Logger,
): Promise<GateOptions> {
  const repo = repoName(host);
  // Each sanction holds for the content it approved: bound to the blobs at this head.
  const sanctions = await prSanctions(host, pr, deps.sanctionKey, revisions.mirrorDir, revisions.headSha);
  const round = deps.store ? (await deps.store.getRound(repo, pr.number)).round : 1;
  const prior = await priorDismissals(deps.store, repo, pr.number, log);
  return {
    repoDir: revisions.mirrorDir,
    base: revisions.baseSha,
    head: revisions.headSha,
    repoName: repo,
    config,
    guards: deps.guards,
    sanctions: sanctions.globs,
    ...(sanctions.notes.length ? { sanctionNotes: sanctions.notes } : {}),
    round,
    decide: { refinerEnabled: deps.refinerAvailable, autoRefine: config.refiner.auto },
    dismissals: { prior, ...(pr.author ? { author: pr.author } : {}) },
    services: prServices(host, deps, pr, revisions),
    log,
  };
}
