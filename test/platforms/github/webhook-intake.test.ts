import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../../src/queue/sleep.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { FakeRemote, removeFakeRemotes } from '../../helpers/fake-remote.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { pullRequestEvent, type PrShape } from './helpers/payloads.js';
import { markerGuard } from '../../helpers/test-guards.js';

const harnesses: Harness[] = [];
/** One embedded (PGlite) store for the file: delivery ids differ per test. */
let store: Store;
let recordDelivery: Store['recordDelivery'];

beforeAll(async () => {
  store = await openStore();
  recordDelivery = store.recordDelivery.bind(store);
});
afterEach(() => {
  store.recordDelivery = recordDelivery;
  const pending = nock.pendingMocks();
  const unmatched = harnesses.flatMap((h) => h.github.unmatched);
  for (const h of harnesses.splice(0)) h.close();
  expect(unmatched, 'requests nobody expected').toEqual([]);
  expect(pending, 'expected requests that never came').toEqual([]);
});
afterAll(async () => {
  await store.close();
  removeFakeRemotes();
});

/** The store, with its delivery insert held until the test releases it. */
function slowDeliveryStore(): { store: Store; inserts: string[]; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const inserts: string[] = [];
  store.recordDelivery = async (id: string) => {
    inserts.push(id);
    await released;
    return recordDelivery(id);
  };
  return { store, inserts, release };
}

async function acknowledged(receiving: Promise<void>): Promise<void> {
  const stuck = sleep(10_000).then(() => {
    throw new Error('the webhook was not answered while the store insert was pending');
  });
  await Promise.race([receiving, stuck]);
}

describe('webhook intake: the answer does not wait on the database', () => {
  it('answers while the delivery insert is pending, queues the job only after it, and a redelivery racing it runs once', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'x\n' });
    const head = remote.pushPr(50, { 'a.txt': 'y\n' });
    const pr: PrShape = { number: 50, headSha: head, baseSha: remote.baseSha };
    const slow = slowDeliveryStore();
    const h = await startHarness(remote, { guards: [markerGuard], store: slow.store });
    harnesses.push(h);
    h.github.token().createCheckRun(501).gateJob(pr, 501);

    const payload = pullRequestEvent('opened', pr);
    await acknowledged(
      Promise.all([h.receive('pull_request', payload, 'delivery-50'), h.receive('pull_request', payload, 'delivery-50')]).then(
        () => undefined,
      ),
    );

    // Both deliveries are answered; the store was asked once and nothing reached GitHub yet.
    expect(slow.inserts).toEqual(['delivery-50']);
    expect(h.github.captured).toEqual([]);
    slow.release();
    await h.idle();
    expect(h.github.bodiesOf('POST', '/check-runs')).toHaveLength(1);
    expect(h.github.bodiesOf('PATCH', '/check-runs/501')[0]).toMatchObject({ status: 'completed', conclusion: 'success' });
  });

  it('one delivery received by two App processes sharing a store at the same moment is gated by exactly one of them', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'x\n' });
    const head = remote.pushPr(51, { 'a.txt': 'y\n' });
    const pr: PrShape = { number: 51, headSha: head, baseSha: remote.baseSha };
    const a = await startHarness(remote, { guards: [markerGuard], store });
    const b = await startHarness(remote, { guards: [markerGuard], store });
    harnesses.push(a, b);
    // One token, one check run, one gate: whichever process wins the store's insert does it all.
    a.github.token().createCheckRun(511).gateJob(pr, 511);

    const payload = pullRequestEvent('opened', pr);
    await Promise.all([a.receive('pull_request', payload, 'delivery-51'), b.receive('pull_request', payload, 'delivery-51')]);
    await Promise.all([a.idle(), b.idle()]);

    expect(a.github.bodiesOf('POST', '/check-runs')).toHaveLength(1);
    expect(a.github.bodiesOf('PATCH', '/check-runs/511')).toHaveLength(1);
  });
});
