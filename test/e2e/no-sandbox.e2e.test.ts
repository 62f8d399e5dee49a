import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { prRepo } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';
import { E2eEnv } from './harness/e2e-env.js';
import type { PullState } from './harness/github-state.js';
import { openPull, publishRepo } from './harness/pull-fixtures.js';
import { pullRequestPayload } from './harness/webhooks.js';

/**
 * The real App on a machine where bubblewrap cannot start (SLOPGATE_BWRAP names a bwrap that does not
 * exist): a PR that breaks a test gets `action_required` saying the sandbox could not start — not a
 * pass, not neutral, and not a failure blamed on the code. A repository that turned the tests off on
 * purpose is gated as usual.
 */

let env: E2eEnv;
const NO_BWRAP = '/nonexistent/slopgate-e2e/bwrap';

const BASE = {
  'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n',
  'calc/__init__.py': '',
  'calc/ops.py': 'def add(a, b):\n    return a + b\n',
  'tests/test_ops.py': 'from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
};
const BREAKS = { 'calc/ops.py': 'def add(a, b):\n    return a - b\n' };

const opened = (pull: PullState) => pullRequestPayload(env.gh.state, pull, 'opened', { installationId: env.installationId });

beforeAll(async () => {
  env = await E2eEnv.start({ env: { SLOPGATE_BWRAP: NO_BWRAP } });
}, 300_000);

afterEach(() => {
  expect(env.gh.violations).toEqual([]);
});

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed
  await env?.stop();
});

needs('pytest')('the App without a sandbox', () => {
  it('a PR that breaks a test: action_required, "not about your code: the sandbox could not start — <bwrap\'s error>"', async () => {
    const src = prRepo(BASE, BREAKS);
    const repo = publishRepo(env.gh, 'acme', 'nosandbox', src.dir);
    const pull = openPull(env.gh, { repo, sourceDir: src.dir, headRef: 'pr' });
    await env.deliver('pull_request', opened(pull));
    const run = await env.completedRun(pull);
    expect(run.conclusion).toBe('action_required');
    expect(run.output.title).toBe(`Not about your code: the sandbox could not start — bwrap cannot start: ${NO_BWRAP} ENOENT`);
    expect(run.output.summary).toContain('This says nothing about the code in the pull request.');
    expect(run.output.summary).toContain('`tests.enabled: false`');
    expect(run.actions.map((a: { identifier: string }) => a.identifier)).toContain('rerun');
    // Nothing was posted as if the code had been judged.
    expect(env.gh.state.reviews.filter((r) => r.repo === repo)).toEqual([]);
  }, 120_000);

  it('even with onInfraError: neutral on the default branch (that is for outages), never neutral', async () => {
    const src = prRepo({ ...BASE, '.github/slopgate.yml': 'onInfraError: neutral\n' }, BREAKS);
    const repo = publishRepo(env.gh, 'acme', 'nosandbox-neutral', src.dir);
    const pull = openPull(env.gh, { repo, sourceDir: src.dir, headRef: 'pr' });
    await env.deliver('pull_request', opened(pull));
    expect((await env.completedRun(pull)).conclusion).toBe('action_required');
  }, 120_000);

  it('tests.enabled: false on the default branch: gated without tests, as asked', async () => {
    const src = prRepo({ ...BASE, '.github/slopgate.yml': 'tests:\n  enabled: false\n' }, BREAKS);
    const repo = publishRepo(env.gh, 'acme', 'notests', src.dir);
    const pull = openPull(env.gh, { repo, sourceDir: src.dir, headRef: 'pr' });
    await env.deliver('pull_request', opened(pull));
    const run = await env.completedRun(pull);
    expect(run.conclusion).toBe('success');
  }, 120_000);
});
