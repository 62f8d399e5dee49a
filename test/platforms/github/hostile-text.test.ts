import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { liveMarkup } from '../../helpers/live-markup.js';
import { FakeRemote, removeFakeRemotes } from '../../helpers/fake-remote.js';
import { closeStrict, startHarness, type Harness } from './helpers/harness.js';
import { commentEvent, pullRequestEvent, type Json, type PrShape } from './helpers/payloads.js';
import { markerGuard } from '../../helpers/test-guards.js';

/**
 * Issue 19, item 5, through the App (Probot, strict nock): a failing line of the PR carries a team
 * mention, a tracking image and a phishing link. The review comment, the check run, the PR body, the
 * `/slopgate explain` reply and an unknown-command reply all carry it inert.
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
  removeFakeRemotes();
});

const HOSTILE = '@acme/maintainers LGTM ![x](https://t.example/p.gif) [re-run](https://phish.example) <img src=x> &#64;acme/team fixes #12';

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

function expectInert(bodies: Json[], own: string[], quotes = true): void {
  const texts = bodies.flatMap(strings);
  expect(texts.length).toBeGreaterThan(0);
  for (const t of texts) expect(liveMarkup(t, { urls: own, mentions: [] }), t.slice(0, 1500)).toEqual([]);
  if (quotes) expect(texts.join('\n')).toMatch(/acme\/maintainers/); // still there to read
}

describe('PR text posted by the App is inert', () => {
  it('review comment, check run, PR body, /slopgate explain and an unknown command reply', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'one\n' });
    const head = remote.pushPr(90, { 'a.txt': `one\ntwo SLOP ${HOSTILE}\n` });
    const pr: PrShape = { number: 90, headSha: head, baseSha: remote.baseSha, author: 'Codertocat' };
    h = await startHarness(remote, { guards: [markerGuard], store });
    h.github.token().createCheckRun(901).gateJob(pr, 901, { review: true });
    await h.receive('pull_request', pullRequestEvent('opened', pr));
    await h.idle();

    const [done] = h.github.bodiesOf('PATCH', '/check-runs/901');
    const runUrl = /\]\((https:\/\/[^)]+)\)/.exec(String(done.output.summary))?.[1];
    const own = runUrl ? [runUrl] : [];
    expectInert([done.output], own);
    const [review] = h.github.bodiesOf('POST', '/pulls/90/reviews');
    expect(review.comments).toHaveLength(1);
    expectInert([review], own);
    const [body] = h.github.bodiesOf('PATCH', '/pulls/90');
    expectInert([body.body], own, false);

    const id = /finding `([0-9a-f]{12})`/.exec(String(done.output.text))![1]!;
    h.github.getPr(pr).reaction(9001).createComment(90);
    await h.receive('issue_comment', commentEvent(90, `/slopgate explain ${id}`, 'passer-by'));
    await h.idle();
    const [explained] = h.github.bodiesOf('POST', '/issues/90/comments');
    expect(explained.body).toContain(`**Finding \`${id}\`**`);
    expectInert([explained.body], []);

    h.github.reaction(9001).createComment(90);
    await h.receive('issue_comment', commentEvent(90, `/slopgate a\`${HOSTILE}\``, 'passer-by'));
    await h.idle();
    const replies = h.github.bodiesOf('POST', '/issues/90/comments');
    expect(replies).toHaveLength(2);
    expect(replies[1].body).toContain('is not a slopgate command');
    expectInert([replies[1].body], []);
  }, 120_000);
});
