import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BODY_END, BODY_START } from '../../../src/host/pr-body.js';
import { TOKEN } from './helpers/fake-github.js';
import { FakeRemote, removeFakeRemotes } from '../../helpers/fake-remote.js';
import { closeStrict, startHarness, type Harness } from './helpers/harness.js';
import { commentEvent, pullRequestEvent, type PrShape } from './helpers/payloads.js';
import { markerGuard } from '../../helpers/test-guards.js';

let h: Harness | undefined;

afterEach(() => {
  closeStrict(h);
  h = undefined;
});
afterAll(() => removeFakeRemotes());

const lines = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i + 1)).join('\n') + '\n';

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

describe('github app: pull request events', () => {
  it('gates a clean PR: in_progress check run at once, success at the end, PR body section added', async () => {
    const remote = FakeRemote.create({ 'src/app.py': 'def main():\n    return 1\n' });
    const head = remote.pushPr(1, { 'src/app.py': 'def main():\n    return 2\n' });
    const pr: PrShape = { number: 1, headSha: head, baseSha: remote.baseSha };
    h = await startHarness(remote, { guards: [markerGuard] });
    h.github.token().createCheckRun(11).gateJob(pr, 11);

    await h.receive('pull_request', pullRequestEvent('opened', pr));
    await h.idle();

    const [created] = h.github.bodiesOf('POST', '/check-runs');
    expect(created).toMatchObject({ name: 'slopgate', head_sha: head, status: 'in_progress', external_id: 'slopgate:pr:1' });
    const [done] = h.github.bodiesOf('PATCH', '/check-runs/11');
    expect(done).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(done.actions.map((a: { identifier: string }) => a.identifier)).toEqual(['rerun']);
    const [prUpdate] = h.github.bodiesOf('PATCH', '/pulls/1');
    expect(prUpdate.body.startsWith('Adds a feature.')).toBe(true);
    expect(prUpdate.body.split(BODY_START)).toHaveLength(2);
    expect(prUpdate.body).toContain(BODY_END);
    expect(prUpdate.body).toContain('**PASS**');
    expect(prUpdate.body).toContain('Not run:');
  });

  it('blocking findings: failure, 121 findings folded to 100 (99 annotations in 2 update requests), review comments only on added lines and within the budget', async () => {
    const remote = FakeRemote.create({ 'legacy.txt': 'keep\nlegacy SLOP line\nkeep\n' });
    const head = remote.pushPr(2, {
      'new.txt': lines(120, (i) => `item ${i} SLOP`),
      'legacy.txt': 'keep\nlegacy SLOP line\nkeep\nadded\n',
    });
    const pr: PrShape = { number: 2, headSha: head, baseSha: remote.baseSha };
    h = await startHarness(remote, { guards: [markerGuard] });
    h.github.token().createCheckRun(12).gateJob(pr, 12, { updates: 2, review: true });

    await h.receive('pull_request', pullRequestEvent('opened', pr));
    await h.idle();

    const updates = h.github.bodiesOf('PATCH', '/check-runs/12');
    // 121 findings of one kind: 99 one by one and one that folds the other 22 (and has no line of its own).
    expect(updates.map((u) => u.output.annotations?.length ?? 0)).toEqual([50, 49]);
    expect(updates.map((u) => u.status)).toEqual(['in_progress', 'completed']);
    expect(updates[1].conclusion).toBe('failure');
    expect(updates[1].output.title).toContain('121 blocking');
    expect(updates[1].output.summary).toContain('22 more todo-marker findings of G99 are folded into this one');
    const [review] = h.github.bodiesOf('POST', '/pulls/2/reviews');
    expect(review.event).toBe('COMMENT');
    expect(review.commit_id).toBe(head);
    expect(review.comments).toHaveLength(25);
    for (const c of review.comments) {
      expect(c.path).toBe('new.txt');
      expect(c.side).toBe('RIGHT');
      expect(c.body).toMatch(/<!-- slopgate:finding:[0-9a-f]+ -->/);
    }
    // The pre-existing SLOP line of legacy.txt is not on the diff: annotation only.
    expect(review.comments.some((c: { path: string }) => c.path === 'legacy.txt')).toBe(false);
    const annotated = updates.flatMap((u) => u.output.annotations ?? []);
    expect(annotated.some((a: { path: string; start_line: number }) => a.path === 'legacy.txt' && a.start_line === 2)).toBe(true);
    expect(review.body).toContain('73 more findings');
  });

  it('a re-push does not repeat comments, adds the new one with a suggestion, and resolves the fixed one', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'top\n' });
    const first = remote.pushPr(3, { 'a.txt': 'top\nalpha SLOP\nbeta SLOP\n' });
    const pr1: PrShape = { number: 3, headSha: first, baseSha: remote.baseSha };
    h = await startHarness(remote, { guards: [markerGuard] });
    h.github.token().createCheckRun(21).gateJob(pr1, 21, { review: true });
    await h.receive('pull_request', pullRequestEvent('opened', pr1));
    await h.idle();
    const [review1] = h.github.bodiesOf('POST', '/pulls/3/reviews');
    expect(review1.comments.map((c: { line: number }) => c.line)).toEqual([2, 3]);

    // What GitHub would now list: the two bot comments of the first review.
    const existing = review1.comments.map((c: { path: string; line: number; body: string }, i: number) => ({
      id: 500 + i,
      node_id: `PRRC_${i}`,
      path: c.path,
      line: c.line,
      body: c.body,
      user: { login: 'slopgate[bot]', type: 'Bot' },
    }));
    // Force-push: line 2 unchanged (same finding), line 3 fixed, line 4 new and fixable.
    const second = remote.pushPr(3, { 'a.txt': 'top\nalpha SLOP\nbeta\ngamma SLOP FIXABLE\n' });
    const pr2: PrShape = { number: 3, headSha: second, baseSha: remote.baseSha };
    h.github.createCheckRun(22).gateJob(pr2, 22, { review: true, existingComments: existing });
    const thread = (id: string, commentId: number) => ({ id, isResolved: false, comments: { nodes: [{ databaseId: commentId }] } });
    h.github
      .graphql({ repository: { pullRequest: { reviewThreads: { nodes: [thread('PRRT_0', 500), thread('PRRT_1', 501)] } } } })
      .graphql({ r0: { thread: { isResolved: true } } });
    await h.receive('pull_request', pullRequestEvent('synchronize', pr2));
    await h.idle();

    const reviews = h.github.bodiesOf('POST', '/pulls/3/reviews');
    expect(reviews).toHaveLength(2);
    const [only] = reviews[1].comments;
    expect(reviews[1].comments).toHaveLength(1);
    expect(only.line).toBe(4);
    expect(only.body).toContain('```suggestion\ngamma\n```');
    // The thread of the fixed finding (comment 501) is resolved; the still-open one's is left alone.
    const [query, mutation] = h.github.bodiesOf('POST', '/graphql');
    expect(query.query).toContain('reviewThreads');
    expect(mutation.query).toContain('resolveReviewThread');
    expect(mutation.variables).toEqual({ t0: 'PRRT_1' });
  });

  it('with SLOPGATE_RESOLVE_THREADS=false (resolveThreads: false) the comment of the fixed finding is minimised instead', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'top\n' });
    const first = remote.pushPr(3, { 'a.txt': 'top\nalpha SLOP\nbeta SLOP\n' });
    const pr1: PrShape = { number: 3, headSha: first, baseSha: remote.baseSha };
    h = await startHarness(remote, { guards: [markerGuard], resolveThreads: false });
    h.github.token().createCheckRun(21).gateJob(pr1, 21, { review: true });
    await h.receive('pull_request', pullRequestEvent('opened', pr1));
    await h.idle();
    const [review1] = h.github.bodiesOf('POST', '/pulls/3/reviews');
    const existing = review1.comments.map((c: { path: string; line: number; body: string }, i: number) => ({
      id: 500 + i,
      node_id: `PRRC_${i}`,
      path: c.path,
      line: c.line,
      body: c.body,
      user: { login: 'slopgate[bot]', type: 'Bot' },
    }));
    const second = remote.pushPr(3, { 'a.txt': 'top\nalpha SLOP\nbeta\n' });
    const pr2: PrShape = { number: 3, headSha: second, baseSha: remote.baseSha };
    h.github.createCheckRun(22).gateJob(pr2, 22, { review: false, existingComments: existing });
    h.github.graphql({ nodes: [{ id: 'PRRC_1', isMinimized: false }] }).graphql({ m0: { minimizedComment: { isMinimized: true } } });
    await h.receive('pull_request', pullRequestEvent('synchronize', pr2));
    await h.idle();
    const [query, mutation] = h.github.bodiesOf('POST', '/graphql');
    expect(query.variables.ids).toEqual(['PRRC_1']);
    expect(mutation.query).toContain('minimizeComment');
    expect(mutation.variables).toEqual({ id0: 'PRRC_1' });
  });

  it('invalid config on the default branch fails the check as a config error with the line, without cloning', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'x\n' });
    const head = remote.pushPr(4, { 'a.txt': 'y\n' });
    const pr: PrShape = { number: 4, headSha: head, baseSha: remote.baseSha };
    h = await startHarness(remote, { guards: [markerGuard] });
    h.github.token().createCheckRun(31).getPr(pr).config('.github/slopgate.yml', 'version: 1\ndrafts: sometimes\n').updateCheckRun(31);

    await h.receive('pull_request', pullRequestEvent('opened', pr));
    await h.idle();

    const [done] = h.github.bodiesOf('PATCH', '/check-runs/31');
    expect(done.conclusion).toBe('failure');
    expect(done.output.title).toBe('Config error: .github/slopgate.yml line 2');
    expect(done.output.summary).toContain('drafts');
    expect(existsSync(join(h.workDir, 'mirrors'))).toBe(false);
  });

  it('fork PR: the head comes from refs/pull/N/head of the base repo, and the token never lands on disk', async () => {
    const remote = FakeRemote.create({ 'lib.py': 'def f():\n    return 1\n' });
    const head = remote.pushPr(5, { 'lib.py': 'def f():\n    return 1  # SLOP\n' });
    expect(remote.bare('branch', '--list').trim()).toBe('* main');
    const pr: PrShape = { number: 5, headSha: head, baseSha: remote.baseSha, fork: true };
    h = await startHarness(remote, { guards: [markerGuard] });
    h.github.token().createCheckRun(41).gateJob(pr, 41, { review: true });

    await h.receive('pull_request', pullRequestEvent('opened', pr));
    await h.idle();

    const [done] = h.github.bodiesOf('PATCH', '/check-runs/41');
    expect(done.conclusion).toBe('failure');
    const mirror = join(h.workDir, 'mirrors', 'Codertocat', 'Hello-World.git');
    expect(execFileSync('git', ['rev-parse', 'refs/slopgate/pr/5/head'], { cwd: mirror, encoding: 'utf8' }).trim()).toBe(head);
    expect(execFileSync('git', ['config', '--get', 'remote.origin.partialclonefilter'], { cwd: mirror, encoding: 'utf8' }).trim()).toBe(
      'blob:none',
    );
    const basic = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
    for (const file of filesUnder(h.workDir)) {
      const text = readFileSync(file, 'latin1');
      expect(text.includes(TOKEN) || text.includes(basic), file).toBe(false);
    }
  });

  it('the same delivery id twice is processed once', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'x\n' });
    const head = remote.pushPr(6, { 'a.txt': 'y\n' });
    const pr: PrShape = { number: 6, headSha: head, baseSha: remote.baseSha };
    h = await startHarness(remote, { guards: [markerGuard] });
    h.github.token().createCheckRun(51).gateJob(pr, 51);

    const payload = pullRequestEvent('opened', pr);
    await h.receive('pull_request', payload, 'delivery-1');
    await h.receive('pull_request', payload, 'delivery-1');
    await h.idle();

    expect(h.github.bodiesOf('POST', '/check-runs')).toHaveLength(1);
  });

  it('a crash inside the pipeline completes the check run action_required (not a pass), not about the code, with a re-run button', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'x\n' });
    const head = remote.pushPr(7, { 'a.txt': 'y\n' });
    const pr: PrShape = { number: 7, headSha: head, baseSha: remote.baseSha };
    h = await startHarness(remote, {
      guards: [markerGuard],
      gate: async () => {
        throw new Error('pipeline exploded\nstack line');
      },
    });
    h.github.token().createCheckRun(61).getPr(pr).noConfig().issueComments(7).updateCheckRun(61);

    await h.receive('pull_request', pullRequestEvent('opened', pr));
    await h.idle();

    const [done] = h.github.bodiesOf('PATCH', '/check-runs/61');
    expect(done).toMatchObject({ status: 'completed', conclusion: 'action_required' });
    expect(done.output.title).toBe('Not about your code: slopgate could not finish (pipeline exploded); Re-run to try again');
    expect(done.output.summary).toContain('says nothing about the code');
    expect(done.actions).toEqual([{ label: 'Re-run', description: 'Gate this commit again', identifier: 'rerun' }]);
  });

  it('a clone failure completes the check run action_required by default: the outage does not open the gate', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'x\n' });
    const head = remote.pushPr(17, { 'a.txt': 'y\n' });
    const pr: PrShape = { number: 17, headSha: head, baseSha: remote.baseSha };
    // The mirror's remote does not exist: the clone fails before anything is gated.
    h = await startHarness(null, { guards: [markerGuard] });
    h.github.token().createCheckRun(161).getPr(pr).noConfig().updateCheckRun(161);

    await h.receive('pull_request', pullRequestEvent('opened', pr));
    await h.idle();

    const [done] = h.github.bodiesOf('PATCH', '/check-runs/161');
    expect(done).toMatchObject({ status: 'completed', conclusion: 'action_required' });
    expect(done.output.title).toMatch(/^Not about your code: slopgate could not finish \(.+\); Re-run to try again$/);
    expect(done.output.summary).toContain('blocks the merge');
    expect(done.actions).toEqual([{ label: 'Re-run', description: 'Gate this commit again', identifier: 'rerun' }]);
  });

  it('onInfraError: neutral on the default branch restores the lenient conclusion for a clone failure', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'x\n' });
    const head = remote.pushPr(18, { 'a.txt': 'y\n' });
    const pr: PrShape = { number: 18, headSha: head, baseSha: remote.baseSha };
    h = await startHarness(null, { guards: [markerGuard] });
    h.github.token().createCheckRun(171).getPr(pr).config('.github/slopgate.yml', 'onInfraError: neutral\n').updateCheckRun(171);

    await h.receive('pull_request', pullRequestEvent('opened', pr));
    await h.idle();

    const [done] = h.github.bodiesOf('PATCH', '/check-runs/171');
    expect(done).toMatchObject({ status: 'completed', conclusion: 'neutral' });
    expect(done.output.title).toMatch(/^Not about your code/);
    expect(done.output.summary).toContain('counts as passing');
  });

  it('a draft PR is skipped (neutral) when the config says drafts: skip, without touching git', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'x\n' });
    const head = remote.pushPr(8, { 'a.txt': 'y SLOP\n' });
    const pr: PrShape = { number: 8, headSha: head, baseSha: remote.baseSha, draft: true };
    h = await startHarness(remote, { guards: [markerGuard] });
    h.github.token().createCheckRun(71).getPr(pr).noConfig().updateCheckRun(71);

    await h.receive('pull_request', pullRequestEvent('opened', pr));
    await h.idle();

    const [done] = h.github.bodiesOf('PATCH', '/check-runs/71');
    expect(done).toMatchObject({ conclusion: 'neutral', output: { title: 'Skipped: draft' } });
    expect(existsSync(join(h.workDir, 'mirrors'))).toBe(false);
  });

  it('an escalating finding labels the PR slopgate:needs-human', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'x\n' });
    const head = remote.pushPr(9, { 'a.txt': 'x\nSENSITIVE\n' });
    const pr: PrShape = { number: 9, headSha: head, baseSha: remote.baseSha };
    h = await startHarness(remote, { guards: [markerGuard] });
    h.github.token().createCheckRun(81).gateJob(pr, 81, { review: true }).addLabels(9);

    await h.receive('pull_request', pullRequestEvent('opened', pr));
    await h.idle();

    expect(h.github.bodiesOf('PATCH', '/check-runs/81')[0].conclusion).toBe('failure');
    expect(h.github.bodiesOf('POST', '/issues/9/labels')).toEqual([{ labels: ['slopgate:needs-human'] }]);
  });
});

describe('github app: commands', () => {
  it('refuses /slopgate allow from a read-only user (collaborator permission API), with a confused reaction', async () => {
    h = await startHarness(null, { guards: [markerGuard] });
    const pr: PrShape = { number: 10, headSha: 'a'.repeat(40), baseSha: 'b'.repeat(40), author: 'Codertocat' };
    h.github.token().getPr(pr).permission('reader', 'read').reaction(9001).createComment(10);

    await h.receive('issue_comment', commentEvent(10, '/slopgate allow package.json', 'reader'));
    await h.idle();

    expect(h.github.bodiesOf('POST', '/reactions')).toEqual([{ content: 'confused' }]);
    const [reply] = h.github.bodiesOf('POST', '/issues/10/comments');
    expect(reply.body).toContain('needs write access');
    expect(reply.body).toContain('`read`');
    expect(h.github.bodiesOf('POST', '/check-runs')).toEqual([]);
  });

  it('ignores comments by bots, even when they hold a command', async () => {
    h = await startHarness(null, { guards: [markerGuard] });
    await h.receive('issue_comment', commentEvent(10, '/slopgate recheck', 'other-bot[bot]', 'Bot'));
    await h.idle();
    expect(h.github.captured).toEqual([]);
  });
});
