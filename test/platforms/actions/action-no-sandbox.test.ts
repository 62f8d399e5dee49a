import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { prRepo } from '../../helpers/git-repo.js';
import { needs } from '../../helpers/toolchains.js';
import { generateAppKey } from '../../e2e/harness/app-jwt.js';
import { GitHubStandIn } from '../../e2e/harness/github-standin.js';
import { openPull, publishRepo } from '../../e2e/harness/pull-fixtures.js';
import { runActionProcess } from './action-harness.js';

/**
 * The Action on a runner where bubblewrap cannot start (SLOPGATE_BWRAP names a bwrap that is not
 * there, as on a hosted runner whose user namespaces are restricted): with the tests on, a PR that
 * breaks a test fails the step and its check run is action_required — "not about your code". With
 * `tests: false` the gate runs without them.
 */

const NO_BWRAP = '/nonexistent/slopgate-action/bwrap';
const BASE = {
  'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n',
  'calc/__init__.py': '',
  'calc/ops.py': 'def add(a, b):\n    return a + b\n',
  'tests/test_ops.py': 'from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
};
const BREAKS = { 'calc/ops.py': 'def add(a, b):\n    return a - b\n' };

let gh: GitHubStandIn;
let token: string;
const scratch: string[] = [];

beforeAll(async () => {
  const gitRoot = mkdtempSync(join(tmpdir(), 'slopgate-action-remote-'));
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

needs('pytest')('the Action without a sandbox', () => {
  it("tests on: the step fails (exit 3) and the check run is action_required with bwrap's error — never a pass", async () => {
    const src = prRepo(BASE, BREAKS);
    const repo = publishRepo(gh, 'acme', 'nosandbox', src.dir);
    const pull = openPull(gh, { repo, sourceDir: src.dir, headRef: 'pr' });
    const run = await runActionProcess({ gh, pull, token, inputs: { tests: 'true' }, env: { SLOPGATE_BWRAP: NO_BWRAP } });
    scratch.push(run.workspace);
    expect(run.code, run.stdout + run.stderr).toBe(3);
    const reason = `the sandbox could not start — bwrap cannot start: ${NO_BWRAP} ENOENT`;
    expect(run.stdout).toContain(`::error title=slopgate could not run the tests (not about your code)::not about your code: ${reason}`);
    expect(run.stdout).toContain('tests: false in the workflow on the default branch');
    const check = gh.state.checkRuns.find((c) => c.repo === repo)!;
    expect(check).toMatchObject({ status: 'completed', conclusion: 'action_required' });
    expect(check.output.title).toBe(`Not about your code: ${reason}`);
    expect(run.outputs.decision).toBeUndefined();
  }, 300_000);

  it('tests: false turns the test gate off on purpose: the step reports as usual', async () => {
    const src = prRepo(BASE, BREAKS);
    const repo = publishRepo(gh, 'acme', 'nosandbox-off', src.dir);
    const pull = openPull(gh, { repo, sourceDir: src.dir, headRef: 'pr' });
    const run = await runActionProcess({ gh, pull, token, inputs: { tests: 'false' }, env: { SLOPGATE_BWRAP: NO_BWRAP } });
    scratch.push(run.workspace);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(gh.state.checkRuns.find((c) => c.repo === repo)?.conclusion).toBe('success');
  }, 300_000);
});
