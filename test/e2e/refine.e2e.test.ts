import { execFileSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { prRepo } from '../helpers/git-repo.js';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { DB_PY } from '../refiner/fixtures.js';
import { E2eEnv, waitFor } from './harness/e2e-env.js';
import { openPull, publishRepo } from './harness/pull-fixtures.js';
import { issueCommentPayload, pullRequestPayload } from './harness/webhooks.js';

/**
 * `/slopgate refine` through the real App process (`dist/app-server.js`) against the local GitHub,
 * with a real local HTTP server playing the model. The model's first reply is a real LLM failure:
 * the syntax fix is right, but two helpers are dropped behind "# … remain unchanged". The refiner's
 * gate catches it (G7) and reverts it; the corrected reply is kept, pushed as one commit through the
 * Git Data API (a fast-forward, never forced), and the new head is gated: PASS.
 */

let env: E2eEnv;
let llm: LlmServer;

/** The PR breaks `add_user`'s def line: G2, a syntax failure routed to the refiner. */
const BROKEN = DB_PY.replace('def add_user(conn, name):', 'def add_user(conn, name)');
const DROPPED = DB_PY.replace(/def format_row[\s\S]*$/, '# format_row and count_users remain unchanged\n');

/** A chatty reply with the JSON in a fence, as models often answer. */
function chatty(files: { path: string; content: string }[], summary: string): string {
  return `Sure! Here is the corrected file.\n\n\`\`\`json\n${JSON.stringify({ files, summary }, null, 2)}\n\`\`\`\n`;
}

beforeAll(async () => {
  llm = await startLlmServer();
  env = await E2eEnv.start({ env: llm.env({ model: 'e2e-refiner' }) });
}, 300_000);

afterEach(() => {
  expect(env.gh.violations).toEqual([]);
});

afterAll(async () => {
  await env.stop();
  await llm.close();
});

describe('refine end to end', () => {
  it('a "remains unchanged" reply is caught and reverted, the corrected reply is pushed, and the re-gate passes', async () => {
    const config = 'tests:\n  enabled: false\nrefiner:\n  push: true\n';
    const src = prRepo({ 'app/__init__.py': '', 'app/db.py': DB_PY, '.github/slopgate.yml': config }, { 'app/db.py': BROKEN });
    const repo = publishRepo(env.gh, 'acme', 'users', src.dir);
    const pull = openPull(env.gh, { repo, sourceDir: src.dir, headRef: 'pr', title: 'Tidy add_user' });
    const gated = pull.headSha;
    await env.deliver('pull_request', pullRequestPayload(env.gh.state, pull, 'opened', { installationId: env.installationId }));
    const first = await env.completedRun(pull);
    expect(first.conclusion).toBe('failure');
    expect(first.actions.map((a) => a.identifier)).toContain('refine');
    await env.idle();

    llm.reply(
      { content: chatty([{ path: 'app/db.py', content: DROPPED }], 'add the missing colon') },
      { content: chatty([{ path: 'app/db.py', content: DB_PY }], 'add the missing colon, keep every helper') },
    );
    repo.collaborators.set('maintainer', 'write');
    const comment = { id: env.gh.state.id(), body: '/slopgate refine', user: env.gh.state.user('maintainer') };
    env.gh.state.issueComments.push({ id: comment.id, repo, issue: pull.number, user: comment.user, body: comment.body, viaApp: null });
    await env.deliver('issue_comment', issueCommentPayload(env.gh.state, pull, comment, env.installationId));

    const pushed = await waitFor(
      () => (pull.headSha !== gated ? pull.headSha : undefined),
      120_000,
      () => env.app.logs.slice(-3000),
    );
    const run = await env.completedRun(pull, 120_000);
    expect(run.headSha).toBe(pushed);
    expect(run.conclusion).toBe('success');

    // The model was asked twice; the retry carried G7's message about the dropped helpers.
    llm.assertDone();
    expect(llm.requests).toHaveLength(2);
    const retry = llm.requests[1]!.messages.map((m) => m.content).join('\n');
    expect(retry).toContain('REJECTED');
    expect(retry).toContain('format_row');

    // One commit on the PR branch, on top of the gated head, with the fixed file and a message naming the finding.
    const dir = env.gh.remote.dirOf('acme', 'users');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
    expect(git('rev-parse', 'refs/heads/pr').trim()).toBe(pushed);
    expect(git('rev-parse', `${pushed}^`).trim()).toBe(gated);
    expect(git('show', `${pushed}:app/db.py`)).toBe(DB_PY);
    expect(git('diff', '--name-only', gated, pushed).trim()).toBe('app/db.py');
    const message = git('log', '-1', '--format=%B', pushed);
    expect(message).toMatch(/^slopgate refine: fix 1 finding \(round 1\)/);
    expect(message).toMatch(/\[G2\] app\/db\.py/);
    expect(message).toContain('model:e2e-refiner');
    const updates = env.gh.calls('git/update-ref');
    expect(updates).toHaveLength(1);
    expect(updates[0]!.body).toMatchObject({ sha: pushed, force: false });
    expect(git('rev-parse', 'refs/heads/main').trim()).toBe(pull.baseSha);

    const said = env.gh.state.issueComments.find(
      (c) => c.repo === repo && c.user.type === 'Bot' && c.body.includes('slopgate refine: pushed'),
    );
    expect(said?.body).toContain(pushed.slice(0, 7));
    expect(env.gh.state.reactions.filter((r) => r.commentId === comment.id).map((r) => r.content)).toEqual(['eyes']);
  }, 300_000);
});
