import type { LineRange } from '../core/diff-hunks.js';
import type { Finding } from '../core/finding.js';
import type { Logger } from '../core/trace.js';
import { errorMessage } from '../core/errors.js';
import type { GitHubClient, RepoTarget } from './check-run.js';
import { findingIdOf, planReview, type PlanOptions, type PostedComment, type ReviewPlan } from './review-plan.js';

export interface PostReviewInput {
  target: RepoTarget;
  pullNumber: number;
  headSha: string;
  findings: Finding[];
  added: Map<string, LineRange[]>;
  checkRunUrl?: string;
  options: PlanOptions;
  /** Resolve stale threads (needs contents: write) instead of minimising the comments. */
  resolveThreads: boolean;
  log: Logger;
}

export interface PostReviewResult {
  plan: ReviewPlan;
  posted: number;
  cleaned: number;
}

/** Earlier slopgate comments on the PR (found by their hidden marker, written by a bot). */
export async function listPostedComments(gh: GitHubClient, target: RepoTarget, pullNumber: number): Promise<PostedComment[]> {
  const all = await gh.paginate(gh.rest.pulls.listReviewComments, { ...target, pull_number: pullNumber, per_page: 100 });
  const repliedByHuman = new Set<number>();
  for (const c of all) {
    if (c.in_reply_to_id && c.user?.type !== 'Bot') repliedByHuman.add(c.in_reply_to_id);
  }
  const posted: PostedComment[] = [];
  for (const c of all) {
    const findingId = findingIdOf(c.body);
    if (!findingId || c.in_reply_to_id || c.user?.type !== 'Bot') continue;
    posted.push({ id: c.id, nodeId: c.node_id, findingId, path: c.path, line: c.line ?? null, humanReplied: repliedByHuman.has(c.id) });
  }
  return posted;
}

function reviewBody(plan: ReviewPlan, budget: number, checkRunUrl?: string): string {
  const where = checkRunUrl ? `[the check run](${checkRunUrl})` : 'the slopgate check run';
  const lines = [`slopgate left ${plan.comments.length} comment${plan.comments.length === 1 ? '' : 's'} on lines this PR added. Every finding, including those elsewhere, is in ${where}.`];
  if (plan.overBudget.length) {
    lines.push(`${plan.overBudget.length} more finding${plan.overBudget.length === 1 ? '' : 's'} on changed lines ${plan.overBudget.length === 1 ? 'is' : 'are'} only in ${where} (comment budget: ${budget} per run).`);
  }
  return lines.join('\n\n');
}

/**
 * One review per run (event COMMENT) with the planned comments, then hides or resolves comments of
 * findings that are gone. Errors are logged, never thrown: the check run already carries everything.
 */
export async function postReview(gh: GitHubClient, input: PostReviewInput): Promise<PostReviewResult> {
  const { target, pullNumber, log } = input;
  const posted = await listPostedComments(gh, target, pullNumber);
  const plan = planReview(input.findings, input.added, posted, input.options);
  let count = 0;
  if (plan.comments.length) {
    try {
      await gh.rest.pulls.createReview({
        ...target,
        pull_number: pullNumber,
        commit_id: input.headSha,
        event: 'COMMENT',
        body: reviewBody(plan, input.options.budget, input.checkRunUrl),
        comments: plan.comments,
      });
      count = plan.comments.length;
    } catch (err) {
      log.warn({ err: errorMessage(err), comments: plan.comments.length }, 'review not posted; findings stay in the check run');
    }
  }
  let cleaned = 0;
  if (plan.stale.length) {
    try {
      cleaned = input.resolveThreads ? await resolveThreads(gh, target, pullNumber, plan.stale) : await minimiseComments(gh, plan.stale);
    } catch (err) {
      log.warn({ err: errorMessage(err), stale: plan.stale.length }, 'could not hide comments of fixed findings');
    }
  }
  return { plan, posted: count, cleaned };
}

/** Minimises (as OUTDATED) the stale comments that are not minimised yet; one query, one mutation. */
export async function minimiseComments(gh: GitHubClient, stale: PostedComment[]): Promise<number> {
  const ids = stale.map((s) => s.nodeId);
  const state = await gh.graphql<{ nodes: ({ id: string; isMinimized: boolean } | null)[] }>(
    'query($ids: [ID!]!) { nodes(ids: $ids) { ... on PullRequestReviewComment { id isMinimized } } }',
    { ids },
  );
  const todo = state.nodes.filter((n): n is { id: string; isMinimized: boolean } => Boolean(n?.id) && !n!.isMinimized).map((n) => n.id);
  if (!todo.length) return 0;
  const fields = todo.map((_, i) => `m${i}: minimizeComment(input: { subjectId: $id${i}, classifier: OUTDATED }) { minimizedComment { isMinimized } }`);
  const vars = Object.fromEntries(todo.map((id, i) => [`id${i}`, id]));
  await gh.graphql(`mutation(${todo.map((_, i) => `$id${i}: ID!`).join(', ')}) { ${fields.join(' ')} }`, vars);
  return todo.length;
}

/** Resolves the review threads started by stale comments; falls back to minimising when not allowed. */
export async function resolveThreads(gh: GitHubClient, target: RepoTarget, pullNumber: number, stale: PostedComment[]): Promise<number> {
  type Threads = { repository: { pullRequest: { reviewThreads: { nodes: { id: string; isResolved: boolean; comments: { nodes: { databaseId: number }[] } }[] } } } };
  const res = await gh.graphql<Threads>(
    'query($owner: String!, $repo: String!, $n: Int!) { repository(owner: $owner, name: $repo) { pullRequest(number: $n) { reviewThreads(first: 100) { nodes { id isResolved comments(first: 1) { nodes { databaseId } } } } } } }',
    { owner: target.owner, repo: target.repo, n: pullNumber },
  );
  const wanted = new Set(stale.map((s) => s.id));
  const threads = res.repository.pullRequest.reviewThreads.nodes.filter((t) => !t.isResolved && wanted.has(t.comments.nodes[0]?.databaseId ?? -1));
  if (!threads.length) return 0;
  const fields = threads.map((_, i) => `r${i}: resolveReviewThread(input: { threadId: $t${i} }) { thread { isResolved } }`);
  const vars = Object.fromEntries(threads.map((t, i) => [`t${i}`, t.id]));
  try {
    await gh.graphql(`mutation(${threads.map((_, i) => `$t${i}: ID!`).join(', ')}) { ${fields.join(' ')} }`, vars);
    return threads.length;
  } catch {
    return minimiseComments(gh, stale);
  }
}
