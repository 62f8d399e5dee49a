import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runGate, type GateOptions } from '../../src/gate/run-gate.js';
import { g1 } from '../../src/guards/g1-manifest-safety/index.js';
import { FakeRemote, removeFakeRemotes } from './helpers/fake-remote.js';
import { closeStrict, startHarness, type Harness } from './helpers/harness.js';
import { pullRequestEvent, type Json, type PrShape } from './helpers/payloads.js';
import { markerGuard } from './helpers/test-guards.js';

let h: Harness | undefined;
afterEach(() => {
  closeStrict(h);
  h = undefined;
});
afterAll(() => removeFakeRemotes());

/** pull_request.labeled / unlabeled: the real example shape with the label that changed. */
function labelEvent(action: 'labeled' | 'unlabeled', pr: PrShape, label: string): Json {
  const payload = pullRequestEvent(action, pr);
  payload.label = { id: 900, node_id: 'LA_900', url: '', name: label, color: 'ededed', default: false, description: null };
  return payload;
}

describe('pull_request.ready_for_review', () => {
  it('a draft skipped as draft is gated once it is marked ready for review', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'one\n' });
    const head = remote.pushPr(90, { 'a.txt': 'one\ntwo SLOP\n' });
    const draft: PrShape = { number: 90, headSha: head, baseSha: remote.baseSha, draft: true };
    const ready: PrShape = { ...draft, draft: false };
    h = await startHarness(remote, { guards: [markerGuard] });
    h.github.token().createCheckRun(901).getPr(draft).noConfig().updateCheckRun(901);
    await h.receive('pull_request', pullRequestEvent('opened', draft));
    await h.idle();
    expect(h.github.bodiesOf('PATCH', '/check-runs/901')[0]).toMatchObject({ conclusion: 'neutral', output: { title: 'Skipped: draft' } });

    h.github.createCheckRun(902).gateJob(ready, 902, { review: true });
    await h.receive('pull_request', pullRequestEvent('ready_for_review', ready));
    await h.idle();

    const created = h.github.bodiesOf('POST', '/check-runs');
    expect(created.map((c) => c.head_sha)).toEqual([head, head]);
    const [done] = h.github.bodiesOf('PATCH', '/check-runs/902');
    expect(done).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(done.output.annotations.map((a: { path: string; start_line: number }) => [a.path, a.start_line])).toEqual([['a.txt', 2]]);
  });
});

describe('pull_request.labeled / unlabeled', () => {
  it('adding slopgate:allow-manifest re-gates and sanctions the manifest edit (G1); removing it re-gates and the finding returns', async () => {
    const remote = FakeRemote.create({ 'package.json': '{\n  "name": "demo",\n  "dependencies": {}\n}\n' });
    const head = remote.pushPr(91, { 'package.json': '{\n  "name": "demo",\n  "dependencies": {\n    "left-pad": "1.3.0"\n  }\n}\n' });
    const labelled: PrShape = { number: 91, headSha: head, baseSha: remote.baseSha, labels: ['slopgate:allow-manifest'] };
    const bare: PrShape = { ...labelled, labels: [] };
    h = await startHarness(remote, { guards: [g1] });

    h.github.token().createCheckRun(911).gateJob(labelled, 911);
    await h.receive('pull_request', labelEvent('labeled', labelled, 'slopgate:allow-manifest'));
    await h.idle();
    const [sanctioned] = h.github.bodiesOf('PATCH', '/check-runs/911');
    expect(sanctioned).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(sanctioned.output.annotations ?? []).toEqual([]);

    h.github.createCheckRun(912).gateJob(bare, 912, { review: true });
    await h.receive('pull_request', labelEvent('unlabeled', bare, 'slopgate:allow-manifest'));
    await h.idle();
    const [unsanctioned] = h.github.bodiesOf('PATCH', '/check-runs/912');
    expect(unsanctioned.status).toBe('completed');
    expect(unsanctioned.conclusion).toBe('neutral');
    const g1Annotations = unsanctioned.output.annotations.filter((a: { title: string }) => a.title.startsWith('G1'));
    expect(g1Annotations.map((a: { path: string }) => a.path)).toEqual(['package.json']);
    expect(g1Annotations[0].message).toContain('left-pad');
    const [review] = h.github.bodiesOf('POST', '/pulls/91/reviews');
    expect(review.comments.map((c: { path: string }) => c.path)).toEqual(['package.json']);
    expect(h.github.bodiesOf('POST', '/check-runs').map((c) => c.head_sha)).toEqual([head, head]);
  });

  it('any other label, added or removed, changes nothing: no request at all', async () => {
    h = await startHarness(null, { guards: [g1] });
    const pr: PrShape = { number: 92, headSha: 'a'.repeat(40), baseSha: 'b'.repeat(40), labels: ['bug'] };
    await h.receive('pull_request', labelEvent('labeled', pr, 'bug'));
    await h.receive('pull_request', labelEvent('unlabeled', { ...pr, labels: [] }, 'bug'));
    // A look-alike is not the sanction label.
    await h.receive('pull_request', labelEvent('labeled', pr, 'slopgate:allow-manifests'));
    await h.idle();
    expect(h.github.captured).toEqual([]);
  });
});

describe('pull_request.synchronize while the previous head is still queued', () => {
  it('the queued job of the older head never runs: its check run completes cancelled "Superseded by <newer sha>"', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'one\n' });
    const busyHead = remote.pushPr(93, { 'a.txt': 'busy\n' });
    const first = remote.pushPr(94, { 'a.txt': 'first SLOP\n' });
    const busy: PrShape = { number: 93, headSha: busyHead, baseSha: remote.baseSha };
    // One job at a time: PR 93 holds the only slot, so PR 94's first head waits in the queue.
    let entered!: () => void;
    const inGate = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const gated: string[] = [];
    const gate = async (opts: GateOptions) => {
      gated.push(opts.head);
      if (gated.length === 1) {
        entered();
        await released;
      }
      return runGate(opts);
    };
    h = await startHarness(remote, { guards: [markerGuard], gate, concurrency: 1 });
    h.github.token().createCheckRun(930).gateJob(busy, 930);
    await h.receive('pull_request', pullRequestEvent('opened', busy));
    await inGate;

    const pr1: PrShape = { number: 94, headSha: first, baseSha: remote.baseSha };
    h.github.createCheckRun(941).updateCheckRun(941);
    await h.receive('pull_request', pullRequestEvent('opened', pr1));
    const second = remote.pushPr(94, { 'a.txt': 'second\n' });
    const pr2: PrShape = { number: 94, headSha: second, baseSha: remote.baseSha };
    h.github.createCheckRun(942).gateJob(pr2, 942);
    await h.receive('pull_request', pullRequestEvent('synchronize', pr2));
    // Wait for the older run to be closed out while PR 93 still holds the slot.
    await vi.waitFor(() => expect(h!.github.bodiesOf('PATCH', '/check-runs/941')).toHaveLength(1));
    release();
    await h.idle();

    const [cancelled] = h.github.bodiesOf('PATCH', '/check-runs/941');
    expect(cancelled).toMatchObject({
      status: 'completed',
      conclusion: 'cancelled',
      output: { title: `Superseded by ${second.slice(0, 7)}` },
    });
    expect(gated).toEqual([busyHead, second]);
    expect(h.github.bodiesOf('PATCH', '/check-runs/942')[0]).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(h.github.bodiesOf('PATCH', '/check-runs/930')[0]).toMatchObject({ status: 'completed', conclusion: 'success' });
  });
});
