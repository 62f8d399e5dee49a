import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoRepo } from '../../src/cli/demo-repo.js';
import { prRepo, removeTestRepos, type TestRepo } from '../helpers/git-repo.js';
import type { CheckRunState, PullState, RepoState } from './harness/github-state.js';
import { E2eEnv, waitFor } from './harness/e2e-env.js';
import { openPull, publishRepo, queuePull, type MergeGroupState } from './harness/pull-fixtures.js';
import { mergeGroupPayload, pullRequestPayload } from './harness/webhooks.js';

/**
 * Issue 21, item 1, against the real App process: `merge_group.checks_requested` with GitHub's payload
 * shape gets the `slopgate` check run on the queue's commit. The same change as a gated PR head reuses
 * its verdict; anything else is gated against the queue's base; blocked fails, an outage is
 * action_required.
 */
let env: E2eEnv;
const scratch: string[] = [];

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
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

/** No test runs here: the queue's logic, not the sandbox, is under test (tests are off in the default branch's config). */
const BASE = {
  '.github/slopgate.yml': 'tests:\n  enabled: false\n',
  'calc/__init__.py': '',
  'calc/ops.py': 'def add(a, b):\n    return a + b\n',
  'README.md': '# calc\n\nSmall arithmetic helpers.\n',
};
const CHANGE = { 'calc/ops.py': 'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n' };

async function queued(repo: RepoState, group: MergeGroupState): Promise<CheckRunState> {
  const ack = await env.deliver('merge_group', mergeGroupPayload(env.gh.state, repo, group, { installationId: env.installationId }));
  expect(ack.status).toBe(200);
  return waitFor(
    () => env.runsOn(repo, group.headSha).find((r) => r.status === 'completed'),
    90_000,
    () => `no completed check run on the queue commit ${group.headSha.slice(0, 7)}; App log tail:\n${env.app.logs.slice(-3000)}`,
  );
}

describe('the merge queue, end to end', () => {
  let repo: RepoState;
  let pull: PullState;
  let src: TestRepo;

  it('a queued PR that is the same change as its gated head: that verdict, on the queue commit', async () => {
    src = prRepo(BASE, CHANGE);
    repo = publishRepo(env.gh, 'acme', 'queue-calc', src.dir);
    pull = openPull(env.gh, { repo, sourceDir: src.dir, headRef: 'pr' });
    await env.deliver('pull_request', pullRequestPayload(env.gh.state, pull, 'opened', { installationId: env.installationId }));
    expect((await env.completedRun(pull)).conclusion).toBe('success');
    await env.idle();

    const group = queuePull(env.gh, pull);
    const run = await queued(repo, group);
    expect(run.name).toBe('slopgate');
    expect(run.headSha).toBe(group.headSha);
    expect(run.conclusion).toBe('success');
    expect(run.output.title).toMatch(/^Merge queue: /);
    expect(run.output.summary).toContain(`same change as pull request ${pull.number}`);
    // The queue's check carries no buttons: they would re-gate the PR's head, not the queue's commit.
    expect(run.actions).toEqual([]);
  }, 180_000);

  it('after the base moved on, the queue commit is gated against its base, not reused', async () => {
    // Another change lands on main: the queued PR now sits on other base content.
    src.checkout('main').write({ 'docs/usage.md': '# Usage\n\nCall `add`.\n' }).commit('docs: usage');
    env.gh.remote.pushFrom(repo.owner.login, repo.name, src.dir, ['refs/heads/main:refs/heads/main']);

    const group = queuePull(env.gh, pull);
    const run = await queued(repo, group);
    expect(run.conclusion).toBe('success');
    expect(run.output.summary).toContain("gated the merge queue's commit against its base");
    expect(run.output.summary).not.toContain('same change as');
  }, 180_000);

  it('a blocked change fails the queue check with the reason (the entry leaves the queue)', async () => {
    const dir = buildDemoRepo();
    scratch.push(dir);
    const demo = publishRepo(env.gh, 'acme', 'queue-inventory', dir);
    const slop = openPull(env.gh, { repo: demo, sourceDir: dir, headRef: 'slop-pr' });
    const run = await queued(demo, queuePull(env.gh, slop));
    expect(run.conclusion).toBe('failure');
    expect(run.output.title).toMatch(/^Merge queue: .*blocking/);
    expect(run.annotations.length).toBeGreaterThan(0);
    // Nothing lands on the PR itself: the queue's commit is not its head.
    expect(env.gh.state.reviews.filter((r) => r.repo === demo)).toEqual([]);
  }, 180_000);

  it('a change that needs its author (ASK_AUTHOR) fails the queue check with the reason, like any block; it is no outage', async () => {
    // Under strict, a new dependency (manifest-edit, routed to the author) blocks with ASK_AUTHOR.
    const base = { ...BASE, '.github/slopgate.yml': 'tests:\n  enabled: false\nstrict: true\n', 'requirements.txt': 'requests==2.32.3\n' };
    const author = prRepo(base, { 'requirements.txt': 'requests==2.32.3\nleft-pad-py==1.0.0\n' });
    const authorRepo = publishRepo(env.gh, 'acme', 'queue-author', author.dir);
    const needsAuthor = openPull(env.gh, { repo: authorRepo, sourceDir: author.dir, headRef: 'pr' });
    const run = await queued(authorRepo, queuePull(env.gh, needsAuthor));
    expect(run.conclusion).toBe('failure');
    expect(run.output.title).toMatch(/^Merge queue: /);
    expect(run.output.summary).toContain("gated the merge queue's commit against its base");
    expect(run.actions).toEqual([]);
  }, 180_000);

  it('an outage (the queue branch cannot be fetched) is action_required, never success', async () => {
    src.write({ 'docs/more.md': '# More\n' }).commit('docs: more');
    env.gh.remote.pushFrom(repo.owner.login, repo.name, src.dir, ['refs/heads/main:refs/heads/main']);
    const group = queuePull(env.gh, pull);
    // GitHub deleted the queue's branch before slopgate fetched it.
    execFileSync('git', ['update-ref', '-d', `refs/heads/${group.headRef}`], { cwd: env.gh.remote.dirOf(repo.owner.login, repo.name) });
    const run = await queued(repo, group);
    expect(run.conclusion).toBe('action_required');
    expect(run.output.title).toMatch(/^Not about your code/);
  }, 180_000);
});
