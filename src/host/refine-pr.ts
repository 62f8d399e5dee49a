import { ConfigError } from '../config/load.js';
import type { SlopgateConfig } from '../core/config-schema.js';
import { errorMessage } from '../core/errors.js';
import { gitMaybe } from '../core/git.js';
import type { Report } from '../core/report.js';
import type { Logger } from '../core/trace.js';
import { runGate } from '../gate/run-gate.js';
import type { JsonModel } from '../llm/port.js';
import { refine, type RefineResult } from '../refiner/refine.js';
import type { FileContent, Recipe } from '../refiner/types.js';
import { breakComments, codeSpan, escapeInline } from '../report/markdown-escape.js';
import type { PrRevisions } from '../workspace/pr-workspace.js';
import { skipReasonFor } from './pr-job.js';
import type { PrJobDeps } from './pr-job-deps.js';
import {
  fixedFindings,
  nothingKeptComment,
  pushedComment,
  refineCommitMessage,
  REFINE_MARKER,
  suggestionsBody,
} from './refine-messages.js';
import { deriveSuggestions } from './refine-suggestions.js';
import { preparePr, prGateOptions, prServices, sanctionsOf } from './prepare-pr.js';
import { loadRepoConfig } from './repo-config.js';
import type { PullRequestFacts, PushCommitInput, ReviewHost } from './review-host.js';

/** What landing a refine needs besides the gate's deps: the fixes to try and where the new head is gated. */
export interface RefinePrDeps extends PrJobDeps {
  /** The recipe registry (known fixes; they run without a model). */
  recipes: readonly Recipe[];
  /** The model for full-file patches; without one only the recipes run. */
  model?: JsonModel | undefined;
  /** Gates a head the refiner pushed (the App queues a job for it; tests may run the job policy directly). */
  regate(host: ReviewHost, number: number, headSha: string): Promise<void>;
}

/** How a refine request ended. */
export type RefineOutcome = 'pushed' | 'suggested' | 'nothing-kept' | 'declined' | 'failed';

export interface RefineRequest {
  number: number;
  /** `command` (a comment or the Refine button) or `auto` (`refiner.auto` after a REFINE decision). */
  trigger: 'command' | 'auto';
  requestedBy?: string;
}

/** A gated head ready to refine: the facts, the default branch's config, the report and the mirror. */
export interface GatedHead {
  pr: PullRequestFacts;
  config: SlopgateConfig;
  /** The gate's report on `pr.headSha` (raw, not neutralised: the refiner compares findings by their text). */
  report: Report;
  revisions: Pick<PrRevisions, 'mirrorDir' | 'mergeBase' | 'baseSha' | 'mergeSha' | 'headSha' | 'checkout'>;
  trigger: RefineRequest['trigger'];
}

/** The decisions a refine can help: blocking findings the refiner's bucket owns, not a STUCK or SKIPPED run. */
function declineReason(report: Report): string | undefined {
  const d = report.decision;
  if (d.outcome === 'STUCK')
    return `the decision on this head is STUCK (${d.reason}); a human takes it from here, or \`/slopgate reset\` starts the rounds over`;
  if (d.outcome === 'SKIPPED') return 'this head was not gated (skipped)';
  if (d.blocking === 0) return 'nothing blocks on this head, so there is nothing to refine';
  return undefined;
}

/**
 * Where a kept patch goes: one commit on the PR's branch when the repository's config allows it
 * (`refiner.push`), the host can push, and the branch lives in this repository; otherwise a review of
 * suggestions. Fork branches are never pushed to: the installation's credentials are scoped to the base
 * repository, whatever `maintainer_can_modify` says.
 */
export function landingOf(host: ReviewHost, pr: PullRequestFacts, config: SlopgateConfig): { push: true } | { push: false; why: string } {
  const sameRepo = !pr.isFork && pr.headRepoFullName === `${host.target.owner}/${host.target.repo}`;
  if (!config.refiner.push) return { push: false, why: 'This repository does not let slopgate push (`refiner.push` is off).' };
  if (!host.push) return { push: false, why: 'This slopgate installation cannot push commits.' };
  if (!sameRepo) return { push: false, why: 'The branch of this pull request lives in a fork, which slopgate does not push to.' };
  if (pr.headRef === pr.defaultBranch)
    return { push: false, why: "The pull request's branch is the default branch, which slopgate never pushes to." };
  return { push: true };
}

/** The files of a patch, each marked executable when it is an executable file at the head (its mode is kept). */
async function withModes(repoDir: string, head: string, files: readonly FileContent[]): Promise<PushCommitInput['files']> {
  const out: PushCommitInput['files'] = [];
  for (const f of files) {
    const entry = await gitMaybe(repoDir, ['ls-tree', head, '--', f.path]);
    out.push(entry?.startsWith('100755 ') ? { ...f, executable: true } : { ...f });
  }
  return out;
}

/** The newest stored report of exactly this base and head, if the store has one. */
async function storedReport(deps: PrJobDeps, repo: string, number: number, baseSha: string, headSha: string): Promise<Report | undefined> {
  if (!deps.store) return undefined;
  const runs = await deps.store.listRuns(repo, number, 20).catch(() => []);
  return runs.find((r) => r.report && r.headSha === headSha && r.baseSha === baseSha && r.status === 'completed')?.report ?? undefined;
}

/** Posts a refine comment: its text may quote PR content, so comment delimiters are neutralised; only the marker is ours. */
async function say(host: ReviewHost, number: number, body: string, log: Logger): Promise<void> {
  if (!host.conversation) return;
  await host.conversation
    .postComment(number, `${breakComments(body)}\n\n${REFINE_MARKER}`)
    .catch((err: unknown) => log.warn({ err: errorMessage(err) }, 'refine comment not posted'));
}

/**
 * `/slopgate refine` or the Refine button: one refine round on the PR's current head. Fresh PR facts,
 * config from the default branch, the gate's stored report for that head (the gate runs first when
 * there is none), then {@link refineGatedHead}. Problems are told on the PR, never thrown.
 */
export async function refinePr(host: ReviewHost, req: RefineRequest, deps: RefinePrDeps): Promise<RefineOutcome> {
  const log = deps.log.child({ refine: `${host.target.owner}/${host.target.repo}#${req.number}`, trigger: req.trigger });
  let revisions: PrRevisions | null = null;
  try {
    const pr = await host.pullRequest(req.number);
    let config: SlopgateConfig;
    try {
      config = (await loadRepoConfig(host, pr.defaultBranch)).config;
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      await say(
        host,
        req.number,
        `slopgate refine: the config on the default branch is broken (${escapeInline(err.message)}); nothing was refined.`,
        log,
      );
      return 'declined';
    }
    const skip = skipReasonFor(pr, config);
    if (skip) {
      await say(host, req.number, `slopgate refine: nothing was refined: ${escapeInline(skip)}.`, log);
      return 'declined';
    }
    revisions = await preparePr(host, pr, pr.headSha, deps);
    const fullName = `${host.target.owner}/${host.target.repo}`;
    const report =
      (await storedReport(deps, fullName, req.number, revisions.baseSha, revisions.headSha)) ??
      (await gateHead(host, pr, config, revisions, deps, log));
    return await refineGatedHead(host, { pr, config, report, revisions, trigger: req.trigger }, deps);
  } catch (err) {
    log.error({ err: errorMessage(err) }, 'refine failed');
    await say(
      host,
      req.number,
      `slopgate refine failed on slopgate's side (${escapeInline(errorMessage(err).slice(0, 300))}); nothing was pushed or suggested.`,
      log,
    );
    return 'failed';
  } finally {
    await revisions?.cleanup().catch(() => undefined);
  }
}

/** The gate on the head when the store has no report for it (no store, or the run was not kept). */
async function gateHead(
  host: ReviewHost,
  pr: PullRequestFacts,
  config: SlopgateConfig,
  revisions: PrRevisions,
  deps: PrJobDeps,
  log: Logger,
): Promise<Report> {
  // The PR's dismissals count as in its gate job; the Q&A phase is left out (the refiner works on guard findings).
  return (deps.gate ?? runGate)(await prGateOptions(host, pr, config, revisions, deps, log));
}

/**
 * One refine round on a gated head, landed through the host: the refiner (recipes, then the model)
 * keeps only candidates that strictly improve the refiner phase of the gate; a kept patch becomes one
 * commit on the PR's branch (never the default branch, never forced, on top of exactly the gated head)
 * and the new head is gated, or one review of suggestions. Every attempt is stored with the PR and
 * its round. Used by {@link refinePr} and by `refiner.auto` right after a report.
 */
export async function refineGatedHead(host: ReviewHost, head: GatedHead, deps: RefinePrDeps): Promise<RefineOutcome> {
  const { pr, config, report, revisions } = head;
  const log = deps.log.child({ refine: `${host.target.owner}/${host.target.repo}#${pr.number}`, head: pr.headSha.slice(0, 12) });
  const declined = declineReason(report);
  if (declined) {
    if (head.trigger === 'command') await say(host, pr.number, `slopgate refine: ${declined}.`, log);
    return 'declined';
  }
  const fullName = `${host.target.owner}/${host.target.repo}`;
  const round = report.decision.round;
  const store = deps.store;
  if (head.trigger === 'auto' && store) {
    // Once per head: a recheck of an already refined head does not refine it again.
    const earlier = await store.listRefineAttempts(fullName, pr.number).catch(() => []);
    if (earlier.some((a) => a.headSha === pr.headSha)) return 'declined';
  }
  const result: RefineResult = await refine({
    repoDir: revisions.mirrorDir,
    base: revisions.baseSha,
    head: pr.headSha,
    report,
    config,
    guards: deps.guards,
    recipes: deps.recipes,
    ...(deps.model ? { model: deps.model } : {}),
    services: prServices(host, deps, pr, revisions),
    sanctions: (await sanctionsOf(host, pr, { ...revisions, headSha: pr.headSha, cleanup: async () => undefined }, deps)).globs,
    log,
    ...(store
      ? {
          onAttempt: (a) =>
            store.recordRefineAttempt({ repo: fullName, pr: pr.number, round, headSha: pr.headSha }, a).catch((err: unknown) => {
              log.warn({ err: errorMessage(err) }, 'refine attempt not stored');
            }),
        }
      : {}),
  });
  log.info({ attempts: result.attempts.length, kept: result.candidateSha !== null, fixed: result.fixed.length }, 'refine round done');
  if (!result.candidateSha || result.files.length === 0) {
    await say(host, pr.number, nothingKeptComment(result, pr.headSha), log);
    return 'nothing-kept';
  }
  const fixed = fixedFindings(report, result);
  const landing = landingOf(host, pr, config);
  const push = landing.push ? host.push : undefined;
  if (push) {
    const fresh = await host.pullRequest(pr.number);
    if (fresh.headSha !== pr.headSha) {
      await say(
        host,
        pr.number,
        `slopgate refine: the branch moved on to \`${fresh.headSha.slice(0, 7)}\` while the refiner worked on \`${pr.headSha.slice(0, 7)}\`; nothing was pushed. Ask again on the new head.`,
        log,
      );
      return 'declined';
    }
    let sha: string;
    try {
      const files = await withModes(revisions.mirrorDir, pr.headSha, result.files);
      sha = await push.pushCommit({ branch: pr.headRef, parentSha: pr.headSha, files, message: refineCommitMessage(result, fixed, round) });
    } catch (err) {
      log.warn({ err: errorMessage(err) }, 'refine push refused');
      const why = escapeInline(errorMessage(err).slice(0, 300));
      await say(
        host,
        pr.number,
        `slopgate refine: the commit could not be pushed to ${codeSpan(pr.headRef)} (${why}); nothing was changed. The branch may have moved on: ask again.`,
        log,
      );
      return 'failed';
    }
    await say(host, pr.number, pushedComment(sha, pr.headRef, fixed, result.model), log);
    await deps.regate(host, pr.number, sha);
    return 'pushed';
  }
  const derived = await deriveSuggestions(
    revisions.mirrorDir,
    { mergeBase: revisions.mergeBase, head: pr.headSha, candidate: result.candidateSha },
    result.files.map((f) => f.path),
    (path) => breakComments(`slopgate refine: a fix in ${codeSpan(path)} that passed the refiner's guards.`),
  );
  const body = suggestionsBody({
    why: landing.push ? 'This slopgate installation cannot push commits.' : landing.why,
    fixed,
    diff: result.diff,
    leftOver: derived.leftOver,
    suggested: derived.suggestions.length,
    model: result.model,
  });
  if (!host.reviews) {
    log.warn('refine: the host takes neither pushes nor suggestions; nothing was landed');
    return 'declined';
  }
  await host.reviews.postSuggestions(pr.number, {
    commitSha: pr.headSha,
    body: `${breakComments(body)}\n\n${REFINE_MARKER}`,
    suggestions: derived.suggestions,
  });
  return 'suggested';
}
