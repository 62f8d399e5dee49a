import { git, zeroContextDiffArgs } from '../core/git.js';
import { parseUnifiedZeroDiff, type LineRange } from '../core/diff-hunks.js';
import { errorMessage } from '../core/errors.js';
import { earlierIds } from '../core/since-push.js';
import type { Report } from '../core/report.js';
import type { Logger } from '../core/trace.js';
import type { SlopgateConfig } from '../core/config-schema.js';
import { sincePushLine } from '../report/since-push-section.js';
import { reportOutcome } from './check-run-outcomes.js';
import { syncDecisionLabels } from './labels.js';
import { fitSection, renderBodySection, spliceBodySection, type QaState } from './pr-body.js';
import { postReview } from './post-review.js';
import { forHost, type PullRequestBody, type ReviewHost } from './review-host.js';

/** Added line ranges per head path, from the same merge-base → head diff the pipeline used. */
export async function addedLines(repoDir: string, mergeBase: string, head: string): Promise<Map<string, LineRange[]>> {
  const diff = await git(repoDir, zeroContextDiffArgs(mergeBase, head));
  const out = new Map<string, LineRange[]>();
  for (const f of parseUnifiedZeroDiff(diff)) if (f.newPath && f.added.length) out.set(f.newPath, f.added);
  return out;
}

/** Q&A state for the PR body: the phase's own section when it ran or crashed, else "not run". */
export function qaStateOf(report: Report): QaState {
  const qa = report.sections.qa;
  if (!qa) return { status: 'not-run', reason: 'the Q&A phase is not enabled for this repository' };
  if (qa.status === 'ran') return { status: 'ran', markdown: qa.markdown };
  return { status: qa.status, reason: qa.reason || 'no reason recorded' };
}

export interface PublishInput {
  pullNumber: number;
  checkRunId: number;
  checkRunUrl?: string;
  report: Report;
  config: SlopgateConfig;
  added: Map<string, LineRange[]>;
  labels: string[];
  refinerAvailable: boolean;
  resolveThreads: boolean;
  log: Logger;
}

export interface PublishResult {
  checkRunRequests: number;
  commentsPosted: number;
}

/**
 * Puts a report everywhere reviewers look, in this order: the check run, the PR description, review
 * comments (and the threads of fixed findings), labels. The check run goes first and must succeed (the
 * caller's safety net handles a failure); the description, comments and labels are best effort after it,
 * each logged on failure, so one of them failing never turns a finished verdict into an error. What the
 * host's credentials cannot do (its capabilities: a read-only token) is left out, not attempted.
 */
export async function publishReport(host: ReviewHost, input: PublishInput): Promise<PublishResult> {
  const { report, log } = input;
  const outcome = forHost(host, reportOutcome(report, input.refinerAvailable, input.checkRunUrl, host.kind));
  const checkRunRequests = await host.completeCheckRun(input.checkRunId, outcome);
  // The check run belongs to its commit; the description, comments, threads and labels belong to the
  // PR. Once the PR has moved on (a push landed while this run was publishing), they are left to the
  // run of its new head. The description's fresh read tells; without it, one read of the PR does.
  let moved = false;
  if (host.prBody) {
    try {
      moved = (await updatePrBody(host, host.prBody, input.pullNumber, report, input.checkRunUrl)) === 'moved';
    } catch (err) {
      log.warn({ err: errorMessage(err) }, 'PR body section not updated');
    }
  } else if (host.reviews || host.labels) {
    moved = await headMovedOn(host, input.pullNumber, report.head.sha, log);
  }
  if (moved) {
    log.info({ gated: report.head.sha.slice(0, 12) }, 'the PR moved on: only the check run of the gated commit is updated');
    return { checkRunRequests, commentsPosted: 0 };
  }
  const commentsPosted = host.reviews ? await commentOn(host, input) : 0;
  if (host.labels) {
    try {
      await syncDecisionLabels(host, input.pullNumber, input.labels, report.decision.outcome);
    } catch (err) {
      log.warn({ err: errorMessage(err) }, 'decision labels not updated');
    }
  }
  return { checkRunRequests, commentsPosted };
}

/** True when the PR's head is no longer the gated commit, or cannot be read (then nothing PR-wide is written). */
async function headMovedOn(host: ReviewHost, pullNumber: number, gated: string, log: Logger): Promise<boolean> {
  try {
    return (await host.pullRequest(pullNumber)).headSha !== gated;
  } catch (err) {
    log.warn({ err: errorMessage(err) }, 'could not read the PR head; comments are left alone');
    return true;
  }
}

/** The review comments of a report (best effort); returns how many were posted. */
async function commentOn(host: ReviewHost, input: PublishInput): Promise<number> {
  const { report, log } = input;
  try {
    const review = await postReview(host, {
      pullNumber: input.pullNumber,
      headSha: report.head.sha,
      findings: report.findings,
      earlierIds: earlierIds(report.sections.sincePush),
      added: input.added,
      ...(input.checkRunUrl ? { checkRunUrl: input.checkRunUrl } : {}),
      options: { budget: input.config.comments.budget, suggestions: input.config.comments.suggestions },
      resolveThreads: input.resolveThreads,
      log,
    });
    return review.posted;
  } catch (err) {
    log.warn({ err: errorMessage(err) }, 'review comments failed');
    return 0;
  }
}

/**
 * Rewrites slopgate's section of the PR description; reads the body right before writing it. A run of
 * a commit that is no longer the PR's head writes nothing (`moved`).
 */
export async function updatePrBody(
  host: ReviewHost,
  prBody: PullRequestBody,
  pullNumber: number,
  report: Report,
  checkRunUrl?: string,
): Promise<'written' | 'unchanged' | 'moved'> {
  const fresh = await host.pullRequest(pullNumber);
  if (fresh.headSha !== report.head.sha) return 'moved';
  const section = renderBodySection({
    decision: report.decision,
    headSha: report.head.sha,
    ...(checkRunUrl ? { checkRunUrl } : {}),
    ...(report.sections.sincePush ? { notes: [sincePushLine(report.sections.sincePush)] } : {}),
    qa: qaStateOf(report),
    rounds: host.kind === 'app',
  });
  const body = spliceBodySection(fresh.body, fitSection(fresh.body, section));
  if (body === (fresh.body ?? '')) return 'unchanged';
  await prBody.updatePullRequestBody(pullNumber, body);
  return 'written';
}
