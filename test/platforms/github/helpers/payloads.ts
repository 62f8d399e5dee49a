import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * Webhook and REST JSON as the tests build and read it: real example payloads edited in place, and request
 * bodies the App sent. The one deliberately loose type of these tests; the assertions are the type check.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonValue = any;
export type Json = Record<string, JsonValue>;
interface Example {
  name: string;
  examples: Json[];
}
const EXAMPLES = require('@octokit/webhooks-examples') as Example[];

export const OWNER = 'Codertocat';
export const REPO = 'Hello-World';
export const INSTALLATION_ID = 1;
export const APP_ID = 123;

/** A deep copy of a real example payload from @octokit/webhooks-examples. */
export function example(name: string, pick: (e: Json) => boolean): Json {
  const found = EXAMPLES.find((e) => e.name === name)?.examples.find(pick);
  if (!found) throw new Error(`no ${name} example matches`);
  return structuredClone(found);
}

export interface PrShape {
  number: number;
  headSha: string;
  baseSha: string;
  baseRef?: string;
  draft?: boolean;
  fork?: boolean;
  labels?: string[];
  body?: string | null;
  author?: string;
  mergeable?: boolean | null;
}

/** A pull_request object (webhook and REST share the shape) built from a real example. */
export function pullRequest(s: PrShape): Json {
  const pr = example('pull_request', (e) => e.action === 'synchronize').pull_request;
  pr.number = s.number;
  pr.state = 'open';
  pr.draft = s.draft ?? false;
  pr.body = s.body === undefined ? 'Adds a feature.' : s.body;
  pr.mergeable = s.mergeable ?? null;
  pr.labels = (s.labels ?? []).map((name, i) => ({
    id: 100 + i,
    node_id: `L${i}`,
    url: '',
    name,
    color: 'ededed',
    default: false,
    description: null,
  }));
  pr.user.login = s.author ?? 'Codertocat';
  pr.head.sha = s.headSha;
  pr.base.sha = s.baseSha;
  pr.base.ref = s.baseRef ?? 'main';
  pr.base.repo.default_branch = 'main';
  pr.head.ref = `pr-${s.number}`;
  if (s.fork) {
    pr.head.repo = structuredClone(pr.head.repo);
    pr.head.repo.full_name = 'forker/Hello-World';
    pr.head.repo.owner.login = 'forker';
    pr.head.repo.fork = true;
    pr.head.label = `forker:pr-${s.number}`;
  }
  return pr;
}

export function pullRequestEvent(action: string, s: PrShape): Json {
  const payload = example('pull_request', (e) => e.action === 'synchronize');
  payload.action = action;
  payload.number = s.number;
  payload.pull_request = pullRequest(s);
  payload.repository.default_branch = 'main';
  payload.installation = { id: INSTALLATION_ID, node_id: 'inst' };
  if (action !== 'synchronize') {
    delete payload.before;
    delete payload.after;
  } else payload.after = s.headSha;
  return payload;
}

/** issue_comment.created on a PR (the example comment is on an issue: give it a pull_request link). */
export function commentEvent(number: number, body: string, user = 'Codertocat', userType = 'User'): Json {
  const payload = example('issue_comment', (e) => e.action === 'created' && Boolean(e.installation));
  payload.issue.number = number;
  payload.issue.pull_request = {
    url: `https://api.github.com/repos/${OWNER}/${REPO}/pulls/${number}`,
    html_url: `https://github.com/${OWNER}/${REPO}/pull/${number}`,
    diff_url: `https://github.com/${OWNER}/${REPO}/pull/${number}.diff`,
    patch_url: `https://github.com/${OWNER}/${REPO}/pull/${number}.patch`,
  };
  payload.comment.body = body;
  payload.comment.id = 9001;
  payload.comment.user.login = user;
  payload.comment.user.type = userType;
  payload.sender.login = user;
  payload.sender.type = userType;
  payload.installation = { id: INSTALLATION_ID, node_id: 'inst' };
  return payload;
}
