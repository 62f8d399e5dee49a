import type { SlopgateConfig } from '../core/config-schema.js';
import type { Guard, GuardServices } from '../core/guard.js';
import type { TestRunOptions } from '../core/ports.js';
import type { Logger } from '../core/trace.js';
import type { GateOptions } from '../gate/run-gate.js';
import { storeServices } from '../store/services.js';
import type { Store } from '../store/store.js';
import type { PrRevisions } from '../workspace/pr-workspace.js';
import type { ChangeWorkspace } from '../workspace/workspace-port.js';
import { priorDismissals } from './prior-dismissals.js';
import type { PullRequestFacts, ReviewHost } from './review-host.js';
import { prSanctions, type BoundSanctions } from './sanctions.js';

/** What gating one PR head needs, shared by the gate job (pr-job.ts) and the refiner (refine-pr.ts). */
export interface PrGateDeps {
  /** Where the base and head trees come from: the App's mirrors, the Action's checkout. */
  workspace: ChangeWorkspace;
  /** Build caches of the test sandbox, per repository. */
  cacheDir?: string;
  guards: Guard[];
  store?: Store;
  /**
   * Key of the `/slopgate allow` marker MAC (see sanctions.ts). Without it (and without `sanctions`)
   * nothing is sanctioned: a host that cannot keep a secret cannot verify a grant.
   */
  sanctionKey?: Buffer;
  /** The sanctions of a PR head, when the host has its own way (the Action's label); default: signed markers. */
  sanctions?(host: ReviewHost, pr: PullRequestFacts, revisions: PrRevisions): Promise<BoundSanctions>;
  /** The refiner is offered (the Refine button and `/slopgate refine`): recipes alone are enough, a model is optional. */
  refinerAvailable: boolean;
  /** G8's run options beyond the defaults (the Action's `tests: false` input). */
  testRun?: TestRunOptions;
}

/** The sanctions of the PR at the revisions' head: the host's own rule, else the signed markers, else none. */
export async function sanctionsOf(
  host: ReviewHost,
  pr: PullRequestFacts,
  revisions: PrRevisions,
  deps: PrGateDeps,
): Promise<BoundSanctions> {
  if (deps.sanctions) return deps.sanctions(host, pr, revisions);
  if (!deps.sanctionKey) return { globs: [], notes: [] };
  return prSanctions(host, pr, deps.sanctionKey, revisions.mirrorDir, revisions.headSha);
}

export function repoName(host: ReviewHost): string {
  return `${host.target.owner}/${host.target.repo}`;
}

/**
 * Brings base and `headSha` of the PR into the workspace (G8 checks revisions out of it in its own
 * sandbox). `queue`: the head is a merge queue's commit on that branch, gated against `pr.baseSha`.
 */
export async function preparePr(
  host: ReviewHost,
  pr: PullRequestFacts,
  headSha: string,
  deps: PrGateDeps,
  queue?: { headRef: string },
): Promise<PrRevisions> {
  const creds = await host.cloneCredentials();
  return deps.workspace.prepare({
    repo: host.target,
    number: pr.number,
    baseRef: pr.baseRef,
    baseSha: pr.baseSha,
    headSha,
    ...(queue ? { headRef: queue.headRef } : {}),
    withMerge: !queue && pr.mergeable === true,
    ...(creds.token ? { creds: { username: creds.username ?? '', token: creds.token } } : {}),
  });
}

/** The guard services of one PR run: test-run options, and the store's history, baselines and run identity. */
export function prServices(
  host: ReviewHost,
  deps: PrGateDeps,
  pr: Pick<PullRequestFacts, 'number' | 'author'>,
  revisions: Pick<PrRevisions, 'mergeSha' | 'checkout'>,
): GuardServices {
  const repo = repoName(host);
  const run = { repo, pr: pr.number, ...(pr.author ? { author: pr.author } : {}) };
  return {
    tests: {
      repo,
      ...(revisions.mergeSha ? { mergeRef: revisions.mergeSha } : {}),
      ...(deps.cacheDir ? { cacheDir: deps.cacheDir } : {}),
      ...(revisions.checkout ? { prepared: { workspace: revisions.checkout } } : {}),
      ...deps.testRun,
    },
    ...(deps.store ? storeServices(deps.store, run) : { run }),
    host: host.kind,
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
  const sanctions = await sanctionsOf(host, pr, revisions, deps);
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
