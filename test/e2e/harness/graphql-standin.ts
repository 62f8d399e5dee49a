/* eslint-disable @typescript-eslint/no-explicit-any */
import type { GitHubState } from './github-state.js';
import { nodeId } from './github-state.js';

type Json = any;

/**
 * A very small GraphQL endpoint: it records every query and answers the few shapes a PR bot uses
 * (node lookups of review comments, minimizeComment, review threads and resolveReviewThread).
 * Anything else gets `{ data: {} }`, which the test can spot in the recording.
 */
export class GraphqlStandIn {
  readonly minimized = new Set<string>();
  readonly resolvedThreads = new Set<string>();

  constructor(private readonly state: GitHubState) {}

  answer(query: string, variables: Json = {}): Json {
    this.state.graphql.push({ query, variables });
    const data: Json = {};
    if (/\bnodes\s*\(\s*ids\s*:/.test(query)) {
      data.nodes = (variables.ids ?? []).map((id: string) => ({ id, isMinimized: this.minimized.has(id) }));
    }
    for (const m of query.matchAll(/(\w+)\s*:\s*minimizeComment\s*\(\s*input\s*:\s*\{\s*subjectId\s*:\s*\$(\w+)/g)) {
      const id = variables[m[2]!];
      this.minimized.add(id);
      data[m[1]!] = { minimizedComment: { isMinimized: true } };
    }
    for (const m of query.matchAll(/(\w+)\s*:\s*resolveReviewThread\s*\(\s*input\s*:\s*\{\s*threadId\s*:\s*\$(\w+)/g)) {
      this.resolvedThreads.add(variables[m[2]!]);
      data[m[1]!] = { thread: { isResolved: true } };
    }
    if (query.includes('reviewThreads') && variables.owner && variables.repo) {
      const repo = this.state.repo(variables.owner, variables.repo);
      const n = Number(variables.n ?? variables.number);
      const tops = this.state.reviewComments.filter((c) => c.repo === repo && c.pull === n && !c.inReplyTo);
      data.repository = {
        pullRequest: {
          reviewThreads: {
            nodes: tops.map((c) => {
              const id = nodeId('PRRT', c.id);
              return { id, isResolved: this.resolvedThreads.has(id), comments: { nodes: [{ databaseId: c.id }] } };
            }),
          },
        },
      };
    }
    return { data };
  }
}
