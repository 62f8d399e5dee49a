import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runGate, type GateOptions } from '../../../src/gate/run-gate.js';
import { g1 } from '../../../src/guards/g1-manifest-safety/index.js';
import { FakeRemote, removeFakeRemotes } from '../../helpers/fake-remote.js';
import { closeStrict, startHarness, type Harness } from './helpers/harness.js';
import { APP_ID, pullRequestEvent, type Json, type PrShape } from './helpers/payloads.js';
import { markerGuard } from '../../helpers/test-guards.js';

let h: Harness | undefined;
afterEach(() => {
  closeStrict(h);
  h = undefined;
});
afterAll(() => removeFakeRemotes());

/** pull_request.labeled / unlabeled: the real example shape with the label that changed and who changed it. */
function labelEvent(action: 'labeled' | 'unlabeled', pr: PrShape, label: string, sender = 'Codertocat'): Json {
  const payload = pullRequestEvent(action, pr);
  payload.label = { id: 900, node_id: 'LA_900', url: '', name: label, color: 'ededed', default: false, description: null };
  payload.sender = { ...payload.sender, login: sender, type: 'User' };
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
  const BASE = '{\n  "name": "demo",\n  "dependencies": {}\n}\n';
  const WITH_PAD = '{\n  "name": "demo",\n  "dependencies": {\n    "left-pad": "1.3.0"\n  }\n}\n';

  /** The gate job's requests, with the PR's comments as the App would read them back. */
  function gateJobReading(h: Harness, pr: PrShape, checkRunId: number, comments: () => unknown[], review = false): void {
    h.github
      .createCheckRun(checkRunId)
      .getPr(pr)
      .noConfig()
      .issueComments(pr.number, comments)
      .updateCheckRun(checkRunId)
      .reviewComments(pr.number);
    if (review) h.github.createReview(pr.number);
    h.github.getPr(pr).updatePr(pr.number);
  }

  /** The App's own comments so far (what the job reads back as sanctions). */
  function ownComments(h: Harness, n: number): unknown[] {
    return h.github.bodiesOf('POST', `/issues/${n}/comments`).map((c, i) => ({
      id: i + 1,
      body: c.body,
      user: { login: 'slopgate[bot]', type: 'Bot' },
      performed_via_github_app: { id: APP_ID },
    }));
  }

  it("a maintainer's label sanctions the manifest as it is; removing it, or a push that changes the file, brings the finding back", async () => {
    const remote = FakeRemote.create({ 'package.json': BASE });
    const head = remote.pushPr(91, { 'package.json': WITH_PAD });
    const blob = remote.work.git('rev-parse', `${head}:package.json`).trim();
    const labelled: PrShape = { number: 91, headSha: head, baseSha: remote.baseSha, labels: ['slopgate:allow-manifest'] };
    const bare: PrShape = { ...labelled, labels: [] };
    h = await startHarness(remote, { guards: [g1] });

    // The sender's role is asked first; the grant records package.json's blob at this head.
    h.github
      .token()
      .getPr(labelled)
      .permission('maint', 'maintain')
      .listFiles(91, [{ path: 'package.json', blob }])
      .getPr(labelled)
      .createComment(91);
    gateJobReading(h, labelled, 911, () => ownComments(h!, 91));
    await h.receive('pull_request', labelEvent('labeled', labelled, 'slopgate:allow-manifest', 'maint'));
    await h.idle();
    const [reply] = h.github.bodiesOf('POST', '/issues/91/comments');
    expect(reply.body).toContain(`label added by @maint allows the build-manifest edits of this PR as they are at \`${head.slice(0, 7)}\``);
    expect(reply.body).toMatch(/<!-- slopgate:grant:[\w-]+\.[\w-]+ -->$/);
    const [sanctioned] = h.github.bodiesOf('PATCH', '/check-runs/911');
    expect(sanctioned).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(sanctioned.output.annotations ?? []).toEqual([]);
    expect(sanctioned.output.summary).toContain('`package.json` is allowed by the `slopgate:allow-manifest` label added by @');

    // Removed: no permission needed (the gate only gets stricter); the finding returns.
    h.github.getPr(bare);
    gateJobReading(h, bare, 912, () => ownComments(h!, 91), true);
    await h.receive('pull_request', labelEvent('unlabeled', bare, 'slopgate:allow-manifest', 'someone'));
    await h.idle();
    const [unsanctioned] = h.github.bodiesOf('PATCH', '/check-runs/912');
    expect(unsanctioned.conclusion).toBe('neutral');
    const g1Annotations = unsanctioned.output.annotations.filter((a: { title: string }) => a.title.startsWith('G1'));
    expect(g1Annotations.map((a: { path: string }) => a.path)).toEqual(['package.json']);
    expect(g1Annotations[0].message).toContain('left-pad');

    // The label is back on, but a push changed package.json since the grant: the sanction lapsed.
    const pushed = remote.pushPr(91, { 'package.json': WITH_PAD.replace('1.3.0', '1.3.1') });
    const after: PrShape = { ...labelled, headSha: pushed };
    h.github
      .createCheckRun(913)
      .getPr(after)
      .noConfig()
      .issueComments(91, () => ownComments(h!, 91))
      .updateCheckRun(913)
      .reviewComments(91, []);
    h.github.createReview(91).getPr(after).updatePr(91);
    await h.receive('pull_request', pullRequestEvent('synchronize', after));
    await h.idle();
    const [lapsed] = h.github.bodiesOf('PATCH', '/check-runs/913');
    expect(lapsed.conclusion).toBe('neutral');
    expect(lapsed.output.summary).toMatch(
      /The allow for `package\.json` given at `\w{7}` \(the `slopgate:allow-manifest` label added by @\S+\) lapsed: the file changed since/,
    );
  });

  it("a triage user's label allows nothing: slopgate says so, and so does the check run; the PR author's own label neither", async () => {
    const remote = FakeRemote.create({ 'package.json': BASE });
    const head = remote.pushPr(95, { 'package.json': WITH_PAD });
    const labelled: PrShape = { number: 95, headSha: head, baseSha: remote.baseSha, labels: ['slopgate:allow-manifest'], author: 'writer' };
    h = await startHarness(remote, { guards: [g1] });

    h.github.token().getPr(labelled).permission('tri', 'triage').createComment(95);
    gateJobReading(h, labelled, 951, () => ownComments(h!, 95), true);
    await h.receive('pull_request', labelEvent('labeled', labelled, 'slopgate:allow-manifest', 'tri'));
    await h.idle();
    const [refused] = h.github.bodiesOf('POST', '/issues/95/comments');
    expect(refused.body).toContain('@tri, adding the `slopgate:allow-manifest` label needs write access');
    expect(refused.body).toContain('your role here is `triage`');
    expect(refused.body).not.toContain('slopgate:grant');
    const [run] = h.github.bodiesOf('PATCH', '/check-runs/951');
    expect(run.conclusion).toBe('neutral');
    expect(run.output.annotations.map((a: { path: string }) => a.path)).toEqual(['package.json']);
    expect(run.output.summary).toContain('label is on this PR but allows nothing: no one with write access added it');

    // The PR's own author, with write access, cannot sanction their own PR either.
    h.github.getPr(labelled).permission('writer', 'write').createComment(95);
    gateJobReading(h, labelled, 952, () => ownComments(h!, 95), true);
    await h.receive('pull_request', labelEvent('labeled', labelled, 'slopgate:allow-manifest', 'writer'));
    await h.idle();
    const second = h.github.bodiesOf('POST', '/issues/95/comments')[1];
    expect(second.body).toContain("cannot come from the pull request's own author");
    expect(h.github.bodiesOf('PATCH', '/check-runs/952')[0].conclusion).toBe('neutral');
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
