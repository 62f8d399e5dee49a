import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { errorMessage, InputError } from '../../core/errors.js';

/** The fields of a `pull_request` event payload the Action reads (the rest of GitHub's payload is ignored). */
const PullRequestEvent = z.object({
  action: z.string().optional(),
  label: z.object({ name: z.string() }).optional(),
  sender: z.object({ login: z.string(), type: z.string().optional() }).optional(),
  pull_request: z.object({
    number: z.number().int().positive(),
    head: z.object({
      sha: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/),
      ref: z.string(),
      repo: z.object({ full_name: z.string() }).nullable(),
    }),
    base: z.object({
      sha: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/),
      ref: z.string(),
      repo: z.object({ full_name: z.string() }),
    }),
  }),
});

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** The fields of a `merge_group` event payload the Action reads (GitHub sends `checks_requested`). */
const MergeGroupEvent = z.object({
  action: z.string().optional(),
  merge_group: z.object({
    head_sha: z.string().regex(SHA),
    head_ref: z.string().min(1),
    base_sha: z.string().regex(SHA),
    base_ref: z.string().min(1),
  }),
});

/** A merge queue's commit as the Action gates it: branch names without `refs/heads/`. */
export interface MergeGroupEventFacts {
  headSha: string;
  headRef: string;
  baseSha: string;
  baseRef: string;
}

export interface PullRequestEventFacts {
  number: number;
  headSha: string;
  baseSha: string;
  baseRef: string;
  /** The head branch lives in another repository (or the fork is gone): the token is read-only. */
  fromFork: boolean;
  /** The event's action (`opened`, `synchronize`, `labeled`, …), the label of a label event, and who caused it. */
  action?: string;
  label?: string;
  sender?: { login: string; type?: string };
}

/** What the runner says about the run: the event and where things are. */
export interface RunnerContext {
  eventName: string;
  eventPath: string;
  owner: string;
  repo: string;
  apiUrl: string;
  serverUrl: string;
  workspace: string;
  runUrl?: string;
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const v = env[name];
  if (!v)
    throw new InputError(
      `${name} is not set: this command runs as a GitHub Action step`,
      'use it from a workflow (uses: <owner>/slopgate@v1)',
    );
  return v;
}

export function runnerContext(env: NodeJS.ProcessEnv): RunnerContext {
  const [owner, repo, ...rest] = required(env, 'GITHUB_REPOSITORY').split('/');
  if (!owner || !repo || rest.length) throw new InputError(`GITHUB_REPOSITORY is not owner/name: ${env.GITHUB_REPOSITORY}`);
  const serverUrl = (env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, '');
  const runId = env.GITHUB_RUN_ID;
  return {
    eventName: required(env, 'GITHUB_EVENT_NAME'),
    eventPath: required(env, 'GITHUB_EVENT_PATH'),
    owner,
    repo,
    apiUrl: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, ''),
    serverUrl,
    workspace: required(env, 'GITHUB_WORKSPACE'),
    ...(runId ? { runUrl: `${serverUrl}/${owner}/${repo}/actions/runs/${runId}` } : {}),
  };
}

async function readPayload(ctx: RunnerContext): Promise<unknown> {
  try {
    return JSON.parse(await readFile(ctx.eventPath, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read the event payload at GITHUB_EVENT_PATH: ${errorMessage(err)}`);
  }
}

const branchName = (ref: string) => ref.replace(/^refs\/heads\//, '');

/** Reads and checks the `merge_group` payload the runner wrote to GITHUB_EVENT_PATH. */
export async function readMergeGroupEvent(ctx: RunnerContext): Promise<MergeGroupEventFacts> {
  const parsed = MergeGroupEvent.safeParse(await readPayload(ctx));
  if (!parsed.success)
    throw new Error(`the ${ctx.eventName} payload has no usable merge_group (${parsed.error.issues[0]?.message ?? 'invalid'})`);
  const g = parsed.data.merge_group;
  return { headSha: g.head_sha, headRef: branchName(g.head_ref), baseSha: g.base_sha, baseRef: branchName(g.base_ref) };
}

/** Reads and checks the `pull_request` payload the runner wrote to GITHUB_EVENT_PATH. */
export async function readPullRequestEvent(ctx: RunnerContext): Promise<PullRequestEventFacts> {
  const raw = await readPayload(ctx);
  const parsed = PullRequestEvent.safeParse(raw);
  if (!parsed.success)
    throw new Error(`the ${ctx.eventName} payload has no usable pull_request (${parsed.error.issues[0]?.message ?? 'invalid'})`);
  const pr = parsed.data.pull_request;
  const self = `${ctx.owner}/${ctx.repo}`.toLowerCase();
  if (pr.base.repo.full_name.toLowerCase() !== self) {
    throw new Error(`the event's pull request targets ${pr.base.repo.full_name}, not ${self}`);
  }
  return {
    number: pr.number,
    headSha: pr.head.sha,
    baseSha: pr.base.sha,
    baseRef: pr.base.ref,
    fromFork: pr.head.repo?.full_name.toLowerCase() !== self,
    ...(parsed.data.action ? { action: parsed.data.action } : {}),
    ...(parsed.data.label ? { label: parsed.data.label.name } : {}),
    ...(parsed.data.sender ? { sender: parsed.data.sender } : {}),
  };
}
