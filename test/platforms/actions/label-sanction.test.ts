import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prRepo } from '../../helpers/git-repo.js';
import { generateAppKey } from '../../e2e/harness/app-jwt.js';
import { GitHubStandIn } from '../../e2e/harness/github-standin.js';
import type { PullState } from '../../e2e/harness/github-state.js';
import { openPull, publishRepo } from '../../e2e/harness/pull-fixtures.js';
import { pullRequestPayload } from '../../e2e/harness/webhooks.js';
import { runActionProcess } from './action-harness.js';

/**
 * Issue 19, items 4 and 6, in the GitHub Action: the `slopgate:allow-manifest` label sanctions only
 * the run of its own `labeled` event, when its sender has write access and is not the PR's author; on
 * any other run it allows nothing, and the job summary says why.
 */
let gh: GitHubStandIn;
let token: string;
const scratch: string[] = [];

beforeAll(async () => {
  const gitRoot = mkdtempSync(join(tmpdir(), 'slopgate-action-remote-'));
  scratch.push(gitRoot);
  gh = await GitHubStandIn.start({ appId: 31337, publicKey: generateAppKey().publicKey, gitRoot });
  token = gh.mintToken(4242).token;
});

afterAll(async () => {
  await gh.close();
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

const PKG = (deps: string) => `{\n  "name": "demo",\n  "version": "1.0.0",\n  "dependencies": {${deps}}\n}\n`;

function labelledPull(name: string): PullState {
  const src = prRepo(
    { 'package.json': PKG(''), 'index.js': 'module.exports = 1;\n' },
    { 'package.json': PKG('\n    "left-pad": "1.3.0"\n  ') },
  );
  scratch.push(src.dir);
  const repo = publishRepo(gh, 'acme', name, src.dir);
  repo.collaborators.set('maint', 'maintain');
  repo.collaborators.set('tri', 'triage');
  return openPull(gh, { repo, sourceDir: src.dir, headRef: 'pr', labels: ['slopgate:allow-manifest'] });
}

function labeledBy(pull: PullState, login: string) {
  const payload = pullRequestPayload(gh.state, pull, 'labeled', { installationId: 1, sender: gh.state.user(login) });
  payload.label = gh.state.labelJson('slopgate:allow-manifest');
  return payload;
}

async function run(pull: PullState, payload?: unknown) {
  const r = await runActionProcess({ gh, pull, token, ...(payload ? { payload } : {}), inputs: { 'fail-level': 'risk' } });
  scratch.push(r.workspace);
  return r;
}

describe('the allow-manifest label in the Action', () => {
  it('a maintainer adding it sanctions the manifest edit of that run', async () => {
    const pull = labelledPull('label-maint');
    const r = await run(pull, labeledBy(pull, 'maint'));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.summary).toContain('are allowed by the `slopgate:allow-manifest` label added by @');
    expect(gh.requests.some((q) => q.path.endsWith('/collaborators/maint/permission'))).toBe(true);
  }, 300_000);

  it('a triage user adding it allows nothing, and the summary says so', async () => {
    const pull = labelledPull('label-triage');
    const r = await run(pull, labeledBy(pull, 'tri'));
    expect(r.code).toBe(1);
    expect(r.summary).toContain('needs write access to this repository; your role here is `triage`');
    expect(r.summary).toContain('label allows nothing');
  }, 300_000);

  it('on a run that is not its labeled event (a push), the label allows nothing', async () => {
    const pull = labelledPull('label-push');
    const r = await run(pull, pullRequestPayload(gh.state, pull, 'synchronize', { installationId: 1 }));
    expect(r.code).toBe(1);
    expect(r.summary).toContain('allows nothing in this run');
    expect(gh.requests.some((q) => q.path.includes('/acme/label-push/collaborators/'))).toBe(false);
  }, 300_000);
});
