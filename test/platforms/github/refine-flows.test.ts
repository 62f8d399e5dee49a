import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { GUARDS } from '../../../src/guards/index.js';
import { RECIPES } from '../../../src/refiner/recipes/index.js';
import { DB_PY } from '../../refiner/fixtures.js';
import { FakeRemote, removeFakeRemotes } from '../../helpers/fake-remote.js';
import { closeStrict, startHarness, type Harness } from './helpers/harness.js';
import {
  APP_ID,
  INSTALLATION_ID,
  OWNER,
  REPO,
  commentEvent,
  example,
  pullRequest,
  pullRequestEvent,
  type PrShape,
} from './helpers/payloads.js';

let h: Harness | undefined;
afterEach(() => {
  closeStrict(h);
  h = undefined;
});
afterAll(() => removeFakeRemotes());

const R = `/repos/${OWNER}/${REPO}`;
/** A real model failure, here made by the PR itself: two helpers dropped behind a "remains unchanged" comment (G7). */
const DROPPED = DB_PY.replace(/def format_row[\s\S]*$/, '# format_row and count_users remain unchanged\n');
const CONFIG_FILE = '.github/slopgate.yml';

interface Entry {
  path: string;
  sha: string;
}
/** Request bodies of the Git Data API, as the App sends them (parsed JSON from nock). */
interface Body {
  content?: string;
  encoding?: string;
  sha?: string;
  tree?: string | Entry[];
}

/**
 * The Git Data API of one repository, backed by the fake remote: blobs and trees are remembered, and
 * creating the commit really commits the files onto the PR's branch (so the re-gate can fetch it).
 */
function gitDataApi(h: Harness, remote: FakeRemote, n: number, parent: string): { commitSha: () => string } {
  const blobs = new Map<string, string>();
  const trees = new Map<string, { path: string; sha: string }[]>();
  let commitSha = '';
  const s = h.github.scope;
  s.get(R).reply(200, { id: 1296269, name: REPO, full_name: `${OWNER}/${REPO}`, default_branch: 'main' });
  s.get(`${R}/git/commits/${parent}`).reply(200, { sha: parent, tree: { sha: 'basetree' } });
  s.post(`${R}/git/blobs`)
    .times(1)
    .reply((uri, raw) => {
      const body = raw as Body; // I/O boundary: the JSON body the App sent
      h.github.captured.push({ method: 'POST', path: uri, body });
      const sha = `blob${blobs.size + 1}`;
      blobs.set(sha, Buffer.from(body.content!, body.encoding === 'base64' ? 'base64' : 'utf8').toString('utf8'));
      return [201, { sha }];
    });
  s.post(`${R}/git/trees`).reply((uri, raw) => {
    const body = raw as Body; // I/O boundary: the JSON body the App sent
    h.github.captured.push({ method: 'POST', path: uri, body });
    trees.set('tree1', Array.isArray(body.tree) ? body.tree : []);
    return [201, { sha: 'tree1' }];
  });
  s.post(`${R}/git/commits`).reply((uri, raw) => {
    const body = raw as Body; // I/O boundary: the JSON body the App sent
    h.github.captured.push({ method: 'POST', path: uri, body });
    const files = Object.fromEntries(trees.get(typeof body.tree === 'string' ? body.tree : '')!.map((e) => [e.path, blobs.get(e.sha)!]));
    commitSha = remote.pushPr(n, files);
    return [201, { sha: commitSha }];
  });
  s.patch(new RegExp(`^${R}/git/refs/heads(?:/|%2F)pr-${n}$`)).reply((uri, raw) => {
    const body = raw as Body; // I/O boundary: the JSON body the App sent
    h.github.captured.push({ method: 'PATCH', path: uri, body });
    return [200, { ref: `refs/heads/pr-${n}`, object: { sha: body.sha } }];
  });
  return { commitSha: () => commitSha };
}

/** check_run.requested_action (the Refine button) from the real example, aimed at slopgate's run of PR `n`. */
function refineButton(checkRunId: number, headSha: string, n: number, sender: string): Record<string, unknown> {
  const payload = example('check_run', (e) => e.action === 'requested_action' && Boolean(e.installation));
  payload.check_run = {
    ...payload.check_run,
    id: checkRunId,
    name: 'slopgate',
    head_sha: headSha,
    external_id: `slopgate:pr:${n}`,
    pull_requests: [],
  };
  payload.check_run.app = { ...payload.check_run.app, id: APP_ID };
  payload.repository = pullRequestEvent('opened', { number: n, headSha, baseSha: headSha }).repository;
  payload.installation = { id: INSTALLATION_ID, node_id: 'inst' };
  payload.sender.login = sender;
  payload.requested_action = { identifier: 'refine' };
  return payload;
}

describe('the App lands refines', { timeout: 240_000 }, () => {
  it('/slopgate refine by a writer: recipes only (no model), one commit through the Git Data API (never forced), then the new head is gated → PASS', async () => {
    const remote = FakeRemote.create({ 'app/db.py': DB_PY, 'app/__init__.py': '' });
    const head = remote.pushPr(90, { 'app/db.py': DROPPED });
    const pr: PrShape = { number: 90, headSha: head, baseSha: remote.baseSha, author: 'Codertocat' };
    const config = 'tests:\n  enabled: false\nrefiner:\n  push: true\n';
    h = await startHarness(remote, { guards: GUARDS, recipes: RECIPES, model: null });
    const gh = h.github;
    // The command: PR facts, the sender's role, the 👀 reaction.
    gh.token().getPr(pr).permission('maint', 'write').reaction(9001);
    // The refine: fresh facts, the default branch's config, sanction comments (gate, refiner), the fresh head check.
    gh.getPr(pr).config(CONFIG_FILE, config).issueComments(90).issueComments(90).getPr(pr);
    const data = gitDataApi(h, remote, 90, head);
    gh.createComment(90);
    // The new head's gate job.
    const check = 901;
    gh.createCheckRun(check);
    const movedPr = () => [200, pullRequest({ ...pr, headSha: data.commitSha() })] as [number, Record<string, unknown>];
    h.github.scope.get(`${R}/pulls/90`).reply(movedPr);
    gh.config(CONFIG_FILE, config).issueComments(90).updateCheckRun(check).reviewComments(90);
    h.github.scope.get(`${R}/pulls/90`).reply(movedPr);
    gh.updatePr(90);

    await h.receive('issue_comment', commentEvent(90, '/slopgate refine', 'maint'));
    await h.idle();

    expect(gh.bodiesOf('POST', '/reactions')).toEqual([{ content: 'eyes' }]);
    const [blob] = gh.bodiesOf('POST', '/git/blobs');
    expect(Buffer.from(blob.content, 'base64').toString('utf8')).toBe(DB_PY);
    const [tree] = gh.bodiesOf('POST', '/git/trees');
    expect(tree).toEqual({ base_tree: 'basetree', tree: [{ path: 'app/db.py', mode: '100644', type: 'blob', sha: 'blob1' }] });
    const [commit] = gh.bodiesOf('POST', '/git/commits');
    expect(commit.parents).toEqual([head]);
    expect(commit.tree).toBe('tree1');
    expect(commit.message).toMatch(/^slopgate refine: fix \d+ findings? \(round 1\)/);
    expect(commit.message).toContain('[G7] app/db.py');
    expect(commit.message).toContain('g7-restore-definitions');
    const [ref] = gh.bodiesOf('PATCH', '/git/refs/');
    expect(ref).toEqual({ sha: data.commitSha(), force: false });
    const [said] = gh.bodiesOf('POST', '/issues/90/comments');
    expect(said.body).toContain(`pushed \`${data.commitSha().slice(0, 7)}\` to \`pr-90\``);
    const [created] = gh.bodiesOf('POST', '/check-runs');
    expect(created).toMatchObject({ head_sha: data.commitSha(), external_id: 'slopgate:pr:90' });
    const [done] = gh.bodiesOf('PATCH', `/check-runs/${check}`);
    expect(done.conclusion).toBe('success');
  });

  it('the Refine button on a fork PR: one review of suggestions, no Git Data API call', async () => {
    const remote = FakeRemote.create({ 'app/db.py': DB_PY, 'app/__init__.py': '' });
    const head = remote.pushPr(91, { 'app/db.py': DROPPED });
    const pr: PrShape = { number: 91, headSha: head, baseSha: remote.baseSha, author: 'Codertocat', fork: true };
    const config = 'tests:\n  enabled: false\nrefiner:\n  push: true\n';
    h = await startHarness(remote, { guards: GUARDS, recipes: RECIPES, model: null });
    h.github.token().getPr(pr).permission('maint', 'write');
    h.github.getPr(pr).config(CONFIG_FILE, config).issueComments(91).issueComments(91).createReview(91);

    await h.receive('check_run', refineButton(910, head, 91, 'maint'));
    await h.idle();

    const [review] = h.github.bodiesOf('POST', '/pulls/91/reviews');
    expect(review.event).toBe('COMMENT');
    expect(review.commit_id).toBe(head);
    expect(review.body).toContain('lives in a fork');
    expect(review.body).toContain('<!-- slopgate:refine -->');
    // The restore is one suggestion replacing the "remains unchanged" line (a line of the PR's diff) with the helpers.
    const line = DROPPED.split('\n').indexOf('# format_row and count_users remain unchanged') + 1;
    expect(review.comments).toHaveLength(1);
    expect(review.comments[0]).toMatchObject({ path: 'app/db.py', line, side: 'RIGHT' });
    expect(review.comments[0].body).toContain('```suggestion\ndef format_row(row):');
    expect(review.comments[0].body).toContain('def count_users(conn):');
    expect(review.body).not.toContain('```diff');
    expect(h.github.bodiesOf('POST', '/git/')).toEqual([]);
  });

  it('refiner.auto: a push routed to REFINE is refined by the gate job itself, pushed, and the new head gated → PASS', async () => {
    const remote = FakeRemote.create({ 'app/db.py': DB_PY, 'app/__init__.py': '' });
    const head = remote.pushPr(92, { 'app/db.py': DROPPED });
    const pr: PrShape = { number: 92, headSha: head, baseSha: remote.baseSha, author: 'Codertocat' };
    const config = 'tests:\n  enabled: false\nrefiner:\n  push: true\n  auto: true\n';
    h = await startHarness(remote, { guards: GUARDS, recipes: RECIPES, model: null });
    const gh = h.github;
    // The gate job on the pushed head: REFINE, with its review, check run and PR body.
    gh.token()
      .createCheckRun(920)
      .getPr(pr)
      .config(CONFIG_FILE, config)
      .issueComments(92)
      .updateCheckRun(920)
      .reviewComments(92)
      .createReview(92);
    gh.getPr(pr).updatePr(92);
    // Then, in the same job, the refine: sanction comments, the fresh head check, the commit, the comment.
    gh.issueComments(92).getPr(pr);
    const data = gitDataApi(h, remote, 92, head);
    gh.createComment(92);
    // And the gate of the refined head.
    const movedPr = () => [200, pullRequest({ ...pr, headSha: data.commitSha() })] as [number, Record<string, unknown>];
    gh.createCheckRun(921);
    gh.scope.get(`${R}/pulls/92`).reply(movedPr);
    gh.config(CONFIG_FILE, config).issueComments(92).updateCheckRun(921).reviewComments(92);
    gh.scope.get(`${R}/pulls/92`).reply(movedPr);
    gh.updatePr(92);

    await h.receive('pull_request', pullRequestEvent('synchronize', pr));
    await h.idle();

    const [first] = gh.bodiesOf('PATCH', '/check-runs/920');
    expect(first.conclusion).toBe('failure');
    expect(first.actions.map((a: { identifier: string }) => a.identifier)).toEqual(['refine', 'rerun']);
    const [ref] = gh.bodiesOf('PATCH', '/git/refs/');
    expect(ref).toEqual({ sha: data.commitSha(), force: false });
    const [commit] = gh.bodiesOf('POST', '/git/commits');
    expect(commit.parents).toEqual([head]);
    const [second] = gh.bodiesOf('PATCH', '/check-runs/921');
    expect(second.conclusion).toBe('success');
    expect(gh.bodiesOf('POST', '/check-runs').map((c: { head_sha: string }) => c.head_sha)).toEqual([head, data.commitSha()]);
  });
});
