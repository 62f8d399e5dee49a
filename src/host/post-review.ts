import type { LineRange } from '../core/diff-hunks.js';
import type { Finding } from '../core/finding.js';
import type { Logger } from '../core/trace.js';
import { errorMessage } from '../core/errors.js';
import type { ReviewHost } from './review-host.js';
import { findingIdOf, planReview, type PlanOptions, type PostedComment, type ReviewPlan } from './review-plan.js';

export interface PostReviewInput {
  pullNumber: number;
  headSha: string;
  findings: Finding[];
  /** Ids a still-open finding had at earlier heads → its id now (its comment carries the old one). */
  earlierIds?: ReadonlyMap<string, string>;
  added: Map<string, LineRange[]>;
  checkRunUrl?: string;
  options: PlanOptions;
  /** Resolve the threads of fixed findings where the host can (its `threads` capability), instead of minimising the comments. */
  resolveThreads: boolean;
  log: Logger;
}

export interface PostReviewResult {
  plan: ReviewPlan;
  posted: number;
  cleaned: number;
}

/** Earlier slopgate comments on the PR (found by their hidden marker, written by a bot). */
export async function listPostedComments(host: ReviewHost, pullNumber: number): Promise<PostedComment[]> {
  if (!host.reviews) return [];
  const all = await host.reviews.listReviewComments(pullNumber);
  const repliedByHuman = new Set<number>();
  for (const c of all) {
    if (c.inReplyTo && !c.authorIsBot) repliedByHuman.add(c.inReplyTo);
  }
  const posted: PostedComment[] = [];
  for (const c of all) {
    const findingId = findingIdOf(c.body);
    if (!findingId || c.inReplyTo || !c.authorIsBot) continue;
    posted.push({ id: c.id, handle: c.handle, findingId, path: c.path, line: c.line, humanReplied: repliedByHuman.has(c.id) });
  }
  return posted;
}

function reviewBody(plan: ReviewPlan, budget: number, checkRunUrl?: string): string {
  const where = checkRunUrl ? `[the check run](${checkRunUrl})` : 'the slopgate check run';
  const lines = [
    `slopgate left ${plan.comments.length} comment${plan.comments.length === 1 ? '' : 's'} on lines this PR added. Every finding, including those elsewhere, is in ${where}.`,
  ];
  if (plan.overBudget.length) {
    lines.push(
      `${plan.overBudget.length} more finding${plan.overBudget.length === 1 ? '' : 's'} on changed lines ${plan.overBudget.length === 1 ? 'is' : 'are'} only in ${where} (comment budget: ${budget} per run).`,
    );
  }
  return lines.join('\n\n');
}

/**
 * One review per run (event COMMENT) with the planned comments, then hides or resolves comments of
 * findings that are gone. Errors are logged, never thrown: the check run already carries everything.
 */
export async function postReview(host: ReviewHost, input: PostReviewInput): Promise<PostReviewResult> {
  const { pullNumber, log } = input;
  const reviews = host.reviews;
  const posted = await listPostedComments(host, pullNumber);
  // A dismissed finding is listed as such in the check run; it gets no line comment, and an earlier
  // comment of it is hidden like one of a fixed finding.
  const open = input.findings.filter((f) => !f.dismissed);
  const plan = planReview(open, input.added, posted, input.options, input.earlierIds);
  let count = 0;
  if (plan.comments.length && reviews) {
    try {
      const body = reviewBody(plan, input.options.budget, input.checkRunUrl);
      await reviews.createReview(pullNumber, { commitSha: input.headSha, body, comments: plan.comments });
      count = plan.comments.length;
    } catch (err) {
      log.warn({ err: errorMessage(err), comments: plan.comments.length }, 'review not posted; findings stay in the check run');
    }
  }
  let cleaned = 0;
  // Resolving the threads where the host can and the operator allows, else minimising the comments;
  // without either, comments of fixed findings stay (they are outdated on their lines anyway).
  const threads = input.resolveThreads ? host.threads : undefined;
  const { minimise } = host;
  if (plan.stale.length) {
    try {
      if (threads) cleaned = await threads.resolveThreads(pullNumber, plan.stale);
      else if (minimise) cleaned = await minimise.hideStaleComments(pullNumber, plan.stale);
    } catch (err) {
      log.warn({ err: errorMessage(err), stale: plan.stale.length }, 'could not hide comments of fixed findings');
    }
  }
  return { plan, posted: count, cleaned };
}
