import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoRepo } from '../../../src/cli/demo-repo.js';
import { prRepo } from '../../helpers/git-repo.js';
import { needs } from '../../helpers/toolchains.js';
import { generateAppKey } from '../../e2e/harness/app-jwt.js';
import { diffLines } from '../../e2e/harness/git-remote.js';
import { GitHubStandIn } from '../../e2e/harness/github-standin.js';
import type { PullState, RepoState } from '../../e2e/harness/github-state.js';
import { openPull, publishRepo } from '../../e2e/harness/pull-fixtures.js';
import { pullRequestPayload } from '../../e2e/harness/webhooks.js';
import { runActionProcess } from './action-harness.js';

/**
 * The GitHub Action end to end: the real entry as a child process with a runner's environment, a real
 * `pull_request` payload (GitHub's example, pointed at the test repository), a checkout like
 * `actions/checkout` leaves it (the test merge, depth 1), and the local GitHub stand-in that checks
 * every REST request against GitHub's OpenAPI description.
 */

const CLEAN_BASE = {
  'calc/__init__.py': '',
  'calc/ops.py': 'def add(a, b):\n    return a + b\n',
  'tests/test_ops.py': 'from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
  'README.md': '# calc\n\nSmall arithmetic helpers.\n',
};
const CLEAN_CHANGE = {
  'calc/ops.py': 'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n',
  'tests/test_ops.py':
    'from calc.ops import add, sub\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n',
};
const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

let gh: GitHubStandIn;
let token: string;
const scratch: string[] = [];

function restFor(repo: RepoState) {
  return gh.requests.filter((r) => r.kind === 'rest' && r.path.startsWith(`/repos/${repo.owner.login}/${repo.name}/`));
}

function addedLines(pull: PullState): Map<string, Set<number>> {
  const { login } = pull.repo.owner;
  const base = gh.remote.mergeBase(login, pull.repo.name, pull.baseSha, pull.headSha);
  const files = diffLines(gh.remote.diff(login, pull.repo.name, base, pull.headSha));
  return new Map([...files].map(([p, f]) => [p, f.added]));
}

function demoPull(owner: string, name: string, fork?: string): PullState {
  const dir = buildDemoRepo();
  scratch.push(dir);
  const repo = publishRepo(gh, owner, name, dir);
  const headRepo = fork ? publishRepo(gh, fork, name, dir, { fork: true }) : undefined;
  return openPull(gh, {
    repo,
    sourceDir: dir,
    headRef: 'slop-pr',
    title: 'Refactor db, bump metadata, polish README',
    ...(headRepo ? { headRepo, author: fork! } : {}),
  });
}

beforeAll(async () => {
  const gitRoot = mkdtempSync(join(tmpdir(), 'slopgate-action-remote-'));
  scratch.push(gitRoot);
  gh = await GitHubStandIn.start({ appId: 31337, publicKey: generateAppKey().publicKey, gitRoot });
  // The workflow's GITHUB_TOKEN: an installation token of the GitHub Actions app.
  token = gh.mintToken(4242).token;
});

afterEach(() => {
  // Every request conformed to GitHub's OpenAPI description and went to a known endpoint.
  expect(gh.violations).toEqual([]);
  gh.overrides.clear();
  gh.brokenGit.clear();
});

afterAll(async () => {
  await gh.close();
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

describe('the slopgate GitHub Action against the local GitHub stand-in', () => {
  it('a clean PR: check run created and completed success, outputs set, exit 0', async () => {
    const src = prRepo(CLEAN_BASE, CLEAN_CHANGE);
    const repo = publishRepo(gh, 'acme', 'calc', src.dir);
    const pull = openPull(gh, { repo, sourceDir: src.dir, headRef: 'pr', body: 'Adds `sub`.' });
    const run = await runActionProcess({ gh, pull, token });
    scratch.push(run.workspace);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const checks = gh.state.checkRuns.filter((c) => c.repo === repo);
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ name: 'slopgate', headSha: pull.headSha, status: 'completed', conclusion: 'success' });
    expect(checks[0]!.history[0]).toMatchObject({ status: 'in_progress', external_id: `slopgate:pr:${pull.number}` });
    // No Re-run/Refine buttons: nothing listens for them when a workflow made the check run.
    expect(checks[0]!.actions).toEqual([]);
    expect(run.outputs.blocking).toBe('0');
    expect(['PASS', 'ADVISE']).toContain(run.outputs.decision);
    expect(run.summary).toMatch(/^## slopgate: /);
    // The checkout held one commit; the Action fetched the base and head itself, with the token.
    const git = gh.requests.filter((r) => r.kind === 'git' && r.path.startsWith('/acme/calc.git/'));
    expect(git.every((r) => r.auth === 'installation' && r.status === 200)).toBe(true);
    expect(restFor(repo).every((r) => r.auth === 'installation')).toBe(true);
    // No review on a clean PR; the body gets slopgate's section once.
    expect(gh.state.reviews.filter((r) => r.repo === repo)).toEqual([]);
    expect(pull.body!.startsWith('Adds `sub`.')).toBe(true);
    expect(pull.body).toContain('<!-- slopgate:start -->');
    expect(run.stdout).not.toContain(token);
    expect(run.stderr).not.toContain(token);
  }, 300_000);

  it('the demo slop PR: check run failure with annotations, review on added lines, PR-body section, SARIF, exit 1', async () => {
    const pull = demoPull('acme', 'inventory');
    const run = await runActionProcess({ gh, pull, token, inputs: { 'sarif-file': 'slopgate.sarif' } });
    scratch.push(run.workspace);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const check = gh.state.checkRuns.find((c) => c.repo === pull.repo)!;
    expect(check.conclusion).toBe('failure');
    const annotated = new Set(check.annotations.map((a: { path: string }) => a.path));
    expect([...annotated]).toEqual(expect.arrayContaining(['README.md', 'inventory/db.py', 'ruff.toml']));
    const review = gh.state.reviews.find((r) => r.repo === pull.repo)!;
    expect(review).toMatchObject({ event: 'COMMENT', commitId: pull.headSha });
    const comments = gh.state.reviewComments.filter((c) => c.repo === pull.repo);
    expect(comments.length).toBeGreaterThan(0);
    const added = addedLines(pull);
    for (const c of comments) expect(added.get(c.path)?.has(c.line!), `${c.path}:${c.line} is an added line`).toBe(true);
    expect(pull.body).toMatch(/<!-- slopgate:start -->[\s\S]*\*\*(REFINE|STUCK|ESCALATE)\*\*[\s\S]*<!-- slopgate:end -->/);
    expect(['REFINE', 'STUCK', 'ESCALATE']).toContain(run.outputs.decision);
    expect(Number(run.outputs.blocking)).toBeGreaterThan(0);
    // With a check run, the annotations are not repeated as workflow commands.
    expect(run.stdout).not.toMatch(/^::error file=/m);
    const sarif = JSON.parse(readFileSync(join(run.workspace, 'slopgate.sarif'), 'utf8')) as {
      version: string;
      runs: { results: unknown[] }[];
    };
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0]!.results.length).toBeGreaterThan(0);
  }, 300_000);

  it('a fork PR with a read-only token: workflow annotations and the job summary, no write call, exit 1', async () => {
    const pull = demoPull('acme', 'shop', 'contributor');
    // What GitHub answers a fork's read-only token on every write (the Action must not even try).
    const forbidden = () => ({ status: 403, body: { message: 'Resource not accessible by integration' } });
    for (const op of [
      'checks/create',
      'checks/update',
      'pulls/create-review',
      'pulls/update',
      'issues/create-comment',
      'issues/add-labels',
    ]) {
      gh.overrides.set(op, forbidden);
    }
    const payload = pullRequestPayload(gh.state, pull, 'opened', { installationId: 1 });
    expect(payload.pull_request.head.repo.full_name).toBe('contributor/shop');
    const run = await runActionProcess({ gh, pull, token, payload });
    scratch.push(run.workspace);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(restFor(pull.repo).filter((r) => WRITES.has(r.method))).toEqual([]);
    expect(gh.state.checkRuns.filter((c) => c.repo === pull.repo)).toEqual([]);
    const errors = run.stdout.split('\n').filter((l) => /^::error file=[^:]+,line=\d+/.test(l));
    expect(errors.length).toBeGreaterThan(0);
    expect(run.stdout).toMatch(/^::(error|warning|notice) file=ruff\.toml,line=\d+/m);
    // Every annotation is one line: messages and properties are escaped.
    for (const l of run.stdout.split('\n').filter((x) => x.startsWith('::error file='))) expect(l).toMatch(/^::error [^:]*::.+$/);
    expect(run.summary).toMatch(/^## slopgate: .*blocking/m);
    expect(run.outputs.blocking).not.toBe('0');
    // Never fetched from the fork: its commits come from the base repository's refs/pull/N/head.
    expect(gh.requests.filter((r) => r.kind === 'git' && r.path.startsWith('/contributor/'))).toEqual([]);
  }, 300_000);

  it('a same-repo PR whose token may not write checks: one refused create, then annotations in the log, nothing lost', async () => {
    const pull = demoPull('acme', 'depot');
    gh.overrides.set('checks/create', () => ({ status: 403, body: { message: 'Resource not accessible by integration' } }));
    const run = await runActionProcess({ gh, pull, token });
    scratch.push(run.workspace);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^::warning title=slopgate%3A no check run::.*checks: write/m);
    expect(restFor(pull.repo).filter((r) => r.operationId === 'checks/create')).toHaveLength(1);
    expect(restFor(pull.repo).filter((r) => r.operationId === 'checks/update')).toEqual([]);
    expect(run.stdout).toMatch(/^::error file=/m);
    expect(run.summary).toMatch(/^## slopgate: /m);
    // Review comments and the body section still go out: the token may write those.
    expect(gh.state.reviews.filter((r) => r.repo === pull.repo)).toHaveLength(1);
    expect(pull.body).toContain('<!-- slopgate:start -->');
  }, 300_000);

  it('a PR cannot switch its own gate off: its edit of .github/slopgate.yml is not the config', async () => {
    const dir = buildDemoRepo();
    scratch.push(dir);
    execFileSync('git', ['-C', dir, 'checkout', '-q', 'slop-pr']);
    mkdirSync(join(dir, '.github'), { recursive: true });
    writeFileSync(join(dir, '.github/slopgate.yml'), 'guards:\n  disable: [G1, G2, G7, G11, G13, G14, psi]\n');
    execFileSync('git', ['-C', dir, 'add', '.github/slopgate.yml']);
    execFileSync('git', ['-C', dir, '-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '-m', 'quiet the gate']);
    const repo = publishRepo(gh, 'acme', 'selfserve', dir);
    const pull = openPull(gh, { repo, sourceDir: dir, headRef: 'slop-pr' });
    const run = await runActionProcess({ gh, pull, token });
    scratch.push(run.workspace);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const check = gh.state.checkRuns.find((c) => c.repo === repo)!;
    expect(check.conclusion).toBe('failure');
    expect(check.annotations.some((a: { title: string }) => a.title.startsWith('G7 '))).toBe(true);
    // The report names the config it ran under: the base's (none here), not the PR's file.
    expect(check.output.summary).toMatch(/Config: the embedded defaults: no slopgate config file on the base commit [0-9a-f]{7}/);
  }, 300_000);

  it('a broken config on the base: the step fails with the file and line, not as an outage', async () => {
    const src = prRepo({ ...CLEAN_BASE, '.github/slopgate.yml': 'strict: true\ncomments:\n  budget: lots\n' }, CLEAN_CHANGE);
    const repo = publishRepo(gh, 'acme', 'misconfigured', src.dir);
    const pull = openPull(gh, { repo, sourceDir: src.dir, headRef: 'pr' });
    const run = await runActionProcess({ gh, pull, token });
    scratch.push(run.workspace);
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/^::error title=slopgate%3A config error::\.github\/slopgate\.yml:3/m);
    expect(run.stdout).not.toMatch(/not about your code/i);
    const check = gh.state.checkRuns.find((c) => c.repo === repo)!;
    expect(check.conclusion).toBe('failure');
    expect(check.output.title).toMatch(/^Config error: \.github\/slopgate\.yml line 3/);
  }, 300_000);

  it('fail-level none: findings are reported but the step passes', async () => {
    const pull = demoPull('acme', 'warehouse');
    const run = await runActionProcess({ gh, pull, token, inputs: { 'fail-level': 'none' } });
    scratch.push(run.workspace);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(gh.state.checkRuns.find((c) => c.repo === pull.repo)?.conclusion).toBe('failure');
    expect(Number(run.outputs.blocking)).toBeGreaterThan(0);
  }, 300_000);

  it('an outage (the git remote fails): the step fails with "not about your code" and the check run says so', async () => {
    const src = prRepo(CLEAN_BASE, CLEAN_CHANGE);
    const repo = publishRepo(gh, 'acme', 'broken', src.dir);
    const pull = openPull(gh, { repo, sourceDir: src.dir, headRef: 'pr' });
    // The checkout works; then the remote goes down before the Action fetches.
    const run = await runActionProcess({ gh, pull, token, afterCheckout: () => gh.brokenGit.add('acme/broken') });
    scratch.push(run.workspace);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/not about your code/i);
    const check = gh.state.checkRuns.find((c) => c.repo === repo)!;
    expect(check.status).toBe('completed');
    expect(check.conclusion).toBe('action_required');
    expect(check.output.title).toMatch(/^Not about your code/);
  }, 300_000);

  it('pull_request_target is refused before anything is read or written', async () => {
    const src = prRepo(CLEAN_BASE, CLEAN_CHANGE);
    const repo = publishRepo(gh, 'acme', 'target', src.dir);
    const pull = openPull(gh, { repo, sourceDir: src.dir, headRef: 'pr' });
    const before = gh.requests.length;
    const run = await runActionProcess({ gh, pull, token, eventName: 'pull_request_target' });
    scratch.push(run.workspace);
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/^::error title=slopgate%3A use on%3A pull_request::.*pull_request_target/m);
    // Only the test's own checkout fetched (git); the Action made no request.
    expect(gh.requests.slice(before).filter((r) => r.kind === 'rest')).toEqual([]);
    expect(existsSync(run.workspace)).toBe(true);
  }, 120_000);
});

needs('pytest', 'bwrap')('the Action with the test gate on (input tests: true)', () => {
  it("runs the PR's suite in the sandbox: the demo's broken test and unimportable module are annotated", async () => {
    const pull = demoPull('acme', 'tested');
    const run = await runActionProcess({ gh, pull, token, inputs: { tests: 'true' } });
    scratch.push(run.workspace);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const check = gh.state.checkRuns.find((c) => c.repo === pull.repo)!;
    const g8 = check.annotations.filter((a: { title: string }) => a.title.startsWith('G8 '));
    expect(g8.map((a: { path: string }) => a.path).sort()).toEqual(['tests/test_connect.py', 'tests/test_db.py']);
  }, 300_000);
});
