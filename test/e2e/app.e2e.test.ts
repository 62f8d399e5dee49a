import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoRepo } from '../../src/cli/demo-repo.js';
import { prRepo, TestRepo } from '../helpers/git-repo.js';
import { diffLines } from './harness/git-remote.js';
import type { PullState, RepoState } from './harness/github-state.js';
import { E2eEnv, waitFor } from './harness/e2e-env.js';
import { openPull, publishRepo, pushToPull } from './harness/pull-fixtures.js';
import { issueCommentPayload, pullRequestPayload } from './harness/webhooks.js';

/**
 * The real App process (`node dist/app-server.js` after `npm run build`) against a local GitHub:
 * signed webhooks in, REST calls validated against GitHub's OpenAPI description, git fetched over
 * HTTP with installation tokens. One server serves every case, in order.
 */

const START = '<!-- slopgate:start -->';
let env: E2eEnv;
const scratch: string[] = [];

const CLEAN_BASE = {
  'calc/__init__.py': '',
  'calc/ops.py': 'def add(a, b):\n    return a + b\n',
  'tests/test_ops.py': 'from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
  'README.md': '# calc\n\nSmall arithmetic helpers.\n',
};
const CLEAN_CHANGE = {
  'calc/ops.py': 'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n',
  'tests/test_ops.py':
    'from calc.ops import add, sub\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n',
};

function prOpened(pull: PullState) {
  return pullRequestPayload(env.gh.state, pull, 'opened', { installationId: env.installationId });
}

function markerCount(body: string | null): number {
  return (body ?? '').split(START).length - 1;
}

/** Lines each file added in the PR (merge base → head), as GitHub's diff shows them. */
function addedLines(pull: PullState): Map<string, Set<number>> {
  const { login } = pull.repo.owner;
  const base = env.gh.remote.mergeBase(login, pull.repo.name, pull.baseSha, pull.headSha);
  const files = diffLines(env.gh.remote.diff(login, pull.repo.name, base, pull.headSha));
  return new Map([...files].map(([p, f]) => [p, f.added]));
}

function gitRequestsFor(repo: RepoState) {
  return env.gh.requests.filter((r) => r.kind === 'git' && r.path.startsWith(`/${repo.owner.login}/${repo.name}.git/`));
}

beforeAll(async () => {
  env = await E2eEnv.start();
}, 300_000);

afterEach(() => {
  // Every request the App made so far conformed to GitHub's OpenAPI description and went to a known endpoint.
  expect(env.gh.violations).toEqual([]);
});

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed
  await env?.stop();
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

describe('slopgate App end to end', () => {
  let clean: { repo: RepoState; src: TestRepo };
  let demo: { repo: RepoState; pull: PullState; dir: string };

  it('a PR with clean changes: check run created in_progress, then completed success', async () => {
    const src = prRepo(CLEAN_BASE, CLEAN_CHANGE);
    const repo = publishRepo(env.gh, 'acme', 'calc', src.dir);
    clean = { repo, src };
    const pull = openPull(env.gh, { repo, sourceDir: src.dir, headRef: 'pr', body: 'Adds `sub`.' });
    const ack = await env.deliver('pull_request', prOpened(pull));
    expect(ack.status).toBe(200);
    const run = await env.completedRun(pull);
    expect(run.history[0]).toMatchObject({ name: 'slopgate', head_sha: pull.headSha, status: 'in_progress' });
    expect(run.conclusion).toBe('success');
    expect(run.output.title).toBeTruthy();
    // The author's text is kept; slopgate's section is added once.
    await waitFor(() => (markerCount(pull.body) === 1 ? true : undefined), 20_000);
    expect(pull.body!.startsWith('Adds `sub`.')).toBe(true);
    // Git went through HTTP with an installation token the stand-in minted (never anonymous).
    const git = gitRequestsFor(repo);
    expect(git.length).toBeGreaterThan(0);
    expect(git.every((r) => r.auth === 'installation' && r.status === 200)).toBe(true);
    expect(env.gh.calls('apps/create-installation-access-token').every((r) => r.auth === 'app')).toBe(true);
    expect(env.gh.state.reviews.filter((r) => r.repo === repo)).toEqual([]);
  }, 120_000);

  it('the demo slop PR: failure, annotations, one review on added lines only, PR body section', async () => {
    const dir = buildDemoRepo();
    scratch.push(dir);
    const repo = publishRepo(env.gh, 'acme', 'inventory', dir);
    const pull = openPull(env.gh, { repo, sourceDir: dir, headRef: 'slop-pr', title: 'Refactor db, bump metadata, polish README' });
    demo = { repo, pull, dir };
    const ack = await env.deliver('pull_request', prOpened(pull));
    expect(ack.status).toBe(200);
    const run = await env.completedRun(pull);
    expect(run.conclusion).toBe('failure');
    expect(run.output.title).toMatch(/blocking/);
    const annotated = new Set(run.annotations.map((a: { path: string }) => a.path));
    expect([...annotated].sort()).toEqual(expect.arrayContaining(['README.md', 'inventory/db.py', 'ruff.toml']));
    expect(run.annotations.some((a: { annotation_level: string }) => a.annotation_level === 'failure')).toBe(true);

    const review = await waitFor(() => env.gh.state.reviews.find((r) => r.repo === repo), 30_000);
    expect(review.event).toBe('COMMENT');
    expect(review.commitId).toBe(pull.headSha);
    const comments = env.gh.state.reviewComments.filter((c) => c.repo === repo);
    expect(comments.length).toBeGreaterThan(0);
    const added = addedLines(pull);
    for (const c of comments) {
      expect(added.get(c.path)?.has(c.line!), `${c.path}:${c.line} is an added line`).toBe(true);
      if (c.startLine) expect(added.get(c.path)?.has(c.startLine)).toBe(true);
      expect(c.body).toMatch(/<!-- slopgate:finding:[A-Za-z0-9_-]+ -->/);
    }
    // The TOML fix is offered as a suggestion on the broken line.
    expect(comments.some((c) => c.path === 'ruff.toml' && c.body.includes('```suggestion\ntarget-version = "py310"\n```'))).toBe(true);
    await waitFor(() => (markerCount(pull.body) === 1 ? true : undefined), 20_000);
    expect(pull.body).toMatch(/<!-- slopgate:start -->[\s\S]*\*\*(REFINE|STUCK|ESCALATE)\*\*[\s\S]*<!-- slopgate:end -->/);
    expect(pull.body!.startsWith('The author wrote this description.')).toBe(true);
  }, 120_000);

  it('a re-push (synchronize) gates the new head without duplicating review comments or the body section', async () => {
    const { repo, pull, dir } = demo;
    const before = env.gh.state.reviewComments.filter((c) => c.repo === repo).length;
    execFileSync('git', ['-C', dir, 'checkout', '-q', 'slop-pr']);
    execFileSync(
      'sh',
      ['-c', 'echo "scratch notes" > NOTES.txt && git add NOTES.txt && git -c user.email=a@b -c user.name=a commit -q -m notes'],
      { cwd: dir },
    );
    const previous = pushToPull(env.gh, pull, dir);
    const ack = await env.deliver(
      'pull_request',
      pullRequestPayload(env.gh.state, pull, 'synchronize', { installationId: env.installationId, before: previous }),
    );
    expect(ack.status).toBe(200);
    const run = await env.completedRun(pull);
    expect(run.conclusion).toBe('failure');
    await env.idle();
    const all = env.gh.state.reviewComments.filter((c) => c.repo === repo);
    const keys = all.map((c) => `${/slopgate:finding:([\w-]+)/.exec(c.body)?.[1]}|${c.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(all.length).toBe(before);
    expect(markerCount(pull.body)).toBe(1);
  }, 120_000);

  it('an invalid .github/slopgate.yml on the default branch fails the check as a config error (the PR head cannot fix it)', async () => {
    const src = prRepo(
      { ...CLEAN_BASE, '.github/slopgate.yml': 'version: 1\ncomments:\n  budget: lots\n' },
      { ...CLEAN_CHANGE, '.github/slopgate.yml': 'version: 1\n' },
    );
    const repo = publishRepo(env.gh, 'acme', 'badconfig', src.dir);
    const pull = openPull(env.gh, { repo, sourceDir: src.dir, headRef: 'pr' });
    await env.deliver('pull_request', prOpened(pull));
    const run = await env.completedRun(pull);
    expect(run.conclusion).toBe('failure');
    expect(run.output.title).toMatch(/^Config error: \.github\/slopgate\.yml line 3/);
    expect(run.output.summary).toMatch(/budget/);
  }, 120_000);

  it('a redelivered webhook (same X-GitHub-Delivery) is processed once', async () => {
    const { repo, src } = clean;
    src.checkout('main').branch('pr2').write({ 'calc/ops.py': 'def add(a, b):\n    return b + a\n' }).commit('commute');
    const pull = openPull(env.gh, { repo, sourceDir: src.dir, headRef: 'pr2' });
    const payload = prOpened(pull);
    const first = await env.deliver('pull_request', payload);
    await env.completedRun(pull);
    const again = await env.deliver('pull_request', payload, first.id);
    expect(again.status).toBe(200);
    await waitFor(() => (env.app.logs.includes('redelivery ignored') ? true : undefined), 10_000);
    await env.idle();
    expect(env.runsOn(repo, pull.headSha)).toHaveLength(1);
  }, 120_000);

  it('a fork PR is gated on the base repo, fetched through refs/pull/N/head, never from the fork', async () => {
    const src = prRepo(CLEAN_BASE);
    const repo = publishRepo(env.gh, 'acme', 'shared', src.dir);
    src.branch('feature').write(CLEAN_CHANGE).commit('sub from a contributor');
    const fork = publishRepo(env.gh, 'contributor', 'shared', src.dir, { fork: true });
    const pull = openPull(env.gh, { repo, headRepo: fork, sourceDir: src.dir, headRef: 'feature', author: 'contributor' });
    await env.deliver('pull_request', prOpened(pull));
    const run = await env.completedRun(pull);
    expect(run.repo).toBe(repo);
    expect(run.conclusion).toBe('success');
    expect(gitRequestsFor(fork)).toEqual([]);
    expect(gitRequestsFor(repo).length).toBeGreaterThan(0);
    expect(env.gh.requests.filter((r) => r.kind === 'rest' && r.path.startsWith('/repos/contributor/'))).toEqual([]);
  }, 120_000);

  it('60 findings: annotations go out at most 50 per request, review comments stop at the budget of 25', async () => {
    const links = Array.from({ length: 60 }, (_, i) => `- see [part ${i}](docs/part-${i}.md)`).join('\n');
    const src = prRepo({ 'README.md': '# guide\n\nhello\n' }, { 'README.md': `# guide\n\nhello\n\n${links}\n` });
    const repo = publishRepo(env.gh, 'acme', 'links', src.dir);
    const pull = openPull(env.gh, { repo, sourceDir: src.dir, headRef: 'pr' });
    await env.deliver('pull_request', prOpened(pull));
    const run = await env.completedRun(pull);
    expect(run.annotations.length).toBeGreaterThanOrEqual(60);
    const updates = run.history.slice(1);
    expect(updates.filter((u) => u.output?.annotations?.length).length).toBeGreaterThanOrEqual(2);
    expect(updates.every((u) => (u.output?.annotations?.length ?? 0) <= 50)).toBe(true);
    // Only the last update completes the run.
    expect(updates.slice(0, -1).every((u) => u.status === 'in_progress' && !u.conclusion)).toBe(true);
    const review = await waitFor(() => env.gh.state.reviews.find((r) => r.repo === repo), 30_000);
    expect(review.commentIds).toHaveLength(25);
    expect(review.body).toMatch(/comment budget: 25/);
  }, 120_000);

  it('a 3,000-file PR is gated as a whole, not cut short', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) files[`pkg/mod${String(i).padStart(4, '0')}.py`] = `def f${i}(x):\n    return x + ${i}\n`;
    const src = prRepo({ 'README.md': '# big\n' }, files);
    const repo = publishRepo(env.gh, 'acme', 'big', src.dir);
    const pull = openPull(env.gh, { repo, sourceDir: src.dir, headRef: 'pr' });
    await env.deliver('pull_request', prOpened(pull));
    const run = await env.completedRun(pull);
    expect(run.conclusion).toBe('success');
    expect(run.output.summary).toMatch(/3,000 files/);
  }, 120_000);

  it('a write-level command by a read-only user is refused after asking the permission API', async () => {
    const { repo, pull } = demo;
    repo.collaborators.set('visitor', 'read');
    const runsBefore = env.runsOn(repo, pull.headSha).length;
    const comment = { id: env.gh.state.id(), body: '/slopgate allow pyproject.toml', user: env.gh.state.user('visitor') };
    env.gh.state.issueComments.push({ id: comment.id, repo, issue: pull.number, user: comment.user, body: comment.body, viaApp: null });
    const ack = await env.deliver('issue_comment', issueCommentPayload(env.gh.state, pull, comment, env.installationId));
    expect(ack.status).toBe(200);
    const reply = await waitFor(
      () => env.gh.state.issueComments.find((c) => c.repo === repo && c.user.type === 'Bot' && c.body.includes('visitor')),
      30_000,
    );
    expect(reply.body).toMatch(/`read`/);
    expect(env.gh.calls('repos/get-collaborator-permission-level').some((r) => r.path.endsWith('/collaborators/visitor/permission'))).toBe(
      true,
    );
    await waitFor(() => env.gh.state.reactions.find((r) => r.commentId === comment.id), 10_000);
    expect(env.gh.state.reactions.filter((r) => r.commentId === comment.id).map((r) => r.content)).toEqual(['confused']);
    await env.idle();
    expect(env.runsOn(repo, pull.headSha)).toHaveLength(runsBefore);
    expect(reply.body).not.toMatch(/slopgate:allow:/);
  }, 120_000);

  it('the same command by a maintainer with write access is accepted and the re-gate drops the sanctioned manifest finding', async () => {
    const { repo, pull } = demo;
    repo.collaborators.set('maintainer', 'write');
    const manifestNotes = (run: { annotations: { path: string; message: string }[] }) =>
      run.annotations.filter((a) => a.path === 'pyproject.toml' && a.message.includes('build manifest')).length;
    const previous = env.runsOn(repo, pull.headSha);
    expect(manifestNotes(previous[previous.length - 1]!)).toBe(1);
    const comment = { id: env.gh.state.id(), body: '/slopgate allow pyproject.toml', user: env.gh.state.user('maintainer') };
    env.gh.state.issueComments.push({ id: comment.id, repo, issue: pull.number, user: comment.user, body: comment.body, viaApp: null });
    await env.deliver('issue_comment', issueCommentPayload(env.gh.state, pull, comment, env.installationId));
    await waitFor(() => (env.runsOn(repo, pull.headSha).length > previous.length ? true : undefined), 30_000);
    const run = await env.completedRun(pull);
    expect(run.id).not.toBe(previous[previous.length - 1]!.id);
    expect(manifestNotes(run)).toBe(0);
    expect(run.conclusion).toBe('failure'); // the broken TOML still blocks
    expect(env.gh.state.reactions.filter((r) => r.commentId === comment.id).map((r) => r.content)).toEqual(['+1']);
  }, 120_000);

  it('a failure inside the job (the git remote breaks) completes the check run action_required, never failure and never a pass', async () => {
    const src = prRepo(CLEAN_BASE, CLEAN_CHANGE);
    const repo = publishRepo(env.gh, 'acme', 'flaky', src.dir);
    env.gh.brokenGit.add('acme/flaky');
    const pull = openPull(env.gh, { repo, sourceDir: src.dir, headRef: 'pr' });
    await env.deliver('pull_request', prOpened(pull));
    const run = await env.completedRun(pull);
    expect(run.conclusion).toBe('action_required');
    expect(run.output.title).toMatch(/^Not about your code: slopgate could not finish/);
    expect(run.actions.map((a: { identifier: string }) => a.identifier)).toContain('rerun');
  }, 120_000);

  it('acknowledged every delivery, and the logs never held a token, the private key or the webhook secret', async () => {
    expect(env.deliveries.every((d) => d.status === 200)).toBe(true);
    await env.app.stop();
    expect(env.gh.issuedTokens().length).toBeGreaterThan(0);
    expect(env.leaks()).toEqual([]);
  }, 60_000);
});
