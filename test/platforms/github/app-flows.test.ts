import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Guard } from '../../../src/core/guard.js';
import { runGate, type GateOptions } from '../../../src/gate/run-gate.js';
import { GUARDS } from '../../../src/guards/index.js';
import { grantMarker } from '../../../src/host/sanctions.js';
import { FakeRemote, removeFakeRemotes } from '../../helpers/fake-remote.js';
import { closeStrict, SANCTION_KEY, startHarness, type Harness } from './helpers/harness.js';
import { deriveSanctionKey } from '../../../src/host/sanctions.js';
import { markerGuard } from '../../helpers/test-guards.js';
import { APP_ID, OWNER, REPO, commentEvent, pullRequestEvent, type PrShape } from './helpers/payloads.js';

let h: Harness | undefined;
afterEach(() => {
  closeStrict(h);
  h = undefined;
});
afterAll(() => removeFakeRemotes());

/** Flags every changed manifest that is not sanctioned (a stand-in for G1's manifest rule). */
const manifestGuard: Guard = {
  id: 'G1',
  name: 'manifests (test)',
  appliesTo: (f) => f.path === 'package.json' || f.path === 'go.mod',
  checkFile: (f, ctx) =>
    ctx.sanctioned(f.path)
      ? []
      : [
          {
            category: 'manifest-edit',
            severity: 'fail',
            path: f.path,
            line: 1,
            message: `${f.path} edited`,
            remediation: 'revert or sanction it',
          },
        ],
};

describe('github app: the real guard registry on a bare blobless mirror', () => {
  it('a PR that breaks a JSON file fails through G2, with the comment on the broken added line', async () => {
    const remote = FakeRemote.create({ 'README.md': '# demo\n', 'config/settings.json': '{\n  "a": 1\n}\n' });
    const head = remote.pushPr(30, { 'config/settings.json': '{\n  "a": 1,\n  "b": 2\n  "c": 3\n}\n' });
    const pr: PrShape = { number: 30, headSha: head, baseSha: remote.baseSha };
    h = await startHarness(remote, { guards: GUARDS });
    h.github.token().createCheckRun(301).gateJob(pr, 301, { review: true });

    await h.receive('pull_request', pullRequestEvent('opened', pr));
    await h.idle();

    const [done] = h.github.bodiesOf('PATCH', '/check-runs/301');
    expect(done.conclusion).toBe('failure');
    expect(done.output.summary).not.toContain('guard-error');
    const g2 = done.output.annotations.filter((a: { title: string }) => a.title.startsWith('G2'));
    expect(g2).toHaveLength(1);
    expect(g2[0].path).toBe('config/settings.json');
    const [review] = h.github.bodiesOf('POST', '/pulls/30/reviews');
    expect(review.comments).toEqual([expect.objectContaining({ path: 'config/settings.json', line: g2[0].start_line, side: 'RIGHT' })]);
  });
});

describe('github app: sanctions and superseding', () => {
  it("/slopgate allow by a maintainer records the file's content in the App's reply and sanctions the next run; a pasted marker does not", async () => {
    const remote = FakeRemote.create({ 'package.json': '{"name":"a"}\n', 'go.mod': 'module a\n' });
    const head = remote.pushPr(20, { 'package.json': '{"name":"a","dependencies":{"x":"1"}}\n', 'go.mod': 'module a\n\nrequire x v1\n' });
    const blob = (path: string) => remote.work.git('rev-parse', `${head}:${path}`).trim();
    const pr: PrShape = { number: 20, headSha: head, baseSha: remote.baseSha, author: 'Codertocat' };
    const scope = { owner: OWNER, repo: REPO, number: 20 };
    h = await startHarness(remote, { guards: [manifestGuard] });
    const g = h.github;
    const files = [
      { path: 'package.json', blob: blob('package.json') },
      { path: 'go.mod', blob: blob('go.mod') },
    ];
    g.token().getPr(pr).permission('maint', 'maintain').listFiles(20, files).getPr(pr).reaction(9001).createComment(20);
    const forged = grantMarker({ via: 'allow', by: 'maint', at: head, pattern: 'go.mod', files: [files[1]!] }, SANCTION_KEY, scope);
    // The job then reads the PR's comments: slopgate's reply (made by this App) and a forged one.
    g.createCheckRun(91)
      .getPr(pr)
      .noConfig()
      .issueComments(20, () => [
        {
          id: 1,
          body: g.bodiesOf('POST', '/issues/20/comments')[0]?.body,
          user: { login: 'slopgate[bot]', type: 'Bot' },
          performed_via_github_app: { id: APP_ID },
        },
        { id: 2, body: `sure ${forged}`, user: { login: 'Codertocat', type: 'User' }, performed_via_github_app: null },
      ]);
    g.updateCheckRun(91).reviewComments(20).getPr(pr).updatePr(20);

    await h.receive('issue_comment', commentEvent(20, '/slopgate allow ./package.json', 'maint'));
    await h.idle();

    expect(g.bodiesOf('POST', '/reactions')).toEqual([{ content: '+1' }]);
    const [reply] = g.bodiesOf('POST', '/issues/20/comments');
    const grant = { via: 'allow' as const, by: 'maint', at: head, pattern: 'package.json', files: [files[0]!] };
    expect(reply.body).toContain(grantMarker(grant, SANCTION_KEY, scope));
    expect(reply.body).toContain(`allowed as they are at \`${head.slice(0, 7)}\``);
    expect(reply.body).not.toContain(grantMarker(grant, deriveSanctionKey('another secret'), scope));
    const [done] = g.bodiesOf('PATCH', '/check-runs/91');
    const annotated = done.output.annotations.map((a: { path: string }) => a.path);
    expect(annotated).toEqual(['go.mod']);
  });

  it("the PR's own author cannot allow or dismiss on it, even with write access: refused, nothing recorded, no re-gate", async () => {
    h = await startHarness(null, { guards: [manifestGuard] });
    const pr: PrShape = { number: 22, headSha: 'a'.repeat(40), baseSha: 'b'.repeat(40), author: 'Codertocat' };
    h.github.token();
    // The login is compared without case: GitHub logins are case-insensitive.
    for (const login of ['Codertocat', 'codertocat']) h.github.getPr(pr).permission(login, 'write').reaction(9001).createComment(22);
    await h.receive('issue_comment', commentEvent(22, '/slopgate allow package.json', 'Codertocat'));
    await h.receive('issue_comment', commentEvent(22, '/slopgate dismiss 0123456789ab the author says so', 'codertocat'));
    await h.idle();
    expect(h.github.bodiesOf('POST', '/reactions')).toEqual([{ content: 'confused' }, { content: 'confused' }]);
    const replies = h.github.bodiesOf('POST', '/issues/22/comments').map((c) => String(c.body));
    expect(replies[0]).toContain("`/slopgate allow` cannot come from the pull request's own author");
    expect(replies[1]).toContain("`/slopgate dismiss` cannot come from the pull request's own author");
    expect(replies.join('\n')).not.toContain('slopgate:grant');
  });

  it('a newer push supersedes the running job: its check run completes as cancelled "superseded by <sha>"', async () => {
    const remote = FakeRemote.create({ 'a.txt': 'x\n' });
    const first = remote.pushPr(21, { 'a.txt': 'y\n' });
    let entered!: () => void;
    const inGate = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let calls = 0;
    const gate = async (opts: GateOptions) => {
      if (++calls === 1) {
        entered();
        await released;
      }
      return runGate(opts);
    };
    h = await startHarness(remote, { guards: [markerGuard], gate });
    const pr1: PrShape = { number: 21, headSha: first, baseSha: remote.baseSha };
    h.github.token().createCheckRun(101).getPr(pr1).noConfig().issueComments(21).updateCheckRun(101);
    await h.receive('pull_request', pullRequestEvent('opened', pr1));
    await inGate;

    const second = remote.pushPr(21, { 'a.txt': 'z\n' });
    const pr2: PrShape = { number: 21, headSha: second, baseSha: remote.baseSha };
    h.github.createCheckRun(102).gateJob(pr2, 102);
    await h.receive('pull_request', pullRequestEvent('synchronize', pr2));
    release();
    await h.idle();

    const [cancelled] = h.github.bodiesOf('PATCH', '/check-runs/101');
    expect(cancelled).toMatchObject({
      status: 'completed',
      conclusion: 'cancelled',
      output: { title: `Superseded by ${second.slice(0, 7)}` },
    });
    expect(h.github.bodiesOf('PATCH', '/check-runs/102')[0]).toMatchObject({ conclusion: 'success' });
  });
});
