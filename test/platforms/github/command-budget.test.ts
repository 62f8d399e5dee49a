import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_WINDOW } from '../../../src/host/command-budget.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { closeStrict, startHarness, type Harness } from './helpers/harness.js';
import { commentEvent, type PrShape } from './helpers/payloads.js';
import { markerGuard } from '../../helpers/test-guards.js';

/**
 * Issue 19, item 8, through the App with strict nock: every request a command may make is declared,
 * and any request beyond the bound is unexpected and fails the test. A user gets at most
 * COMMAND_WINDOW.limit answered commands per PR per window; the same command again is answered once;
 * bots are never answered.
 */
let h: Harness | undefined;
let store: Store;
beforeAll(async () => {
  store = await openStore();
}, 300_000);
afterEach(() => {
  closeStrict(h);
  h = undefined;
});
afterAll(async () => {
  await store.close();
});

/** Expects exactly `n` answers (a reaction and a reply each) to comments on `pr`. */
function answers(h: Harness, pr: number, n: number): void {
  for (let i = 0; i < n; i++) h.github.reaction(9001).createComment(pr);
}

describe('commands cost bounded API calls', () => {
  it('a sixth and seventh command of one user on one PR get no reaction and no reply; others are still answered', async () => {
    expect(COMMAND_WINDOW.limit).toBe(5);
    h = await startHarness(null, { guards: [markerGuard] });
    h.github.token();
    answers(h, 91, 5);
    for (const verb of ['help', 'frob1', 'frob2', 'frob3', 'frob4', 'frob5', 'frob6']) {
      await h.receive('issue_comment', commentEvent(91, `/slopgate ${verb}`, 'spammer'));
    }
    await h.idle();
    expect(h.github.bodiesOf('POST', '/issues/91/comments')).toHaveLength(5);
    expect(h.github.bodiesOf('POST', '/issues/91/comments').map((c) => String(c.body).split(' ')[0])).toEqual([
      'slopgate',
      '`frob1`',
      '`frob2`',
      '`frob3`',
      '`frob4`',
    ]);

    // Another user on the same PR, and the same user on another PR, each have their own bound.
    answers(h, 91, 1);
    answers(h, 92, 1);
    await h.receive('issue_comment', commentEvent(91, '/slopgate help', 'someone-else'));
    await h.receive('issue_comment', commentEvent(92, '/slopgate help', 'spammer'));
    await h.idle();
    expect(h.github.bodiesOf('POST', '/issues/92/comments')).toHaveLength(1);
  });

  it('refused commands count too: a triage user asking to allow paths is refused five times, then nothing at all', async () => {
    h = await startHarness(null, { guards: [markerGuard] });
    const pr: PrShape = { number: 93, headSha: 'a'.repeat(40), baseSha: 'b'.repeat(40), author: 'Codertocat' };
    h.github.token();
    for (let i = 0; i < 5; i++) h.github.getPr(pr).permission('tri', 'triage').reaction(9001).createComment(93);
    for (let i = 0; i < 8; i++) await h.receive('issue_comment', commentEvent(93, `/slopgate allow file${i}.json`, 'tri'));
    await h.idle();
    const replies = h.github.bodiesOf('POST', '/issues/93/comments');
    expect(replies).toHaveLength(5);
    expect(replies.every((r) => String(r.body).includes('`/slopgate allow` needs write access'))).toBe(true);
  });

  it('the same command again within the window is answered once, and it still counts', async () => {
    h = await startHarness(null, { guards: [markerGuard] });
    h.github.token();
    answers(h, 94, 1);
    await h.receive('issue_comment', commentEvent(94, '/slopgate help', 'asker'));
    await h.receive('issue_comment', commentEvent(94, '/slopgate   HELP', 'asker'));
    await h.receive('issue_comment', commentEvent(94, '/slopgate help', 'asker'));
    await h.idle();
    expect(h.github.bodiesOf('POST', '/issues/94/comments')).toHaveLength(1);
  });

  it('bots are never answered: a Bot account, or any login ending in [bot]', async () => {
    h = await startHarness(null, { guards: [markerGuard] });
    await h.receive('issue_comment', commentEvent(95, '/slopgate help', 'helper-app', 'Bot'));
    await h.receive('issue_comment', commentEvent(95, '/slopgate help', 'renovate[bot]', 'User'));
    await h.receive('issue_comment', commentEvent(95, '/slopgate recheck', 'dependabot[bot]'));
    await h.idle();
    expect(h.github.captured).toEqual([]);
  });

  it('with a store, the bound is shared: a second App process sharing the store answers only what is left', async () => {
    h = await startHarness(null, { guards: [markerGuard], store });
    h.github.token();
    answers(h, 96, 3);
    for (const verb of ['a', 'b', 'c']) await h.receive('issue_comment', commentEvent(96, `/slopgate ${verb}`, 'spammer'));
    await h.idle();
    closeStrict(h);

    h = await startHarness(null, { guards: [markerGuard], store });
    h.github.token();
    answers(h, 96, 2);
    for (const verb of ['d', 'e', 'f', 'g']) await h.receive('issue_comment', commentEvent(96, `/slopgate ${verb}`, 'spammer'));
    await h.idle();
    expect(h.github.bodiesOf('POST', '/issues/96/comments').map((c) => String(c.body).split(' ')[0])).toEqual(['`d`', '`e`']);
  });
});
