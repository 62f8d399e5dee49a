import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Route, RouteContext, RouteResult } from './github-routes.js';
import type { RepoState } from './github-state.js';

/**
 * GitHub's Git Data API over the stand-in's bare repositories (real git objects): blobs, trees on a
 * base tree, commits, and ref updates. A ref update is a fast-forward unless `force` is true — which
 * is also recorded as a violation, since slopgate must never force-push — and an update of the
 * repository's default branch is a violation too. Moving a PR's head branch moves the PR (its head
 * sha and refs/pull/N/*), as on GitHub.
 */
function git(dir: string, args: string[], input?: string | Buffer, env: Record<string, string> = {}): string {
  return execFileSync('git', args, {
    cwd: dir,
    input,
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'stand-in',
      GIT_AUTHOR_EMAIL: 'app@example.test',
      GIT_COMMITTER_NAME: 'stand-in',
      GIT_COMMITTER_EMAIL: 'app@example.test',
      ...env,
    },
  });
}

const notFound = (what: string): RouteResult => ({ status: 404, body: { message: `Not Found: ${what}` } });

function withRepoDir(fn: (ctx: RouteContext, repo: RepoState, dir: string) => RouteResult): Route {
  return (ctx) => {
    const repo = ctx.state.repo(ctx.params.owner!, ctx.params.repo!);
    if (!repo) return notFound(`repository ${ctx.params.owner}/${ctx.params.repo}`);
    return fn(ctx, repo, ctx.remote.dirOf(repo.owner.login, repo.name));
  };
}

function objectType(dir: string, sha: string): string | null {
  try {
    return git(dir, ['cat-file', '-t', sha]).trim();
  } catch {
    return null;
  }
}

export const GIT_DATA_ROUTES: Record<string, Route> = {
  'git/create-blob': withRepoDir((ctx, _repo, dir) => {
    const content = Buffer.from(String(ctx.body.content ?? ''), ctx.body.encoding === 'base64' ? 'base64' : 'utf8');
    const sha = git(dir, ['hash-object', '-w', '--stdin'], content).trim();
    return { status: 201, body: { sha, url: `blobs/${sha}` } };
  }),

  'git/get-commit': withRepoDir((ctx, _repo, dir) => {
    const sha = ctx.params.commit_sha!;
    if (objectType(dir, sha) !== 'commit') return notFound(`commit ${sha}`);
    const raw = git(dir, ['cat-file', 'commit', sha]);
    const tree = /^tree ([0-9a-f]{40})$/m.exec(raw)![1];
    const parents = [...raw.matchAll(/^parent ([0-9a-f]{40})$/gm)].map((m) => ({ sha: m[1], url: '', html_url: '' }));
    const message = raw.slice(raw.indexOf('\n\n') + 2);
    const who = { name: 'someone', email: 'someone@example.test', date: '2026-01-02T00:00:00Z' };
    return {
      status: 200,
      body: {
        sha,
        node_id: `C_${sha}`,
        url: '',
        html_url: '',
        author: who,
        committer: who,
        message,
        tree: { sha: tree, url: '' },
        parents,
        verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
      },
    };
  }),

  'git/create-tree': withRepoDir((ctx, _repo, dir) => {
    const scratch = mkdtempSync(join(tmpdir(), 'standin-index-'));
    try {
      const env = { GIT_INDEX_FILE: join(scratch, 'index') };
      if (ctx.body.base_tree) git(dir, ['read-tree', ctx.body.base_tree], undefined, env);
      for (const e of ctx.body.tree ?? []) {
        if (e.type !== 'blob' || objectType(dir, e.sha) !== 'blob')
          return { status: 422, body: { message: `tree entry ${e.path}: no blob ${e.sha}` }, violation: 'tree entry without a blob' };
        git(dir, ['update-index', '--add', '--cacheinfo', `${e.mode},${e.sha},${e.path}`], undefined, env);
      }
      const sha = git(dir, ['write-tree'], undefined, env).trim();
      return { status: 201, body: { sha, url: '', tree: [], truncated: false } };
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }),

  'git/create-commit': withRepoDir((ctx, _repo, dir) => {
    const parents: string[] = ctx.body.parents ?? [];
    const args = ['commit-tree', ctx.body.tree, ...parents.flatMap((p) => ['-p', p]), '-F', '-'];
    const sha = git(dir, args, String(ctx.body.message ?? ''), {
      GIT_AUTHOR_DATE: '2026-01-03T00:00:00Z',
      GIT_COMMITTER_DATE: '2026-01-03T00:00:00Z',
    }).trim();
    const who = { name: 'stand-in', email: 'app@example.test', date: '2026-01-03T00:00:00Z' };
    return {
      status: 201,
      body: {
        sha,
        node_id: `C_${sha}`,
        url: '',
        html_url: '',
        author: who,
        committer: who,
        message: ctx.body.message,
        tree: { sha: ctx.body.tree, url: '' },
        parents: parents.map((p) => ({ sha: p, url: '', html_url: '' })),
        verification: { verified: true, reason: 'valid', signature: null, payload: null, verified_at: null },
      },
    };
  }),

  'git/update-ref': withRepoDir((ctx, repo, dir) => {
    const ref = decodeURIComponent(ctx.params.ref!);
    const branch = ref.replace(/^heads\//, '');
    const sha: string = ctx.body.sha;
    if (!ref.startsWith('heads/')) return { status: 422, body: { message: `not a branch: ${ref}` }, violation: `ref update of ${ref}` };
    if (branch === repo.defaultBranch)
      return { status: 422, body: { message: 'protected' }, violation: `ref update of the default branch ${branch}` };
    if (ctx.body.force !== false)
      return { status: 422, body: { message: 'force' }, violation: `ref update of ${branch} without force: false` };
    let current: string;
    try {
      current = git(dir, ['rev-parse', '--verify', `refs/heads/${branch}`]).trim();
    } catch {
      return notFound(`branch ${branch}`);
    }
    try {
      git(dir, ['merge-base', '--is-ancestor', current, sha]);
    } catch {
      return { status: 422, body: { message: 'Update is not a fast forward' } };
    }
    git(dir, ['update-ref', `refs/heads/${branch}`, sha, current]);
    for (const pull of ctx.state.pulls.filter((p) => p.headRepo === repo && p.headRef === branch && p.state === 'open')) {
      pull.headSha = sha;
      const login = pull.repo.owner.login;
      if (pull.repo !== repo) ctx.remote.pushFrom(login, pull.repo.name, dir, [`refs/heads/${branch}:refs/pull/${pull.number}/head`]);
      ctx.remote.setPullRefs(login, pull.repo.name, pull.number, sha, pull.baseRef);
    }
    return { status: 200, body: { ref: `refs/${ref}`, node_id: `REF_${branch}`, url: '', object: { type: 'commit', sha, url: '' } } };
  }),
};
