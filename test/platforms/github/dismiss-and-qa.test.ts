import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BODY_START } from '../../../src/host/pr-body.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { startLlmServer, type LlmServer } from '../../helpers/llm-server.js';
import { FakeRemote, removeFakeRemotes } from '../../helpers/fake-remote.js';
import { closeStrict, startHarness, type Harness } from './helpers/harness.js';
import { OWNER, REPO, commentEvent, pullRequestEvent, type PrShape } from './helpers/payloads.js';
import { markerGuard } from '../../helpers/test-guards.js';

/**
 * `/slopgate dismiss` and the Q&A block of the PR body through the whole App (Probot, the runtime,
 * the queue) against the strict fake GitHub: every request is declared, and none may be left over.
 */
let h: Harness | undefined;
let store: Store;
beforeAll(async () => {
  store = await openStore();
});
afterEach(() => {
  closeStrict(h);
  h = undefined;
  vi.unstubAllEnvs();
});
afterAll(async () => {
  await store.close();
  removeFakeRemotes();
});

const R = `/repos/${OWNER}/${REPO}`;
const FULL = `${OWNER}/${REPO}`;
const TIMEOUT = 120_000;

/** GET …/commits/<sha>/check-runs?check_name=slopgate… (the dismiss command's fallback when the store has no run). */
function checkRunsForRef(hh: Harness, sha: string, runs: { id: number; text: string }[]): void {
  hh.github.scope
    .get(`${R}/commits/${sha}/check-runs`)
    .query({ check_name: 'slopgate', filter: 'latest', per_page: 10 })
    .reply(200, {
      total_count: runs.length,
      check_runs: runs.map((r) => ({ id: r.id, name: 'slopgate', head_sha: sha, output: { title: 't', summary: 's', text: r.text } })),
    });
}

/** Opens PR `n` (added line 2 holds the SLOP marker) in a fresh harness and gates it once; returns the finding id. */
async function gateSlopPr(
  n: number,
  checkRunId: number,
  withStore: boolean,
): Promise<{ pr: PrShape; remote: FakeRemote; id: string; text: string }> {
  const remote = FakeRemote.create({ 'a.txt': 'one\n' });
  const head = remote.pushPr(n, { 'a.txt': 'one\ntwo SLOP\n' });
  const pr: PrShape = { number: n, headSha: head, baseSha: remote.baseSha, author: 'Codertocat' };
  h = await startHarness(remote, { guards: [markerGuard], ...(withStore ? { store } : {}) });
  h.github.token().createCheckRun(checkRunId).gateJob(pr, checkRunId, { review: true });
  await h.receive('pull_request', pullRequestEvent('opened', pr));
  await h.idle();
  const [done] = h.github.bodiesOf('PATCH', `/check-runs/${checkRunId}`);
  expect(done.conclusion).toBe('failure');
  const id = /finding `([0-9a-f]{12})`/.exec(done.output.text)?.[1];
  expect(id).toBeTruthy();
  return { pr, remote, id: id!, text: done.output.text };
}

describe('/slopgate dismiss in the App', { timeout: TIMEOUT }, () => {
  it('a maintainer dismisses a finding: 👍, an escaped reply, stored, and the re-gate passes with it shown as dismissed', async () => {
    const { pr, id } = await gateSlopPr(90, 901, true);
    h!.github.getPr(pr).permission('maint', 'write').reaction(9001).createComment(90);
    h!.github.createCheckRun(902).gateJob(pr, 902);

    await h!.receive('issue_comment', commentEvent(90, `/slopgate dismiss ${id} fixture data <!-- slopgate:allow:x --> @team`, 'maint'));
    await h!.idle();

    expect(h!.github.bodiesOf('POST', '/reactions')).toEqual([{ content: '+1' }]);
    const [reply] = h!.github.bodiesOf('POST', '/issues/90/comments');
    expect(reply.body).toContain(`Dismissed by @maint: finding \`${id}\``);
    expect(reply.body).not.toContain('<!-- slopgate:allow');
    expect(reply.body).not.toContain('@team');
    expect(await store.listDismissals(FULL, 90)).toEqual([expect.objectContaining({ fingerprint: id, by: 'maint', source: 'command' })]);
    const [regate] = h!.github.bodiesOf('PATCH', '/check-runs/902');
    expect(regate.conclusion).toBe('success');
    expect(regate.output.text).toContain('(dismissed)');
    expect(regate.output.annotations ?? []).toEqual([]);
    // The PR body section is rewritten for the new verdict (once per run).
    const bodies = h!.github.bodiesOf('PATCH', '/pulls/90');
    expect(bodies.at(-1).body.split(BODY_START)).toHaveLength(2);
    expect(bodies.at(-1).body).toContain('**PASS**');
  });

  it('a user with read access is refused with 😕 and nothing is recorded', async () => {
    h = await startHarness(null, { guards: [markerGuard], store });
    const pr: PrShape = { number: 91, headSha: 'a'.repeat(40), baseSha: 'b'.repeat(40), author: 'Codertocat' };
    h.github.token().getPr(pr).permission('reader', 'read').reaction(9001).createComment(91);

    await h.receive('issue_comment', commentEvent(91, '/slopgate dismiss 0123456789ab not my problem', 'reader'));
    await h.idle();

    expect(h.github.bodiesOf('POST', '/reactions')).toEqual([{ content: 'confused' }]);
    expect(h.github.bodiesOf('POST', '/issues/91/comments')[0].body).toContain('`/slopgate dismiss` needs write access');
    expect(await store.listDismissals(FULL, 91)).toEqual([]);
  });

  it('an unknown id (neither stored nor in the check run) is refused, and nothing is re-gated', async () => {
    h = await startHarness(null, { guards: [markerGuard], store });
    const pr: PrShape = { number: 92, headSha: 'c'.repeat(40), baseSha: 'b'.repeat(40) };
    h.github.token().getPr(pr).permission('maint', 'admin').reaction(9001).createComment(92);
    checkRunsForRef(h, pr.headSha, [
      { id: 921, text: '### ❌ fail · todo-marker · a.txt line 2\n\nx\n\n_guard G99 · finding `0123456789ab`_\n' },
    ]);

    await h.receive('issue_comment', commentEvent(92, '/slopgate dismiss deadbeef0000 it is fine', 'maint'));
    await h.idle();

    expect(h.github.bodiesOf('POST', '/reactions')).toEqual([{ content: 'confused' }]);
    expect(h.github.bodiesOf('POST', '/issues/92/comments')[0].body).toContain('no finding `deadbeef0000`');
    expect(await store.listDismissals(FULL, 92)).toEqual([]);
  });

  it('a malformed command (no reason) is answered with the usage, before any lookup', async () => {
    h = await startHarness(null, { guards: [markerGuard], store });
    h.github.token().reaction(9001).createComment(93);
    await h.receive('issue_comment', commentEvent(93, '/slopgate dismiss 0123456789ab', 'maint'));
    await h.idle();
    expect(h.github.bodiesOf('POST', '/reactions')).toEqual([{ content: 'confused' }]);
    expect(h.github.bodiesOf('POST', '/issues/93/comments')[0].body).toContain('a reason is required');
  });

  it('without a store the App says so clearly and re-gates nothing', async () => {
    h = await startHarness(null, { guards: [markerGuard] });
    const pr: PrShape = { number: 94, headSha: 'a'.repeat(40), baseSha: 'b'.repeat(40) };
    h.github.token().getPr(pr).permission('maint', 'admin').reaction(9001).createComment(94);
    await h.receive('issue_comment', commentEvent(94, '/slopgate dismiss 0123456789ab fixture', 'maint'));
    await h.idle();
    expect(h.github.bodiesOf('POST', '/reactions')).toEqual([{ content: 'confused' }]);
    expect(h.github.bodiesOf('POST', '/issues/94/comments')[0].body).toContain('keeps no store');
  });

  it("when the store holds no run of the head, the finding is found in the check run's text", async () => {
    // First gated by an App without a store; then an App with one receives the command.
    const { pr, remote, id, text } = await gateSlopPr(95, 951, false);
    closeStrict(h);
    h = await startHarness(remote, { guards: [markerGuard], store });
    h.github.token().getPr(pr).permission('maint', 'write').reaction(9001).createComment(95);
    checkRunsForRef(h, pr.headSha, [{ id: 951, text }]);
    h.github.createCheckRun(952).gateJob(pr, 952);

    await h.receive('issue_comment', commentEvent(95, `/slopgate dismiss ${id} fixture`, 'maint'));
    await h.idle();

    expect(await store.listDismissals(FULL, 95)).toEqual([expect.objectContaining({ fingerprint: id, category: 'todo-marker' })]);
    expect(h.github.bodiesOf('PATCH', '/check-runs/952')[0].conclusion).toBe('success');
  });
});

describe('Q&A in the App', { timeout: TIMEOUT }, () => {
  let llm: LlmServer | undefined;
  afterEach(async () => {
    await llm?.close();
    llm = undefined;
  });

  it('a crash (the model server answers 500 until the retries run out) puts the CRASHED block in the PR body; no pass', async () => {
    llm = await startLlmServer();
    llm.reply({ status: 500 }, { status: 500 });
    vi.stubEnv('SLOPGATE_LLM_BASE_URL', llm.baseUrl);
    vi.stubEnv('SLOPGATE_LLM_MODEL', 'local-model');
    vi.stubEnv('SLOPGATE_LLM_MAX_RETRIES', '1');
    const remote = FakeRemote.create({ 'a.txt': 'one\n' });
    const head = remote.pushPr(96, { 'a.txt': 'one\ntwo\n' });
    const pr: PrShape = { number: 96, headSha: head, baseSha: remote.baseSha, body: 'Adds line two.' };
    h = await startHarness(remote, { guards: [markerGuard] });
    nock.enableNetConnect('127.0.0.1');
    h.github.token().createCheckRun(961).getPr(pr).config('.github/slopgate.yml', 'qa:\n  enabled: true\n');
    h.github.issueComments(96).updateCheckRun(961).reviewComments(96).getPr(pr).updatePr(96).addLabels(96);

    await h.receive('pull_request', pullRequestEvent('opened', pr));
    await h.idle();

    llm.assertDone();
    const [done] = h.github.bodiesOf('PATCH', '/check-runs/961');
    expect(done.conclusion).not.toBe('success');
    expect(done.output.summary).toContain('Q&A: crashed');
    const [{ body }] = h.github.bodiesOf('PATCH', '/pulls/96');
    expect(body.startsWith('Adds line two.')).toBe(true);
    expect(body).toContain('Q&A self-consistency phase CRASHED');
    expect(body).toContain('Treat this PR as ungated');
    expect(body).toContain('HTTP 500');
    // nock reports the model server's requests (let through to 127.0.0.1) as unmatched; they were the
    // scripted ones (assertDone above). Anything else stays for closeStrict to fail on.
    expect(llm.requests).toHaveLength(2);
    const unmatched = h.github.unmatched;
    for (let i = unmatched.length - 1; i >= 0; i--) if (unmatched[i] === 'POST /v1/chat/completions') unmatched.splice(i, 1);
  });
});
