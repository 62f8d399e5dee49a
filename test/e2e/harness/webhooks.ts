/* eslint-disable @typescript-eslint/no-explicit-any */
import { createHmac, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { GitHubState, PullState, RepoState, UserState } from './github-state.js';

type Json = any;

const require = createRequire(import.meta.url);
const EXAMPLES: { name: string; examples: Json[] }[] = require('@octokit/webhooks-examples');

/** A real example payload from `@octokit/webhooks-examples` (deep copy) for an event and action. */
export function examplePayload(event: string, action?: string): Json {
  const group = EXAMPLES.find((e) => e.name === event);
  const ex = group?.examples.find((x) => !action || x.action === action) ?? group?.examples[0];
  if (!ex) throw new Error(`no example payload for ${event}${action ? `.${action}` : ''}`);
  return structuredClone(ex);
}

export function signPayload(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export interface Delivery {
  id: string;
  event: string;
  status: number;
  /** Time until the App answered, in milliseconds. */
  ms: number;
  responseBody: string;
}

/** Posts one signed delivery the way GitHub does (headers, HMAC-SHA256 over the exact bytes). */
export async function sendWebhook(url: string, secret: string, event: string, payload: Json, id: string = randomUUID()): Promise<Delivery> {
  const body = JSON.stringify(payload);
  const started = performance.now();
  const res = await postRetryingStaleSocket(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/e2e',
      'x-github-event': event,
      'x-github-delivery': id,
      'x-github-hook-id': '1',
      'x-github-hook-installation-target-type': 'integration',
      'x-github-hook-installation-target-id': '1',
      'x-hub-signature-256': signPayload(secret, body),
    },
    body,
  });
  const responseBody = await res.text();
  return { id, event, status: res.status, ms: performance.now() - started, responseBody };
}

/**
 * fetch keeps connections alive; when the server closes an idle one just as the next request goes out,
 * undici fails with "other side closed" before the App read anything. GitHub would redeliver with the
 * same delivery id (the App dedupes by it), so the harness sends it once more.
 */
async function postRetryingStaleSocket(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw err;
    return fetch(url, init);
  }
}

function installation(id: number): Json {
  return { id, node_id: `MDIz${Buffer.from(`Integration::Installation${id}`).toString('base64')}` };
}

/** `pull_request.<action>` for a PR of the stand-in, on top of GitHub's example payload. */
export function pullRequestPayload(
  state: GitHubState,
  pull: PullState,
  action: string,
  opts: { installationId: number; before?: string; sender?: UserState },
): Json {
  const ex = examplePayload('pull_request', action);
  const payload: Json = {
    ...ex,
    action,
    number: pull.number,
    pull_request: { ...ex.pull_request, ...state.pullJson(pull) },
    repository: { ...ex.repository, ...state.repoJson(pull.repo) },
    installation: installation(opts.installationId),
    sender: state.userJson(opts.sender ?? pull.user),
  };
  if (action === 'synchronize') {
    payload.before = opts.before ?? '0'.repeat(40);
    payload.after = pull.headSha;
  }
  return payload;
}

/**
 * `merge_group.checks_requested` for a merge queue entry of the stand-in, on top of GitHub's example
 * payload: full refs in `head_ref`/`base_ref` and the queue commit in `head_commit`, as GitHub sends them.
 */
export function mergeGroupPayload(
  state: GitHubState,
  repo: RepoState,
  group: { headSha: string; headRef: string; baseSha: string; baseRef: string; treeId: string },
  opts: { installationId: number; sender?: UserState },
): Json {
  const ex = examplePayload('merge_group', 'checks_requested');
  return {
    ...ex,
    action: 'checks_requested',
    merge_group: {
      ...ex.merge_group,
      head_sha: group.headSha,
      head_ref: `refs/heads/${group.headRef}`,
      base_sha: group.baseSha,
      base_ref: `refs/heads/${group.baseRef}`,
      head_commit: { ...ex.merge_group.head_commit, id: group.headSha, tree_id: group.treeId },
    },
    repository: { ...ex.repository, ...state.repoJson(repo) },
    installation: installation(opts.installationId),
    sender: state.userJson(opts.sender ?? state.user('merger', 'User')),
  };
}

/** `issue_comment.created` on a PR (the issue carries `pull_request`, as GitHub sends it). */
export function issueCommentPayload(
  state: GitHubState,
  pull: PullState,
  comment: { id: number; body: string; user: UserState },
  installationId: number,
): Json {
  const ex = examplePayload('issue_comment', 'created');
  const pr = state.pullJson(pull);
  const repo = state.repoUrls(pull.repo);
  return {
    ...ex,
    action: 'created',
    issue: {
      ...ex.issue,
      url: pr.issue_url,
      repository_url: repo.api,
      html_url: pr.html_url,
      id: pull.id,
      node_id: pr.node_id,
      number: pull.number,
      title: pull.title,
      user: state.userJson(pull.user),
      labels: pr.labels,
      state: pull.state,
      body: pull.body,
      pull_request: { url: pr.url, html_url: pr.html_url, diff_url: pr.diff_url, patch_url: pr.patch_url, merged_at: null },
    },
    comment: {
      ...ex.comment,
      id: comment.id,
      node_id: `IC_${comment.id}`,
      url: `${repo.api}/issues/comments/${comment.id}`,
      html_url: `${pr.html_url}#issuecomment-${comment.id}`,
      issue_url: pr.issue_url,
      user: state.userJson(comment.user),
      body: comment.body,
      author_association: 'NONE',
      performed_via_github_app: null,
    },
    repository: { ...ex.repository, ...state.repoJson(pull.repo) },
    installation: installation(installationId),
    sender: state.userJson(comment.user),
  };
}
