import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoRepo } from '../../../src/cli/demo-repo.js';
import { prRepo } from '../../helpers/git-repo.js';
import { generateAppKey } from '../../e2e/harness/app-jwt.js';
import { GitHubStandIn } from '../../e2e/harness/github-standin.js';
import type { PullState } from '../../e2e/harness/github-state.js';
import { openPull, publishRepo, queuePull, type MergeGroupState } from '../../e2e/harness/pull-fixtures.js';
import { mergeGroupPayload } from '../../e2e/harness/webhooks.js';
import { runActionProcess } from './action-harness.js';

/**
 * The Action under `on: merge_group`: the runner's `merge_group` payload (GitHub's shape), the queue's
 * branch checked out, and the shared PR job gating the queue's commit against its base.
 */
let gh: GitHubStandIn;
let token: string;
const scratch: string[] = [];

beforeAll(async () => {
  const gitRoot = mkdtempSync(join(tmpdir(), 'slopgate-action-mq-'));
  scratch.push(gitRoot);
  gh = await GitHubStandIn.start({ appId: 31337, publicKey: generateAppKey().publicKey, gitRoot });
  token = gh.mintToken(4242).token;
});

afterEach(() => {
  expect(gh.violations).toEqual([]);
});

afterAll(async () => {
  await gh.close();
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

/** Runs the Action for the merge queue entry of `pull`, as the runner does on `merge_group`. */
async function runQueued(pull: PullState, group: MergeGroupState) {
  const { login } = pull.repo.owner;
  const run = await runActionProcess({
    gh,
    pull,
    token,
    eventName: 'merge_group',
    payload: mergeGroupPayload(gh.state, pull.repo, group, { installationId: 1 }),
    checkoutRef: `refs/heads/${group.headRef}`,
    // Under merge_group the workflow is read from the queue's branch.
    env: { GITHUB_WORKFLOW_REF: `${login}/${pull.repo.name}/.github/workflows/slopgate.yml@refs/heads/${group.headRef}` },
  });
  scratch.push(run.workspace);
  return run;
}

describe('the Action on a merge queue (on: merge_group)', { timeout: 300_000 }, () => {
  it('a clean queued change: the check run on the queue commit succeeds, exit 0', async () => {
    const src = prRepo(
      { 'calc/ops.py': 'def add(a, b):\n    return a + b\n', 'README.md': '# calc\n' },
      { 'calc/ops.py': 'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n' },
    );
    const repo = publishRepo(gh, 'acme', 'mq-calc', src.dir);
    const pull = openPull(gh, { repo, sourceDir: src.dir, headRef: 'pr' });
    const group = queuePull(gh, pull);
    const run = await runQueued(pull, group);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`gating the merge queue's commit for #${pull.number}`);
    const checks = gh.state.checkRuns.filter((c) => c.repo === repo);
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ name: 'slopgate', headSha: group.headSha, status: 'completed', conclusion: 'success' });
    expect(checks[0]!.history[0]).toMatchObject({ external_id: `slopgate:merge-group:${pull.number}` });
    expect(checks[0]!.output.title).toMatch(/^Merge queue: /);
    expect(run.outputs.decision).toBe('PASS');
  });

  it('a blocked queued change: failure on the queue commit with the reason, exit 1, nothing on the PR', async () => {
    const dir = buildDemoRepo();
    scratch.push(dir);
    const repo = publishRepo(gh, 'acme', 'mq-inventory', dir);
    const pull = openPull(gh, { repo, sourceDir: dir, headRef: 'slop-pr' });
    const group = queuePull(gh, pull);
    const run = await runQueued(pull, group);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const check = gh.state.checkRuns.find((c) => c.repo === repo && c.headSha === group.headSha);
    expect(check).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(check!.output.title).toMatch(/^Merge queue: .*blocking/);
    expect(run.summary).toContain("gated the merge queue's commit against its base");
    expect(Number(run.outputs.blocking)).toBeGreaterThan(0);
    // The queue's commit is not the PR's head: no review comments, no PR-body section, no labels.
    expect(gh.state.reviews.filter((r) => r.repo === repo)).toEqual([]);
    expect(pull.body).not.toContain('slopgate:start');
  });
});
