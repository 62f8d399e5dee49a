import type { GitHubClient } from './check-run.js';
import type { RepoTarget } from '../../host/check-outcome.js';

interface StaleComment {
  id: number;
  /** The comment's GraphQL node id (ReviewComment.handle on GitHub). */
  handle: string;
}

/** Minimises (as OUTDATED) the stale comments that are not minimised yet; one query, one mutation. */
export async function minimiseComments(gh: GitHubClient, stale: StaleComment[]): Promise<number> {
  const ids = stale.map((s) => s.handle);
  const state = await gh.graphql<{ nodes: ({ id: string; isMinimized: boolean } | null)[] }>(
    'query($ids: [ID!]!) { nodes(ids: $ids) { ... on PullRequestReviewComment { id isMinimized } } }',
    { ids },
  );
  const todo = state.nodes.flatMap((n) => (n?.id && !n.isMinimized ? [n.id] : []));
  if (!todo.length) return 0;
  const fields = todo.map(
    (_, i) => `m${i}: minimizeComment(input: { subjectId: $id${i}, classifier: OUTDATED }) { minimizedComment { isMinimized } }`,
  );
  const vars = Object.fromEntries(todo.map((id, i) => [`id${i}`, id]));
  await gh.graphql(`mutation(${todo.map((_, i) => `$id${i}: ID!`).join(', ')}) { ${fields.join(' ')} }`, vars);
  return todo.length;
}

interface Thread {
  id: string;
  isResolved: boolean;
  comments: { nodes: { databaseId: number }[] };
}

interface Threads {
  repository: { pullRequest: { reviewThreads: { nodes: Thread[] } } };
}

const THREADS_QUERY =
  'query($owner: String!, $repo: String!, $n: Int!) { repository(owner: $owner, name: $repo) { pullRequest(number: $n) ' +
  '{ reviewThreads(first: 100) { nodes { id isResolved comments(first: 1) { nodes { databaseId } } } } } } }';

/** Resolves the review threads started by stale comments; falls back to minimising when not allowed. */
export async function resolveThreads(gh: GitHubClient, target: RepoTarget, pullNumber: number, stale: StaleComment[]): Promise<number> {
  const res = await gh.graphql<Threads>(THREADS_QUERY, { owner: target.owner, repo: target.repo, n: pullNumber });
  const wanted = new Set(stale.map((s) => s.id));
  const threads = res.repository.pullRequest.reviewThreads.nodes.filter(
    (t) => !t.isResolved && wanted.has(t.comments.nodes[0]?.databaseId ?? -1),
  );
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
