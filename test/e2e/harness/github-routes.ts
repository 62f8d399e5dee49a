/* eslint-disable @typescript-eslint/no-explicit-any */
import { diffLines, type GitRemote } from './git-remote.js';
import type { GitHubState, PullState, RepoState } from './github-state.js';

type Json = any;

export interface RouteContext {
  state: GitHubState;
  remote: GitRemote;
  params: Record<string, string>;
  query: URLSearchParams;
  body: Json;
  /** The installation the caller's token belongs to (null for App-JWT calls). */
  installationId: number | null;
  /** Mints an installation token (only the access-token route uses it). */
  mintToken(installationId: number): { token: string; expiresAt: string };
}

export interface RouteResult {
  status: number;
  body?: Json;
  /** A problem worth failing the test over (e.g. a review comment off the diff). */
  violation?: string;
}

export type Route = (ctx: RouteContext) => RouteResult;

const notFound = (what: string): RouteResult => ({
  status: 404,
  body: { message: `Not Found: ${what}`, documentation_url: 'https://docs.github.com/rest' },
});
const unprocessable = (message: string, violation = true): RouteResult => ({
  status: 422,
  body: { message: 'Validation Failed', errors: [message], documentation_url: 'https://docs.github.com/rest' },
  ...(violation ? { violation: `422: ${message}` } : {}),
});

function repoOf(ctx: RouteContext): RepoState | null {
  return ctx.state.repo(ctx.params.owner!, ctx.params.repo!) ?? null;
}

function withRepo(fn: (ctx: RouteContext, repo: RepoState) => RouteResult): Route {
  return (ctx) => {
    const repo = repoOf(ctx);
    return repo ? fn(ctx, repo) : notFound(`repository ${ctx.params.owner}/${ctx.params.repo}`);
  };
}

function withPull(fn: (ctx: RouteContext, pull: PullState) => RouteResult, param = 'pull_number'): Route {
  return withRepo((ctx, repo) => {
    const pull = ctx.state.pull(repo, Number(ctx.params[param]));
    return pull ? fn(ctx, pull) : notFound(`pull request #${ctx.params[param]}`);
  });
}

/** What lines a review comment may sit on: the PR's diff (merge base → commit), like GitHub. */
function reviewableLines(ctx: RouteContext, pull: PullState, commitId: string) {
  const { owner, name } = { owner: pull.repo.owner.login, name: pull.repo.name };
  const head = ctx.remote.revParse(owner, name, commitId);
  if (!head) return null;
  const base = ctx.remote.mergeBase(owner, name, pull.baseSha, head);
  return diffLines(ctx.remote.diff(owner, name, base, head));
}

function contentJson(
  ctx: RouteContext,
  repo: RepoState,
  ref: string,
  e: { name: string; path: string; type: string; sha: string; size: number },
  withContent: boolean,
): Json {
  const u = ctx.state.repoUrls(repo);
  const base: Json = {
    type: e.type,
    name: e.name,
    path: e.path,
    sha: e.sha,
    size: e.size,
    url: `${u.api}/contents/${e.path}?ref=${ref}`,
    html_url: `${u.html}/blob/${ref}/${e.path}`,
    git_url: `${u.api}/git/${e.type === 'dir' ? 'trees' : 'blobs'}/${e.sha}`,
    download_url: e.type === 'file' ? `${u.html}/raw/${ref}/${e.path}` : null,
    _links: { self: `${u.api}/contents/${e.path}?ref=${ref}`, git: `${u.api}/git/blobs/${e.sha}`, html: `${u.html}/blob/${ref}/${e.path}` },
  };
  if (withContent && e.type === 'file') {
    base.encoding = 'base64';
    base.content = ctx.remote
      .readBlob(repo.owner.login, repo.name, e.sha)
      .toString('base64')
      .replace(/(.{60})/g, '$1\n');
  }
  return base;
}

function checkRunPatch(run: GitHubState['checkRuns'][number], body: Json): void {
  run.history.push(body);
  if (body.status) run.status = body.status;
  if (body.conclusion) {
    run.conclusion = body.conclusion;
    run.status = 'completed';
  }
  if (body.started_at) run.startedAt = body.started_at;
  if (body.completed_at) run.completedAt = body.completed_at;
  if (body.external_id !== undefined) run.externalId = body.external_id;
  if (body.output) {
    run.output = {
      title: body.output.title ?? run.output.title,
      summary: body.output.summary ?? run.output.summary,
      text: body.output.text ?? run.output.text,
    };
    run.annotations.push(...(body.output.annotations ?? []));
  }
  if (body.actions) run.actions = body.actions;
}

/** The REST operations the stand-in answers, by OpenAPI operationId. */
export const ROUTES: Record<string, Route> = {
  'apps/get-authenticated': (ctx) => ({ status: 200, body: ctx.state.appJson() }),

  'apps/create-installation-access-token': (ctx) => {
    const { token, expiresAt } = ctx.mintToken(Number(ctx.params.installation_id));
    return {
      status: 201,
      body: { token, expires_at: expiresAt, permissions: ctx.state.appJson().permissions, repository_selection: 'all' },
    };
  },

  'repos/get': withRepo((ctx, repo) => ({ status: 200, body: ctx.state.repoJson(repo) })),

  'repos/get-collaborator-permission-level': withRepo((ctx, repo) => {
    const login = ctx.params.username!;
    const permission = repo.collaborators.get(login);
    if (!permission) return notFound(`${login} is not a collaborator`);
    const base = permission === 'maintain' ? 'write' : permission === 'triage' ? 'read' : permission;
    return { status: 200, body: { permission: base, role_name: permission, user: ctx.state.userJson(ctx.state.user(login)) } };
  }),

  'repos/get-content': withRepo((ctx, repo) => {
    const ref = ctx.query.get('ref') ?? repo.defaultBranch;
    const path = ctx.params.path ?? '';
    const entry = ctx.remote.entry(repo.owner.login, repo.name, ref, path);
    if (!entry) return notFound(`${path} at ${ref}`);
    if (entry.type === 'dir') {
      const list = ctx.remote.list(repo.owner.login, repo.name, ref, path);
      return { status: 200, body: list.map((e) => contentJson(ctx, repo, ref, e, false)) };
    }
    return { status: 200, body: contentJson(ctx, repo, ref, entry, true) };
  }),

  'pulls/list': withRepo((ctx, repo) => {
    const state = ctx.query.get('state') ?? 'open';
    const list = ctx.state.pulls.filter((p) => p.repo === repo && (state === 'all' || p.state === state));
    return { status: 200, body: list.map((p) => ctx.state.pullJson(p)) };
  }),

  'pulls/get': withPull((ctx, pull) => ({ status: 200, body: ctx.state.pullJson(pull) })),

  'pulls/update': withPull((ctx, pull) => {
    if (typeof ctx.body.body === 'string') pull.body = ctx.body.body;
    if (typeof ctx.body.title === 'string') pull.title = ctx.body.title;
    if (ctx.body.state === 'open' || ctx.body.state === 'closed') pull.state = ctx.body.state;
    return { status: 200, body: ctx.state.pullJson(pull) };
  }),

  'pulls/list-files': withPull((ctx, pull) => {
    const { login } = pull.repo.owner;
    const base = ctx.remote.mergeBase(login, pull.repo.name, pull.baseSha, pull.headSha);
    // `--name-status -z`: `M\0path\0`, or `R100\0old\0new\0` for a rename (as GitHub lists it, with previous_filename).
    const tokens = ctx.remote.diff(login, pull.repo.name, base, pull.headSha, ['--name-status', '-z']).split('\0');
    const counts = new Map<string, [number, number]>();
    const stat = ctx.remote.diff(login, pull.repo.name, base, pull.headSha, ['--numstat', '-z', '--no-renames']).split('\0');
    for (const row of stat) {
      const [add, del, filename] = row.split('\t');
      if (filename) counts.set(filename, [Number(add) || 0, Number(del) || 0]);
    }
    const STATUS: Record<string, string> = { A: 'added', D: 'removed', M: 'modified', R: 'renamed', C: 'copied', T: 'changed' };
    const u = ctx.state.repoUrls(pull.repo);
    const files = [];
    for (let i = 0; i < tokens.length && tokens[i];) {
      const code = tokens[i]!;
      const moved = code.startsWith('R') || code.startsWith('C');
      const previous = moved ? tokens[i + 1] : undefined;
      const filename = moved ? tokens[i + 2]! : tokens[i + 1]!;
      i += moved ? 3 : 2;
      const status = STATUS[code[0]!] ?? 'modified';
      // The blob at the head (for a removed file, the one it had at the base), as GitHub's `sha`.
      const entry = ctx.remote.entry(login, pull.repo.name, status === 'removed' ? base : pull.headSha, filename);
      const [additions, deletions] = counts.get(filename) ?? [0, 0];
      files.push({
        sha: entry?.sha ?? '0'.repeat(40),
        filename,
        status,
        additions,
        deletions,
        changes: additions + deletions,
        blob_url: `${u.html}/blob/${pull.headSha}/${filename}`,
        raw_url: `${u.html}/raw/${pull.headSha}/${filename}`,
        contents_url: `${u.api}/contents/${filename}?ref=${pull.headSha}`,
        ...(previous ? { previous_filename: previous } : {}),
      });
    }
    return { status: 200, body: files };
  }),

  'pulls/list-review-comments': withPull((ctx, pull) => ({
    status: 200,
    body: ctx.state.reviewComments.filter((c) => c.repo === pull.repo && c.pull === pull.number).map((c) => ctx.state.reviewCommentJson(c)),
  })),

  'pulls/list-reviews': withPull((ctx, pull) => ({
    status: 200,
    body: ctx.state.reviews.filter((r) => r.repo === pull.repo && r.pull === pull.number).map((r) => ctx.state.reviewJson(r)),
  })),

  'pulls/create-review': withPull((ctx, pull) => {
    const { state } = ctx;
    const commitId = ctx.body.commit_id ?? pull.headSha;
    const comments: Json[] = ctx.body.comments ?? [];
    const lines = comments.length ? reviewableLines(ctx, pull, commitId) : null;
    if (comments.length && !lines) return unprocessable(`commit_id ${commitId} is not part of the pull request`);
    for (const c of comments) {
      if (c.position !== undefined) return unprocessable(`comment on ${c.path} uses the deprecated 'position'`);
      const file = lines!.get(c.path);
      const side = c.side === 'LEFT' ? 'left' : 'right';
      const onDiff = (n: number) => Boolean(file?.[side].has(n));
      if (c.subject_type === 'file') continue;
      if (!onDiff(c.line) || (c.start_line !== undefined && !onDiff(c.start_line))) {
        return unprocessable(
          `pull_request_review_thread.line must be part of the diff (${c.path}:${c.start_line ? `${c.start_line}-` : ''}${c.line})`,
        );
      }
    }
    const review = {
      id: state.id(),
      repo: pull.repo,
      pull: pull.number,
      user: state.bot,
      body: ctx.body.body ?? null,
      event: ctx.body.event ?? 'PENDING',
      commitId,
      commentIds: [] as number[],
    };
    for (const c of comments) {
      const id = state.id();
      review.commentIds.push(id);
      state.reviewComments.push({
        id,
        repo: pull.repo,
        pull: pull.number,
        reviewId: review.id,
        user: state.bot,
        path: c.path,
        line: c.line ?? null,
        side: c.side ?? 'RIGHT',
        startLine: c.start_line ?? null,
        body: c.body,
        commitId,
        inReplyTo: null,
        viaApp: state.appId,
      });
    }
    state.reviews.push(review);
    return { status: 200, body: state.reviewJson(review) };
  }),

  'checks/create': withRepo((ctx, repo) => {
    const run = {
      id: ctx.state.id(),
      repo,
      name: ctx.body.name,
      headSha: ctx.body.head_sha,
      externalId: null,
      status: 'queued',
      conclusion: null,
      startedAt: null,
      completedAt: null,
      output: { title: null, summary: null, text: null },
      annotations: [],
      actions: [],
      history: [],
    };
    checkRunPatch(run, ctx.body);
    ctx.state.checkRuns.push(run);
    return { status: 201, body: ctx.state.checkRunJson(run) };
  }),

  'checks/update': withRepo((ctx, repo) => {
    const run = ctx.state.checkRuns.find((c) => c.repo === repo && c.id === Number(ctx.params.check_run_id));
    if (!run) return notFound(`check run ${ctx.params.check_run_id}`);
    if ((ctx.body.output?.annotations?.length ?? 0) > 50) return unprocessable('more than 50 annotations in one request');
    checkRunPatch(run, ctx.body);
    return { status: 200, body: ctx.state.checkRunJson(run) };
  }),

  'checks/get': withRepo((ctx, repo) => {
    const run = ctx.state.checkRuns.find((c) => c.repo === repo && c.id === Number(ctx.params.check_run_id));
    return run ? { status: 200, body: ctx.state.checkRunJson(run) } : notFound(`check run ${ctx.params.check_run_id}`);
  }),

  'checks/list-for-ref': withRepo((ctx, repo) => {
    const sha = ctx.remote.revParse(repo.owner.login, repo.name, ctx.params.ref!) ?? ctx.params.ref;
    const name = ctx.query.get('check_name');
    let runs = ctx.state.checkRuns.filter((c) => c.repo === repo && c.headSha === sha && (!name || c.name === name));
    if (ctx.query.get('filter') !== 'all') {
      const latest = new Map<string, (typeof runs)[number]>();
      for (const r of runs) latest.set(r.name, r);
      runs = [...latest.values()];
    }
    return { status: 200, body: { total_count: runs.length, check_runs: runs.reverse().map((r) => ctx.state.checkRunJson(r)) } };
  }),

  'issues/list-comments': withPull(
    (ctx, pull) => ({
      status: 200,
      body: ctx.state.issueComments
        .filter((c) => c.repo === pull.repo && c.issue === pull.number)
        .map((c) => ctx.state.issueCommentJson(c)),
    }),
    'issue_number',
  ),

  'issues/create-comment': withPull((ctx, pull) => {
    const c = {
      id: ctx.state.id(),
      repo: pull.repo,
      issue: pull.number,
      user: ctx.state.bot,
      body: ctx.body.body,
      viaApp: ctx.state.appId,
    };
    ctx.state.issueComments.push(c);
    return { status: 201, body: ctx.state.issueCommentJson(c) };
  }, 'issue_number'),

  'issues/add-labels': withPull((ctx, pull) => {
    const names: string[] = Array.isArray(ctx.body)
      ? ctx.body
      : Array.isArray(ctx.body?.labels)
        ? ctx.body.labels.map((l: Json) => (typeof l === 'string' ? l : l.name))
        : [];
    for (const n of names) if (!pull.labels.includes(n)) pull.labels.push(n);
    return { status: 200, body: pull.labels.map((l) => ctx.state.labelJson(l)) };
  }, 'issue_number'),

  'issues/remove-label': withPull((ctx, pull) => {
    const i = pull.labels.indexOf(ctx.params.name!);
    if (i < 0) return notFound(`label ${ctx.params.name}`);
    pull.labels.splice(i, 1);
    return { status: 200, body: pull.labels.map((l) => ctx.state.labelJson(l)) };
  }, 'issue_number'),

  'reactions/create-for-issue-comment': withRepo((ctx) => {
    const r = { id: ctx.state.id(), commentId: Number(ctx.params.comment_id), content: ctx.body.content, user: ctx.state.bot };
    ctx.state.reactions.push(r);
    return {
      status: 201,
      body: {
        id: r.id,
        node_id: `REA_${r.id}`,
        user: ctx.state.userJson(r.user),
        content: r.content,
        created_at: new Date().toISOString(),
      },
    };
  }),
};
