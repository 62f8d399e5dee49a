import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HELP_TEXT } from '../../../src/host/commands.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { FakeRemote, removeFakeRemotes } from '../../helpers/fake-remote.js';
import { closeStrict, startHarness, type Harness } from './helpers/harness.js';
import { OWNER, REPO, commentEvent, example, pullRequestEvent, type Json, type PrShape } from './helpers/payloads.js';
import { markerGuard } from '../../helpers/test-guards.js';

let h: Harness | undefined;
/** One embedded (PGlite) store for the file; every test uses its own PR number. */
let store: Store;
beforeAll(async () => {
  store = await openStore();
});
afterEach(() => {
  closeStrict(h);
  h = undefined;
});
afterAll(async () => {
  await store.close();
  removeFakeRemotes();
});

const R = `/repos/${OWNER}/${REPO}`;
const FULL = `${OWNER}/${REPO}`;

/** GET …/commits/<sha>/check-runs?check_name=slopgate… (explain without a store reads the check run's text). */
function checkRunsForRef(h: Harness, sha: string, runs: { id: number; text: string }[]): void {
  h.github.scope
    .get(`${R}/commits/${sha}/check-runs`)
    .query({ check_name: 'slopgate', filter: 'latest', per_page: 10 })
    .reply(200, {
      total_count: runs.length,
      check_runs: runs.map((r) => ({ id: r.id, name: 'slopgate', head_sha: sha, output: { title: 't', summary: 's', text: r.text } })),
    });
}

/** Gates a PR whose added line 2 holds the SLOP marker; returns the completed check run's body. */
async function gateSlopPr(n: number, checkRunId: number, opts: { store?: Store } = {}): Promise<{ pr: PrShape; done: Json }> {
  const remote = FakeRemote.create({ 'a.txt': 'one\n' });
  const head = remote.pushPr(n, { 'a.txt': 'one\ntwo SLOP\n' });
  const pr: PrShape = { number: n, headSha: head, baseSha: remote.baseSha, author: 'Codertocat' };
  h = await startHarness(remote, { guards: [markerGuard], ...(opts.store ? { store: opts.store } : {}) });
  h.github.token().createCheckRun(checkRunId).gateJob(pr, checkRunId, { review: true });
  await h.receive('pull_request', pullRequestEvent('opened', pr));
  await h.idle();
  const [done] = h.github.bodiesOf('PATCH', `/check-runs/${checkRunId}`);
  expect(done.conclusion).toBe('failure');
  return { pr, done };
}

function findingIdIn(text: string): string {
  const id = /finding `([0-9a-zA-Z]+)`/.exec(text)?.[1];
  expect(id, 'the check run text names the finding id').toBeTruthy();
  return id!;
}

describe('/slopgate explain', () => {
  it("without a store, answers from the check run's text: the message and what to do, with a thumbs-up", async () => {
    const { pr, done } = await gateSlopPr(80, 801);
    const id = findingIdIn(done.output.text);
    h!.github.getPr(pr).reaction(9001).createComment(80);
    checkRunsForRef(h!, pr.headSha, [{ id: 801, text: done.output.text }]);

    await h!.receive('issue_comment', commentEvent(80, `/slopgate explain ${id}`, 'passer-by'));
    await h!.idle();

    expect(h!.github.bodiesOf('POST', '/reactions')).toEqual([{ content: '+1' }]);
    const [reply] = h!.github.bodiesOf('POST', '/issues/80/comments');
    expect(reply.body).toContain(`\`${pr.headSha.slice(0, 7)}\``);
    expect(reply.body).toContain('a.txt line 2 still holds the SLOP marker');
    expect(reply.body).toContain('**What to do:** remove the SLOP marker');
    expect(reply.body).toContain(`finding \`${id}\``);
  });

  it('with a store, answers from the stored run (message, remediation, guard, place), without asking GitHub for check runs', async () => {
    const { pr, done } = await gateSlopPr(81, 811, { store });
    const id = findingIdIn(done.output.text);
    h!.github.getPr(pr).reaction(9001).createComment(81);

    await h!.receive('issue_comment', commentEvent(81, `Could you explain?\n/slopgate explain ${id}`, 'passer-by'));
    await h!.idle();

    const [reply] = h!.github.bodiesOf('POST', '/issues/81/comments');
    expect(reply.body).toContain(`**Finding \`${id}\`** (G99 · \`todo-marker\` · fail) at \`a.txt\` line 2`);
    expect(reply.body).toContain('a.txt line 2 still holds the SLOP marker: "two SLOP"');
    expect(reply.body).toContain('**What to do:** remove the SLOP marker');
    expect(h!.github.bodiesOf('POST', '/reactions')).toEqual([{ content: '+1' }]);
  });

  it('an id no recent run knows gets a clear "no finding" reply and a confused reaction', async () => {
    h = await startHarness(null, { guards: [markerGuard], store });
    const pr: PrShape = { number: 82, headSha: 'a'.repeat(40), baseSha: 'b'.repeat(40) };
    h.github.token().getPr(pr).reaction(9001).createComment(82);
    checkRunsForRef(h, pr.headSha, [
      { id: 821, text: '### ❌ fail · todo-marker · a.txt line 2\n\nsomething\n\n_guard G99 · finding `0123456789ab`_\n' },
    ]);

    await h.receive('issue_comment', commentEvent(82, '/slopgate explain deadbeef0000', 'passer-by'));
    await h.idle();

    expect(h.github.bodiesOf('POST', '/reactions')).toEqual([{ content: 'confused' }]);
    const [reply] = h.github.bodiesOf('POST', '/issues/82/comments');
    expect(reply.body).toContain('No finding `deadbeef0000`');
    expect(reply.body).not.toContain('0123456789ab');
  });
});

describe('/slopgate reset', () => {
  it('a maintainer resets the stored round counter to 1', async () => {
    await store.advanceRound(FULL, 83, 1);
    await store.advanceRound(FULL, 83, 2);
    expect((await store.getRound(FULL, 83)).round).toBe(3);
    h = await startHarness(null, { guards: [markerGuard], store });
    const pr: PrShape = { number: 83, headSha: 'a'.repeat(40), baseSha: 'b'.repeat(40), author: 'Codertocat' };
    h.github.token().getPr(pr).permission('maint', 'maintain').reaction(9001).createComment(83);

    await h.receive('issue_comment', commentEvent(83, '/slopgate reset', 'maint'));
    await h.idle();

    expect((await store.getRound(FULL, 83)).round).toBe(1);
    expect(h.github.bodiesOf('POST', '/reactions')).toEqual([{ content: '+1' }]);
    expect(h.github.bodiesOf('POST', '/issues/83/comments')[0].body).toContain('Round counter reset by @maint');
  });

  it('the PR author without write access cannot reset the round: refused, the counter stays', async () => {
    await store.advanceRound(FULL, 84, 1);
    h = await startHarness(null, { guards: [markerGuard], store });
    const pr: PrShape = { number: 84, headSha: 'a'.repeat(40), baseSha: 'b'.repeat(40), author: 'Codertocat' };
    h.github.token().getPr(pr).permission('Codertocat', 'triage').reaction(9001).createComment(84);

    await h.receive('issue_comment', commentEvent(84, '/slopgate reset', 'Codertocat'));
    await h.idle();

    expect((await store.getRound(FULL, 84)).round).toBe(2);
    expect(h.github.bodiesOf('POST', '/reactions')).toEqual([{ content: 'confused' }]);
    expect(h.github.bodiesOf('POST', '/issues/84/comments')[0].body).toContain('`/slopgate reset` needs write access');
  });

  it('without a store, says there is no round counter to reset', async () => {
    h = await startHarness(null, { guards: [markerGuard] });
    const pr: PrShape = { number: 85, headSha: 'a'.repeat(40), baseSha: 'b'.repeat(40) };
    h.github.token().getPr(pr).permission('maint', 'admin').reaction(9001).createComment(85);

    await h.receive('issue_comment', commentEvent(85, '/slopgate reset', 'maint'));
    await h.idle();

    expect(h.github.bodiesOf('POST', '/reactions')).toEqual([{ content: 'confused' }]);
    expect(h.github.bodiesOf('POST', '/issues/85/comments')[0].body).toContain('keeps no store');
  });
});

describe('help, unknown commands and comments that are not commands', () => {
  it('/slopgate help lists the commands with a thumbs-up, without looking up the PR or the sender', async () => {
    h = await startHarness(null, { guards: [markerGuard] });
    h.github.token().reaction(9001).createComment(86);

    await h.receive('issue_comment', commentEvent(86, '/slopgate help', 'passer-by'));
    await h.idle();

    expect(h.github.bodiesOf('POST', '/reactions')).toEqual([{ content: '+1' }]);
    expect(h.github.bodiesOf('POST', '/issues/86/comments')).toEqual([{ body: HELP_TEXT }]);
  });

  it('/slopgate frobnicate gets a confused reaction and a short reply naming the verb, followed by the help', async () => {
    h = await startHarness(null, { guards: [markerGuard] });
    h.github.token().reaction(9001).createComment(87);

    await h.receive('issue_comment', commentEvent(87, '/slopgate frobnicate now', 'passer-by'));
    await h.idle();

    expect(h.github.bodiesOf('POST', '/reactions')).toEqual([{ content: 'confused' }]);
    const [reply] = h.github.bodiesOf('POST', '/issues/87/comments');
    expect(reply.body.startsWith('`frobnicate` is not a slopgate command.')).toBe(true);
    expect(reply.body).toContain(HELP_TEXT);
  });

  it('a command only quoted or shown in a code block is ignored: no request at all', async () => {
    h = await startHarness(null, { guards: [markerGuard] });
    await h.receive('issue_comment', commentEvent(88, '> /slopgate reset\n\nI would not do that.', 'maint'));
    await h.receive('issue_comment', commentEvent(88, 'Try:\n\n```\n/slopgate allow package.json\n```\n', 'maint'));
    await h.receive('issue_comment', commentEvent(88, '~~~text\n/slopgate recheck\n~~~', 'maint'));
    await h.idle();
    expect(h.github.captured).toEqual([]);
  });

  it('editing or deleting a comment that holds a command does nothing (only new comments are commands)', async () => {
    h = await startHarness(null, { guards: [markerGuard] });
    for (const action of ['edited', 'deleted']) {
      const payload = commentEvent(89, '/slopgate recheck', 'maint');
      const real = example('issue_comment', (e) => e.action === action);
      payload.action = action;
      if (real.changes) payload.changes = { body: { from: 'typo' } };
      await h.receive('issue_comment', payload);
    }
    await h.idle();
    expect(h.github.captured).toEqual([]);
  });
});
