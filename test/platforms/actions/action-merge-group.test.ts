import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoRepo } from '../../../src/cli/demo-repo.js';
import { prRepo } from '../../helpers/git-repo.js';
import { needs } from '../../helpers/toolchains.js';
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
async function runQueued(
  pull: PullState,
  group: MergeGroupState,
  more: { inputs?: Record<string, string>; env?: Record<string, string>; afterCheckout?: () => void } = {},
) {
  const { login } = pull.repo.owner;
  const run = await runActionProcess({
    gh,
    pull,
    token,
    eventName: 'merge_group',
    payload: mergeGroupPayload(gh.state, pull.repo, group, { installationId: 1 }),
    checkoutRef: `refs/heads/${group.headRef}`,
    ...(more.inputs ? { inputs: more.inputs } : {}),
    ...(more.afterCheckout ? { afterCheckout: more.afterCheckout } : {}),
    // Under merge_group the workflow is read from the queue's branch.
    env: { GITHUB_WORKFLOW_REF: `${login}/${pull.repo.name}/.github/workflows/slopgate.yml@refs/heads/${group.headRef}`, ...more.env },
  });
  scratch.push(run.workspace);
  return run;
}

const WORKFLOW = (failLevel: string) => `name: slopgate
on:
  pull_request:
  merge_group:
jobs:
  gate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - id: slopgate
        uses: slopgate-dev/slopgate@v1
        with:
          fail-level: ${failLevel}
          tests: false
`;

function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/**
 * Two pull requests of one author in the merge queue: first `edit` (only `edits`, from main), then the
 * demo's blocked change behind it. GitHub builds the second entry on the first entry's queue commit, so
 * that entry's `base_sha` carries `edits` although they are not on main.
 */
function queuedBehindEdit(name: string, edits: Record<string, string>, onMain: Record<string, string> = {}) {
  const dir = buildDemoRepo();
  scratch.push(dir);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('checkout', '-q', 'main');
  if (Object.keys(onMain).length) {
    writeFiles(dir, onMain);
    git('add', '-A');
    git('commit', '-q', '-m', 'main: settings');
  }
  git('checkout', '-q', '-b', 'edit');
  writeFiles(dir, edits);
  git('add', '-A');
  git('commit', '-q', '-m', 'edit the gate');
  const repo = publishRepo(gh, 'acme', name, dir);
  const first = openPull(gh, { repo, sourceDir: dir, headRef: 'edit' });
  const second = openPull(gh, { repo, sourceDir: dir, headRef: 'slop-pr' });
  const ahead = queuePull(gh, first);
  const behind = queuePull(gh, second, ahead.headSha);
  const mainTip = gh.remote.revParse('acme', name, 'refs/heads/main')!;
  return { repo, second, ahead, behind, mainTip };
}

/** A harmless change (a new `sub` beside `add`) opened as a PR and queued on main. */
function queuedSub(name: string, base: Record<string, string>) {
  const src = prRepo(
    { 'calc/ops.py': 'def add(a, b):\n    return a + b\n', ...base },
    { 'calc/ops.py': 'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n' },
  );
  const repo = publishRepo(gh, 'acme', name, src.dir);
  const pull = openPull(gh, { repo, sourceDir: src.dir, headRef: 'pr' });
  return { repo, pull, group: queuePull(gh, pull) };
}

describe('the Action on a merge queue (on: merge_group)', { timeout: 300_000 }, () => {
  it('a clean queued change: the check run on the queue commit succeeds, exit 0', async () => {
    const { repo, pull, group } = queuedSub('mq-calc', { 'README.md': '# calc\n' });
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

  it("an entry queued behind another reads the config on the target branch's tip, not the edit of the entry ahead", async () => {
    // The entry ahead would skip every PR of this author; it is not on main, so it must not apply.
    const q = queuedBehindEdit('mq-config', { '.github/slopgate.yml': 'version: 1\nignore:\n  authors: [pr-author]\n' });
    expect(q.behind.baseSha).toBe(q.ahead.headSha);
    expect(q.behind.baseSha).not.toBe(q.mainTip);
    const run = await runQueued(q.second, q.behind);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.outputs.decision).not.toBe('SKIPPED');
    expect(Number(run.outputs.blocking)).toBeGreaterThan(0);
    const check = gh.state.checkRuns.find((c) => c.repo === q.repo && c.headSha === q.behind.headSha)!;
    expect(check).toMatchObject({ status: 'completed', conclusion: 'failure' });
    // The report names where its config came from: main at its tip, not the commit ahead in the queue.
    expect(check.output.summary).toContain(`main at ${q.mainTip.slice(0, 7)} (the merge queue's target branch)`);
  });

  it("an entry queued behind one that edits slopgate's workflow does not run with that edit's inputs", async () => {
    // The runner takes the inputs from the queue branch's workflow, which carries the entry ahead's `fail-level: none`.
    const q = queuedBehindEdit(
      'mq-workflow',
      { '.github/workflows/slopgate.yml': WORKFLOW('none') },
      { '.github/workflows/slopgate.yml': WORKFLOW('fail') },
    );
    const run = await runQueued(q.second, q.behind, { inputs: { 'fail-level': 'none', tests: 'false' } });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toContain(
      '::warning title=slopgate%3A this PR changes its own gate::this merge queue entry (with the entries queued ahead of it) changes the workflow that runs slopgate (.github/workflows/slopgate.yml)',
    );
    expect(run.stdout).toMatch(/fail level fail → exit 1/);
    const check = gh.state.checkRuns.find((c) => c.repo === q.repo && c.headSha === q.behind.headSha)!;
    expect(check.status).toBe('completed');
    expect(['success', 'neutral']).not.toContain(check.conclusion);
    expect(JSON.stringify(check.output)).toContain('fail-level: fail → none');
  });

  it('an outage (the git remote fails after the checkout): action_required on the queue commit, exit 3, never a success', async () => {
    const { repo, pull, group } = queuedSub('mq-down', { '.github/slopgate.yml': 'version: 1\nonInfraError: neutral\n' });
    const run = await runQueued(pull, group, { afterCheckout: () => gh.brokenGit.add('acme/mq-down') });
    expect(run.code, run.stdout + run.stderr).toBe(3);
    expect(run.stdout).toMatch(/not about your code/i);
    const check = gh.state.checkRuns.find((c) => c.repo === repo && c.headSha === group.headSha)!;
    expect(check).toMatchObject({ status: 'completed', conclusion: 'action_required' });
    expect(check.output.title).toMatch(/^Not about your code/);
    expect(run.outputs.decision).toBeUndefined();
  });
});

needs('pytest')('the Action on a merge queue when the tests cannot run', { timeout: 300_000 }, () => {
  it('no sandbox with the tests on, and onInfraError: neutral on main: still action_required and exit 3 — a queue never merges what was not gated', async () => {
    const base = {
      '.github/slopgate.yml': 'version: 1\nonInfraError: neutral\n',
      'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n',
      'calc/__init__.py': '',
      'calc/ops.py': 'def add(a, b):\n    return a + b\n',
      'tests/test_ops.py': 'from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
    };
    const src = prRepo(base, { 'calc/ops.py': 'def add(a, b):\n    return a - b\n' });
    const repo = publishRepo(gh, 'acme', 'mq-nosandbox', src.dir);
    const pull = openPull(gh, { repo, sourceDir: src.dir, headRef: 'pr' });
    const group = queuePull(gh, pull);
    const run = await runQueued(pull, group, { inputs: { tests: 'true' }, env: { SLOPGATE_BWRAP: '/nonexistent/slopgate-mq/bwrap' } });
    expect(run.code, run.stdout + run.stderr).toBe(3);
    expect(run.stdout).toContain('::error title=slopgate could not run the tests (not about your code)::');
    const check = gh.state.checkRuns.find((c) => c.repo === repo && c.headSha === group.headSha)!;
    expect(check).toMatchObject({ status: 'completed', conclusion: 'action_required' });
    expect(run.outputs.decision).toBeUndefined();
  });
});
