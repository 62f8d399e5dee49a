import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { prRepo, removeTestRepos, type TestRepo } from '../helpers/git-repo.js';
import type { PullState, RepoState } from './harness/github-state.js';
import { E2eEnv, waitFor } from './harness/e2e-env.js';
import { openPull, publishRepo, pushToPull } from './harness/pull-fixtures.js';
import { issueCommentPayload, pullRequestPayload } from './harness/webhooks.js';

/**
 * Issue 19, items 4, 6 and 8, against the real App process with signed webhooks: the allow-manifest
 * label checks who added it and approves the manifest as it is; a push that changes it lapses the
 * sanction; and one commenter cannot make the App answer more than the per-user bound.
 */
let env: E2eEnv;

beforeAll(async () => {
  env = await E2eEnv.start();
}, 300_000);

afterEach(() => {
  expect(env.gh.violations).toEqual([]);
});

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed
  await env?.stop();
  removeTestRepos();
});

const PKG = (deps: string) => `{\n  "name": "demo",\n  "version": "1.0.0",\n  "dependencies": {${deps}}\n}\n`;

function labeled(pull: PullState, login: string) {
  if (!pull.labels.includes('slopgate:allow-manifest')) pull.labels.push('slopgate:allow-manifest');
  const payload = pullRequestPayload(env.gh.state, pull, 'labeled', {
    installationId: env.installationId,
    sender: env.gh.state.user(login),
  });
  payload.label = env.gh.state.labelJson('slopgate:allow-manifest');
  return payload;
}

function botReplies(repo: RepoState, pull: PullState) {
  return env.gh.state.issueComments.filter((c) => c.repo === repo && c.issue === pull.number && c.user.type === 'Bot');
}

/** Waits for a new completed check run on the PR's head (after `before` runs). */
async function nextRun(pull: PullState, before: number) {
  await waitFor(() => (env.runsOn(pull.repo, pull.headSha).length > before ? true : undefined), 60_000);
  await env.idle();
  return env.completedRun(pull);
}

const g1Notes = (run: { annotations: { path: string; title: string }[] }) =>
  run.annotations.filter((a) => a.path === 'package.json' && a.title.startsWith('G1')).length;

describe('the allow-manifest label, end to end', () => {
  let repo: RepoState;
  let pull: PullState;
  let src: TestRepo;

  it('a triage user labels the PR: a reply says it allows nothing, the re-gate keeps the finding and says why', async () => {
    src = prRepo(
      { 'package.json': PKG(''), 'index.js': 'module.exports = 1;\n' },
      { 'package.json': PKG('\n    "left-pad": "1.3.0"\n  ') },
    );
    repo = publishRepo(env.gh, 'acme', 'labels', src.dir);
    repo.collaborators.set('tri', 'triage');
    repo.collaborators.set('maint', 'maintain');
    pull = openPull(env.gh, { repo, sourceDir: src.dir, headRef: 'pr' });
    await env.deliver('pull_request', pullRequestPayload(env.gh.state, pull, 'opened', { installationId: env.installationId }));
    const first = await env.completedRun(pull);
    expect(g1Notes(first)).toBe(1);

    const ack = await env.deliver('pull_request', labeled(pull, 'tri'));
    expect(ack.status).toBe(200);
    const run = await nextRun(pull, 1);
    expect(g1Notes(run)).toBe(1);
    expect(run.output.summary).toContain('label is on this PR but allows nothing');
    const [reply] = botReplies(repo, pull);
    expect(reply!.body).toContain('your role here is `triage`');
    expect(reply!.body).not.toContain('slopgate:grant');
    expect(env.gh.calls('repos/get-collaborator-permission-level').some((r) => r.path.endsWith('/collaborators/tri/permission'))).toBe(
      true,
    );
  }, 180_000);

  it("a maintainer's label approves package.json as it is; a push that changes it lapses the sanction", async () => {
    const before = env.runsOn(repo, pull.headSha).length;
    await env.deliver('pull_request', labeled(pull, 'maint'));
    const run = await nextRun(pull, before);
    expect(g1Notes(run)).toBe(0);
    expect(run.output.summary).toContain('`package.json` is allowed by the `slopgate:allow-manifest` label added by @');
    expect(botReplies(repo, pull).some((c) => c.body.includes('<!-- slopgate:grant:'))).toBe(true);

    src
      .checkout('pr')
      .write({ 'package.json': PKG('\n    "left-pad": "1.3.0",\n    "evil-pkg": "9.9.9"\n  ') })
      .commit('one more');
    const previous = pushToPull(env.gh, pull, src.dir);
    await env.deliver(
      'pull_request',
      pullRequestPayload(env.gh.state, pull, 'synchronize', { installationId: env.installationId, before: previous }),
    );
    const after = await env.completedRun(pull);
    expect(g1Notes(after)).toBe(1);
    expect(after.output.summary).toMatch(/The allow for `package\.json` given at `\w{7}` .* lapsed: the file changed since/);
  }, 180_000);
});

describe('commands cost bounded API calls, end to end', () => {
  it('seven commands from one user: five answers (a reaction and a reply each), then nothing', async () => {
    const s = prRepo({ 'a.txt': 'a\n' }, { 'a.txt': 'b\n' });
    const repo = publishRepo(env.gh, 'acme', 'chatty', s.dir);
    const pull = openPull(env.gh, { repo, sourceDir: s.dir, headRef: 'pr' });
    const calls = () => env.gh.requests.filter((r) => r.kind === 'rest' && r.path.startsWith('/repos/acme/chatty/')).length;
    const ids: number[] = [];
    for (const verb of ['help', 'frob1', 'frob2', 'frob3', 'frob4', 'frob5', 'frob6']) {
      const comment = { id: env.gh.state.id(), body: `/slopgate ${verb}`, user: env.gh.state.user('chatty-user') };
      ids.push(comment.id);
      env.gh.state.issueComments.push({ id: comment.id, repo, issue: pull.number, user: comment.user, body: comment.body, viaApp: null });
      const ack = await env.deliver('issue_comment', issueCommentPayload(env.gh.state, pull, comment, env.installationId));
      expect(ack.status).toBe(200);
    }
    await waitFor(() => (botReplies(repo, pull).length >= 5 ? true : undefined), 30_000);
    await waitFor(() => (env.app.logs.split('command not answered').length - 1 >= 2 ? true : undefined), 30_000);
    await env.idle();
    expect(botReplies(repo, pull)).toHaveLength(5);
    expect(env.gh.state.reactions.filter((r) => ids.includes(r.commentId))).toHaveLength(5);
    expect(env.gh.state.reactions.filter((r) => ids.slice(5).includes(r.commentId))).toEqual([]);
    expect(calls()).toBe(10); // a reaction and a reply per answered command; nothing for the other two
  }, 120_000);
});
