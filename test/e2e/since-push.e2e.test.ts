import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { prRepo, removeTestRepos, type TestRepo } from '../helpers/git-repo.js';
import { nodeId, type CheckRunState, type PullState, type RepoState } from './harness/github-state.js';
import { E2eEnv, waitFor } from './harness/e2e-env.js';
import { openPull, publishRepo, pushToPull } from './harness/pull-fixtures.js';
import { pullRequestPayload } from './harness/webhooks.js';

/**
 * Issue 21, item 3, against the real App process with signed webhooks: a second push names what it
 * fixed, what is new and what is still open against the previous gated head, and resolves the thread
 * of the fixed finding only; a force-push onto a moved base compares against the new merge-base and
 * shows nothing of the commit it replaced as its own.
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

const INTRO = '# guide\n\nHow to use the tool.\n\n## Setup\n\nInstall it.\n\n## Links\n\n';
/** Three lines main adds on top of the README while the PR is open. */
const MAIN_MOVES = '> Note: the guide moved to version 2.\n>\n> Read it end to end.\n\n';

const link = (name: string) => `- see [${name}](docs/${name}.md)\n`;
const short = (sha: string) => sha.slice(0, 7);

function comments(repo: RepoState) {
  return env.gh.state.reviewComments.filter((c) => c.repo === repo && !c.inReplyTo);
}

const resolved = (commentId: number) => env.gh.graphql.resolvedThreads.has(nodeId('PRRT', commentId));

async function pushed(pull: PullState, src: TestRepo): Promise<CheckRunState> {
  const before = pushToPull(env.gh, pull, src.dir);
  const ack = await env.deliver(
    'pull_request',
    pullRequestPayload(env.gh.state, pull, 'synchronize', { installationId: env.installationId, before }),
  );
  expect(ack.status).toBe(200);
  const run = await env.completedRun(pull);
  await env.idle();
  return run;
}

describe('what a second push shows, end to end', () => {
  let repo: RepoState;
  let pull: PullState;
  let src: TestRepo;
  let firstHead: string;
  let secondHead: string;

  it('a second push with one fixed and one new finding: the summary says so and the fixed thread is resolved', async () => {
    src = prRepo({ 'README.md': INTRO }, { 'README.md': `${INTRO}${link('alpha')}${link('beta')}` });
    repo = publishRepo(env.gh, 'acme', 'guide', src.dir);
    pull = openPull(env.gh, { repo, sourceDir: src.dir, headRef: 'pr' });
    firstHead = pull.headSha;
    await env.deliver('pull_request', pullRequestPayload(env.gh.state, pull, 'opened', { installationId: env.installationId }));
    const first = await env.completedRun(pull);
    await env.idle();
    expect(first.output.summary).not.toContain('Since the last push');
    const [alpha, beta] = await waitFor(() => (comments(repo).length === 2 ? comments(repo) : undefined), 30_000);
    expect(alpha!.body).toContain('docs/alpha.md');
    expect(beta!.body).toContain('docs/beta.md');

    // Two lines on top (beta moves down), alpha fixed, gamma added.
    src
      .checkout('pr')
      .write({ 'README.md': `A short preface.\n\n${INTRO}${link('beta')}${link('gamma')}` })
      .commit('fix alpha, add gamma');
    const run = await pushed(pull, src);
    secondHead = pull.headSha;
    expect(run.output.summary).toContain(`Since \`${short(firstHead)}\` (the last gated push): 1 fixed · 1 new · 1 still open`);
    expect(run.output.summary).toMatch(/\*\*Fixed\*\*\n\n- .*`README\.md` line 11 at `[0-9a-f]{7}`: .*alpha/);
    expect(run.output.summary).toMatch(/\*\*New\*\*\n\n- .*`README\.md` line 14: .*gamma/);
    expect(pull.body).toContain('1 fixed · 1 new · 1 still open');

    // The fixed finding's thread is resolved; the moved one keeps its open thread and gets no second comment.
    expect(resolved(alpha!.id)).toBe(true);
    expect(resolved(beta!.id)).toBe(false);
    const now = comments(repo);
    expect(now).toHaveLength(3);
    expect(now[2]!.body).toContain('docs/gamma.md');
    expect(now[2]!.commitId).toBe(secondHead);
  }, 240_000);

  it('a force-push onto a moved base: the comparison follows the new merge-base; nothing of the replaced commit is shown as this one', async () => {
    const runsOnSecond = env.runsOn(repo, secondHead).length;
    src
      .checkout('main')
      .write({ 'README.md': `${MAIN_MOVES}${INTRO}` })
      .commit('main: a note on top');
    env.gh.remote.pushFrom('acme', 'guide', src.dir, ['refs/heads/main:refs/heads/main']);
    // The PR is rebuilt on the new main (a rebase) and force-pushed: the old head is not an ancestor.
    src.git('checkout', '-q', '-B', 'pr', 'main');
    src.write({ 'README.md': `${MAIN_MOVES}A short preface.\n\n${INTRO}${link('beta')}${link('gamma')}` }).commit('rebased');
    const newMain = src.git('rev-parse', 'main').trim();
    const run = await pushed(pull, src);
    const head = pull.headSha;
    expect(() => src.git('merge-base', '--is-ancestor', secondHead, head)).toThrow(); // the history was rewritten
    expect(run.headSha).toBe(head);
    expect(run.output.summary).toContain(`Since \`${short(secondHead)}\` (the last gated push): 0 fixed · 0 new · 2 still open`);
    expect(run.output.summary).toContain(`The branch was force-pushed or rebased since \`${short(secondHead)}\`.`);
    expect(run.output.summary).toContain('compared against its new merge-base');
    // The verdict is about the new head against the new merge-base.
    expect(run.output.summary).toContain(`\`${short(newMain)}\`..\`${short(head)}\``);
    // Lines were carried through the rebase: no comment repeated, no thread of a still-open finding resolved.
    const [, beta, gamma] = comments(repo);
    expect(comments(repo)).toHaveLength(3);
    expect(resolved(beta!.id)).toBe(false);
    expect(resolved(gamma!.id)).toBe(false);
    // No stale result: the replaced head's check run is as it was, and the PR body shows the new head's verdict.
    expect(env.runsOn(repo, secondHead)).toHaveLength(runsOnSecond);
    expect(pull.body).toMatch(new RegExp(`\\*\\*[A-Z_]+\\*\\* on \`${short(head)}\``));
    expect(pull.body).not.toMatch(new RegExp(`\\*\\*[A-Z_]+\\*\\* on \`${short(secondHead)}\``));
  }, 240_000);
});
