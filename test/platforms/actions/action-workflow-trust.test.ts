import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { prRepo } from '../../helpers/git-repo.js';
import { needs } from '../../helpers/toolchains.js';
import { generateAppKey } from '../../e2e/harness/app-jwt.js';
import { GitHubStandIn } from '../../e2e/harness/github-standin.js';
import type { CheckRunState } from '../../e2e/harness/github-state.js';
import { openPull, publishRepo } from '../../e2e/harness/pull-fixtures.js';
import { runActionProcess } from './action-harness.js';

/**
 * Under `pull_request` the workflow file is the PR's: a PR could give its own slopgate step
 * `fail-level: none` or `tests: false`. The Action, run as a runner runs it (the real entry, a real
 * `pull_request` payload, the runner's GITHUB_WORKFLOW_REF), must not let that pass: a PR that changes
 * the workflow running slopgate is ASK_AUTHOR (action_required) with the reason, its inputs are replaced
 * by the base branch's, and the step fails whatever fail level the PR chose. A workflow read from a
 * branch (a ruleset's required workflow) is not the PR's and is trusted.
 */

const WORKFLOW = (inputs: string, extra = '') => `name: slopgate
on: pull_request
jobs:
  gate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4${extra}
      - id: slopgate
        uses: slopgate-dev/slopgate@v1
        with:
${inputs}
`;
const BASE_WORKFLOW = WORKFLOW('          fail-level: fail\n          tests: true');
const PR_WORKFLOW = WORKFLOW('          fail-level: none\n          tests: false');
const BASE = {
  '.github/workflows/slopgate.yml': BASE_WORKFLOW,
  'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n',
  'calc/__init__.py': '',
  'calc/ops.py': 'def add(a, b):\n    return a + b\n',
  'tests/test_ops.py': 'from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
};
const BREAKS = { 'calc/ops.py': 'def add(a, b):\n    return a - b\n' };
const REASON =
  'this PR changes the workflow that runs slopgate (.github/workflows/slopgate.yml); its inputs cannot be trusted for this PR — a maintainer must review it';

let gh: GitHubStandIn;
let token: string;
const scratch: string[] = [];
let n = 0;

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

/** Publishes `base` with a PR of `change` and runs the Action with the PR workflow's own inputs. */
async function gate(change: Record<string, string | null>, inputs: Record<string, string>, env: Record<string, string> = {}, base = BASE) {
  const src = prRepo(base, change);
  const repo = publishRepo(gh, 'acme', `trust${++n}`, src.dir);
  const pull = openPull(gh, { repo, sourceDir: src.dir, headRef: 'pr' });
  const run = await runActionProcess({ gh, pull, token, inputs, env });
  scratch.push(run.workspace);
  const check = gh.state.checkRuns.find((c) => c.repo === repo)! as CheckRunState & { annotations: { message: string }[] };
  return { run, check, pull };
}

needs('pytest')('the Action when a PR edits the workflow that runs it', () => {
  it("fail-level: none and tests: false in the PR's workflow: ASK_AUTHOR naming the changed inputs; the base's inputs gate, the broken test is found, the step fails", async () => {
    const { run, check } = await gate(
      { ...BREAKS, '.github/workflows/slopgate.yml': PR_WORKFLOW },
      { 'fail-level': 'none', tests: 'false' },
    );
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.outputs.decision).toBe('ASK_AUTHOR');
    expect(check.conclusion).toBe('action_required');
    expect(run.stdout).toContain(
      `::warning title=slopgate%3A this PR changes its own gate::${REASON}; this run uses the base branch's inputs`,
    );
    const text = JSON.stringify(check.output) + JSON.stringify(check.annotations);
    expect(text).toContain(REASON.replace(/^t/, 'T'));
    expect(text).toContain('fail-level: fail → none; tests: true → false');
    // tests: true from the base: the suite ran, and the regression is in the report.
    expect(text).toContain('tests/test_ops.py::test_add');
    expect(run.stdout).toMatch(/fail level fail → exit 1/);
  }, 300_000);

  it('a workflow edit that leaves the slopgate step alone is still ASK_AUTHOR, and says the step is unchanged', async () => {
    const edited = BASE_WORKFLOW.replace('actions/checkout@v4', 'actions/checkout@v4\n        with: { fetch-depth: 0 }');
    const { run, check } = await gate({ '.github/workflows/slopgate.yml': edited }, { 'fail-level': 'fail', tests: 'true' });
    expect(run.code).toBe(1);
    expect(check.conclusion).toBe('action_required');
    expect(JSON.stringify(check.annotations)).toContain('The slopgate step itself is as on the base.');
  }, 300_000);

  it('a change to a local action the workflow uses counts as a change to the workflow', async () => {
    const base = {
      ...BASE,
      '.github/workflows/slopgate.yml': WORKFLOW('          fail-level: fail', '\n      - uses: ./.github/actions/setup'),
      '.github/actions/setup/action.yml': "name: setup\nruns:\n  using: composite\n  steps:\n    - run: 'true'\n      shell: bash\n",
    };
    const { run, check } = await gate(
      { '.github/actions/setup/action.yml': "name: setup\nruns:\n  using: composite\n  steps:\n    - run: 'exit 0'\n      shell: bash\n" },
      { 'fail-level': 'none', tests: 'false' },
      {},
      base,
    );
    expect(run.code).toBe(1);
    expect(check.conclusion).toBe('action_required');
    expect(JSON.stringify(check.annotations)).toContain(
      'this PR changes the workflow that runs slopgate (.github/workflows/slopgate.yml, and .github/actions/setup/action.yml that it uses)'.replace(
        /^t/,
        'T',
      ),
    );
  }, 300_000);

  it('a change to the root action.yml a workflow runs with `uses: ./` counts too (not every file of the repository)', async () => {
    const rootAction = (run: string) => `name: local\nruns:\n  using: composite\n  steps:\n    - run: '${run}'\n      shell: bash\n`;
    const base = {
      ...BASE,
      '.github/workflows/slopgate.yml': WORKFLOW('          fail-level: fail', '\n      - uses: ./'),
      'action.yml': rootAction('true'),
    };
    const { run, check } = await gate({ 'action.yml': rootAction('exit 0') }, { 'fail-level': 'none', tests: 'false' }, {}, base);
    expect(run.code).toBe(1);
    expect(check.conclusion).toBe('action_required');
    expect(JSON.stringify(check.annotations)).toContain('and action.yml that it uses');
  }, 300_000);

  it('without GITHUB_WORKFLOW_REF the workflow cannot be told: ASK_AUTHOR, never a silent pass', async () => {
    const { run, check } = await gate({ 'README.md': '# calc\n' }, { 'fail-level': 'none', tests: 'false' }, { GITHUB_WORKFLOW_REF: '' });
    expect(run.code).toBe(1);
    expect(check.conclusion).toBe('action_required');
    expect(JSON.stringify(check.output)).toContain('The workflow that runs slopgate is unknown (GITHUB\\\\_WORKFLOW\\\\_REF is not set)');
  }, 300_000);
});

describe("the Action when the workflow is not the PR's to change", () => {
  it('a PR that does not touch the workflow: its inputs are used as given', async () => {
    const { run, check } = await gate({ 'README.md': '# calc\n' }, { 'fail-level': 'fail', tests: 'false' });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(check.conclusion).toBe('success');
    expect(run.stdout).not.toContain('changes its own gate');
  }, 300_000);

  it('a required workflow of a ruleset (read from the default branch) is trusted even when the PR edits the file', async () => {
    const { run, check } = await gate(
      { '.github/workflows/slopgate.yml': PR_WORKFLOW, 'README.md': '# calc\n' },
      { 'fail-level': 'fail', tests: 'false' },
      { GITHUB_WORKFLOW_REF: 'acme/policies/.github/workflows/slopgate.yml@refs/heads/main' },
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).not.toContain('changes its own gate');
    // The edit is still a workflow edit G1 reports; it just does not change this run.
    expect(check.conclusion).not.toBe('action_required');
  }, 300_000);
});
