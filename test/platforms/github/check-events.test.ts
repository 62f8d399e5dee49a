import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { REFINER_NOT_CONFIGURED } from '../../../src/platforms/github/command-handler.js';
import { API } from './helpers/fake-github.js';
import { FakeRemote, removeFakeRemotes } from '../../helpers/fake-remote.js';
import { closeStrict, startHarness, type Harness } from './helpers/harness.js';
import { APP_ID, INSTALLATION_ID, OWNER, REPO, example, pullRequest, type Json, type PrShape } from './helpers/payloads.js';
import { markerGuard } from '../../helpers/test-guards.js';

let h: Harness | undefined;
afterEach(() => {
  closeStrict(h);
  h = undefined;
});
afterAll(() => removeFakeRemotes());

/** The repository object of the real Codertocat/Hello-World examples. */
function repository(): Json {
  return example('pull_request', (e) => e.action === 'synchronize').repository;
}

/** A check-run/check-suite `pull_requests` entry as GitHub sends it (base in `baseRepoId`). */
function prRef(number: number, headSha: string, baseRepoId = repository().id): Json {
  const repo = (id: number, name: string) => ({ id, url: `${API}/repos/${OWNER}/${name}`, name });
  return {
    url: `${API}/repos/${OWNER}/${REPO}/pulls/${number}`,
    id: 1000 + number,
    number,
    head: { ref: `pr-${number}`, sha: headSha, repo: repo(repository().id, REPO) },
    base: { ref: 'main', sha: 'f'.repeat(40), repo: repo(baseRepoId, baseRepoId === repository().id ? REPO : 'Upstream') },
  };
}

interface CheckRunEventShape {
  checkRunId: number;
  headSha: string;
  sender: string;
  /** Default: the external id slopgate sets (`slopgate:pr:N`). */
  externalId?: string;
  pullRequests?: Json[];
  appId?: number;
  name?: string;
  identifier?: string;
}

/** check_run.rerequested / requested_action from the real examples, aimed at one of slopgate's runs. */
function checkRunEvent(action: 'rerequested' | 'requested_action', s: CheckRunEventShape): Json {
  const payload = example('check_run', (e) => e.action === action && Boolean(e.installation));
  const run = payload.check_run;
  run.id = s.checkRunId;
  run.name = s.name ?? 'slopgate';
  run.head_sha = s.headSha;
  run.external_id = s.externalId ?? '';
  run.pull_requests = s.pullRequests ?? [];
  run.app = { ...run.app, id: s.appId ?? APP_ID };
  payload.repository = repository();
  payload.installation = { id: INSTALLATION_ID, node_id: 'inst' };
  payload.sender.login = s.sender;
  if (action === 'requested_action') payload.requested_action = { identifier: s.identifier ?? 'rerun' };
  return payload;
}

/** check_suite.rerequested from the real example, for slopgate's suite on `headSha`. */
function checkSuiteEvent(headSha: string, sender: string, pullRequests: Json[]): Json {
  const payload = example('check_suite', (e) => e.action === 'rerequested' && Boolean(e.installation));
  payload.check_suite.head_sha = headSha;
  payload.check_suite.pull_requests = pullRequests;
  payload.check_suite.app = { ...payload.check_suite.app, id: APP_ID };
  payload.repository = repository();
  payload.installation = { id: INSTALLATION_ID, node_id: 'inst' };
  payload.sender.login = sender;
  // The example's sender is an App's bot; these tests re-run as a person (a bot's request is not answered).
  payload.sender.type = 'User';
  return payload;
}

const R = `/repos/${OWNER}/${REPO}`;

/** GET /pulls?state=open… (the head-sha lookup used when a payload names no PR, e.g. a fork PR). */
function openPulls(h: Harness, prs: PrShape[]): void {
  h.github.scope
    .get(`${R}/pulls`)
    .query({ state: 'open', sort: 'updated', direction: 'desc', per_page: 100 })
    .reply(200, prs.map(pullRequest));
}

async function gatedRemote(n: number): Promise<{ remote: FakeRemote; pr: PrShape }> {
  const remote = FakeRemote.create({ 'a.txt': 'one\n' });
  const head = remote.pushPr(n, { 'a.txt': 'one\ntwo SLOP\n' });
  return { remote, pr: { number: n, headSha: head, baseSha: remote.baseSha, author: 'Codertocat' } };
}

describe("check_run.rerequested (GitHub's own re-run link)", () => {
  it("a writer re-running slopgate's check run of a fork PR (empty pull_requests) gates the PR named by the external id again", async () => {
    const { remote, pr } = await gatedRemote(60);
    h = await startHarness(remote, { guards: [markerGuard] });
    h.github.token().getPr(pr).permission('maint', 'write').createCheckRun(601).gateJob(pr, 601, { review: true });

    await h.receive(
      'check_run',
      checkRunEvent('rerequested', { checkRunId: 600, headSha: pr.headSha, sender: 'maint', externalId: 'slopgate:pr:60' }),
    );
    await h.idle();

    const [created] = h.github.bodiesOf('POST', '/check-runs');
    expect(created).toMatchObject({ name: 'slopgate', head_sha: pr.headSha, status: 'in_progress', external_id: 'slopgate:pr:60' });
    const [done] = h.github.bodiesOf('PATCH', '/check-runs/601');
    expect(done).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(done.output.annotations.map((a: { path: string; start_line: number }) => [a.path, a.start_line])).toEqual([['a.txt', 2]]);
  });

  it("without slopgate's external id, the listed PR of this repository is gated, not a same-numbered PR of another base repository", async () => {
    const { remote, pr } = await gatedRemote(66);
    h = await startHarness(remote, { guards: [markerGuard] });
    h.github.token().getPr(pr).createCheckRun(661).gateJob(pr, 661, { review: true });

    const event = checkRunEvent('rerequested', {
      checkRunId: 660,
      headSha: pr.headSha,
      sender: 'Codertocat',
      pullRequests: [prRef(5, pr.headSha, 424242), prRef(66, pr.headSha)],
    });
    await h.receive('check_run', event);
    await h.idle();

    expect(h.github.bodiesOf('POST', '/check-runs')).toEqual([expect.objectContaining({ external_id: 'slopgate:pr:66' })]);
    expect(h.github.bodiesOf('PATCH', '/check-runs/661')[0]).toMatchObject({ status: 'completed', conclusion: 'failure' });
  });

  it('ignores a check run named slopgate that another App owns, and checks of other names', async () => {
    h = await startHarness(null, { guards: [markerGuard] });
    const sha = 'c'.repeat(40);
    await h.receive(
      'check_run',
      checkRunEvent('rerequested', { checkRunId: 1, headSha: sha, sender: 'maint', externalId: 'slopgate:pr:1', appId: APP_ID + 1 }),
    );
    await h.receive(
      'check_run',
      checkRunEvent('rerequested', { checkRunId: 2, headSha: sha, sender: 'maint', externalId: 'slopgate:pr:1', name: 'ci' }),
    );
    await h.idle();
    expect(h.github.captured).toEqual([]);
  });
});

describe("check_run.requested_action (the check run's buttons)", () => {
  it('Re-run pressed by the PR author gates again without a permission lookup (recheck is open to the author)', async () => {
    const { remote, pr } = await gatedRemote(61);
    h = await startHarness(remote, { guards: [markerGuard] });
    h.github.token().getPr(pr).createCheckRun(611).gateJob(pr, 611, { review: true });

    await h.receive(
      'check_run',
      checkRunEvent('requested_action', {
        checkRunId: 610,
        headSha: pr.headSha,
        sender: 'Codertocat',
        externalId: 'slopgate:pr:61',
        identifier: 'rerun',
      }),
    );
    await h.idle();

    expect(h.github.bodiesOf('POST', '/check-runs')).toEqual([
      expect.objectContaining({ head_sha: pr.headSha, external_id: 'slopgate:pr:61' }),
    ]);
    expect(h.github.bodiesOf('PATCH', '/check-runs/611')[0]).toMatchObject({ status: 'completed', conclusion: 'failure' });
  });

  it('Re-run pressed by someone who is neither the author nor a writer is refused with a reply, and nothing is gated', async () => {
    h = await startHarness(null, { guards: [markerGuard] });
    const pr: PrShape = { number: 62, headSha: 'a'.repeat(40), baseSha: 'b'.repeat(40), author: 'Codertocat' };
    h.github.token().getPr(pr).permission('visitor', 'read').createComment(62);

    await h.receive(
      'check_run',
      checkRunEvent('requested_action', {
        checkRunId: 620,
        headSha: pr.headSha,
        sender: 'visitor',
        externalId: 'slopgate:pr:62',
        identifier: 'rerun',
      }),
    );
    await h.idle();

    const [reply] = h.github.bodiesOf('POST', '/issues/62/comments');
    expect(reply.body).toContain('@visitor');
    expect(reply.body).toContain('the PR author or someone with write access');
    expect(reply.body).toContain('`read`');
    expect(h.github.bodiesOf('POST', '/check-runs')).toEqual([]);
  });

  it('Refine pressed by a writer answers that the refiner is switched off (refinerAvailable: false), and gates nothing', async () => {
    h = await startHarness(null, { guards: [markerGuard], refinerAvailable: false });
    const pr: PrShape = { number: 63, headSha: 'a'.repeat(40), baseSha: 'b'.repeat(40), author: 'Codertocat' };
    h.github.token().getPr(pr).permission('maint', 'maintain').createComment(63);

    await h.receive(
      'check_run',
      checkRunEvent('requested_action', {
        checkRunId: 630,
        headSha: pr.headSha,
        sender: 'maint',
        externalId: 'slopgate:pr:63',
        identifier: 'refine',
      }),
    );
    await h.idle();

    expect(h.github.bodiesOf('POST', '/issues/63/comments')).toEqual([{ body: REFINER_NOT_CONFIGURED }]);
    expect(h.github.bodiesOf('POST', '/check-runs')).toEqual([]);
  });

  it('Refine pressed by the PR author without write access is refused: refine needs write access, authorship is not enough', async () => {
    h = await startHarness(null, { guards: [markerGuard] });
    const pr: PrShape = { number: 64, headSha: 'a'.repeat(40), baseSha: 'b'.repeat(40), author: 'Codertocat' };
    h.github.token().getPr(pr).permission('Codertocat', 'read').createComment(64);

    await h.receive(
      'check_run',
      checkRunEvent('requested_action', {
        checkRunId: 640,
        headSha: pr.headSha,
        sender: 'Codertocat',
        externalId: 'slopgate:pr:64',
        identifier: 'refine',
      }),
    );
    await h.idle();

    const [reply] = h.github.bodiesOf('POST', '/issues/64/comments');
    expect(reply.body).toContain('`/slopgate refine` needs write access');
    expect(reply.body).not.toContain(REFINER_NOT_CONFIGURED);
  });

  it("a button identifier slopgate never set (another App's action) does nothing", async () => {
    h = await startHarness(null, { guards: [markerGuard] });
    await h.receive(
      'check_run',
      checkRunEvent('requested_action', {
        checkRunId: 650,
        headSha: 'a'.repeat(40),
        sender: 'maint',
        externalId: 'slopgate:pr:65',
        identifier: 'lgtm|65',
      }),
    );
    await h.idle();
    expect(h.github.captured).toEqual([]);
  });
});

describe('check_suite.rerequested (GitHub\'s "Re-run all checks")', () => {
  it('gates every PR of the suite whose base is this repository; a PR listed for another base repository is left alone', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'one\n' });
    const head = remote.pushPr(70, { 'a.txt': 'one\ntwo\n' });
    // The same branch opened twice (e.g. against main and a release branch): one head, two PRs.
    remote.work.git('push', '-q', '--force', remote.dir, `${head}:refs/pull/71/head`);
    const pr70: PrShape = { number: 70, headSha: head, baseSha: remote.baseSha };
    const pr71: PrShape = { number: 71, headSha: head, baseSha: remote.baseSha };
    h = await startHarness(remote, { guards: [markerGuard] });
    h.github.token().getPr(pr70).createCheckRun(701).gateJob(pr70, 701).getPr(pr71).createCheckRun(711).gateJob(pr71, 711);

    await h.receive('check_suite', checkSuiteEvent(head, 'Codertocat', [prRef(3, head, 424242), prRef(70, head), prRef(71, head)]));
    await h.idle();

    expect(
      h.github
        .bodiesOf('POST', '/check-runs')
        .map((c) => c.external_id)
        .sort(),
    ).toEqual(['slopgate:pr:70', 'slopgate:pr:71']);
    expect(h.github.bodiesOf('PATCH', '/check-runs/701')[0]).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(h.github.bodiesOf('PATCH', '/check-runs/711')[0]).toMatchObject({ status: 'completed', conclusion: 'success' });
  });

  it("a fork PR's suite (empty pull_requests) finds the open PR by its head sha and gates it", async () => {
    const { remote, pr } = await gatedRemote(72);
    const other: PrShape = { number: 73, headSha: 'd'.repeat(40), baseSha: remote.baseSha };
    h = await startHarness(remote, { guards: [markerGuard] });
    h.github.token();
    openPulls(h, [other, { ...pr, fork: true }]);
    h.github.getPr(pr).createCheckRun(721).gateJob(pr, 721, { review: true });

    await h.receive('check_suite', checkSuiteEvent(pr.headSha, 'Codertocat', []));
    await h.idle();

    expect(h.github.bodiesOf('POST', '/check-runs')).toEqual([
      expect.objectContaining({ head_sha: pr.headSha, external_id: 'slopgate:pr:72' }),
    ]);
    expect(h.github.bodiesOf('PATCH', '/check-runs/721')[0]).toMatchObject({ status: 'completed', conclusion: 'failure' });
  });
});
