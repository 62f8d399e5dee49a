import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/trace.js';
import { externalIdFor, jobKey, type QueuedPrJob } from '../../src/host/queued-job.js';
import { prJobResult } from '../../src/host/pr-job.js';
import type { PrJobDeps } from '../../src/host/pr-job-deps.js';
import { STUCK_LABEL } from '../../src/host/labels.js';
import { landingOf, refineGatedHead, refinePr, type RefinePrDeps } from '../../src/host/refine-pr.js';
import { configSchema } from '../../src/core/config-schema.js';
import type { CommitPush, PullRequestFacts, PushCommitInput, Suggestion } from '../../src/host/review-host.js';
import { GUARDS } from '../../src/guards/index.js';
import type { JsonModel } from '../../src/llm/port.js';
import { RECIPES } from '../../src/refiner/recipes/index.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { RepoMirrors } from '../../src/workspace/repo-mirror.js';
import { MirrorWorkspace } from '../../src/workspace/workspace-port.js';
import { FakeRemote, removeFakeRemotes } from '../helpers/fake-remote.js';
import { DB_PY } from '../refiner/fixtures.js';
import { ScriptedModel } from '../refiner/scripted-model.js';
import { FakePlatform } from './fake-platform.js';

/** The PR breaks `add_user`'s def line (a G2 syntax failure the refiner's model is asked to fix). */
const BROKEN = DB_PY.replace('def add_user(conn, name):', 'def add_user(conn, name)');
/** A real model failure: the colon is back, but two helpers vanish behind a "remains unchanged" comment. */
const DROPPED = DB_PY.replace(/def format_row[\s\S]*$/, '# format_row and count_users remain unchanged\n');
const TOML_BASE = '[server]\nhost = "localhost"\n';
const TOML_BROKEN = '[server]\nhost = "localhost"\nmode = "fast\n';

/** A host whose pushes really land: the commit goes onto the PR's branch of the fake remote. */
class PushingPlatform extends FakePlatform {
  constructor(
    private readonly remote: FakeRemote,
    target: { owner: string; repo: string },
    pr: Partial<PullRequestFacts> & Pick<PullRequestFacts, 'number' | 'headSha' | 'baseSha'>,
  ) {
    super(target, pr);
    // The push capability records the call as usual, then moves the PR's branch on the remote for real.
    const recorded = this.push;
    this.push = { pushCommit: (input) => this.pushToRemote(input, recorded) };
  }

  private async pushToRemote(input: PushCommitInput, recorded: CommitPush | undefined): Promise<string> {
    await recorded?.pushCommit(input);
    if (input.parentSha !== this.pr.headSha) throw new Error('422: the branch moved (not a fast-forward)');
    const sha = this.remote.pushPr(this.pr.number, Object.fromEntries(input.files.map((f) => [f.path, f.content])));
    this.pr = { ...this.pr, headSha: sha };
    return sha;
  }
}

let store: Store;
const scratch: string[] = [];
let repoCounter = 0;

beforeAll(async () => {
  store = await openStore();
});

afterAll(async () => {
  await store.close();
  removeFakeRemotes();
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

interface Setup {
  host: PushingPlatform;
  remote: FakeRemote;
  job: QueuedPrJob;
  deps: RefinePrDeps;
  repo: string;
  /** Check runs started for heads the refiner pushed. */
  regated: string[];
}

async function setup(
  prFiles: Record<string, string>,
  opts: { config: string; model?: JsonModel; pr?: Partial<PullRequestFacts>; auto?: boolean },
): Promise<Setup> {
  const remote = FakeRemote.create({ 'app/db.py': DB_PY, 'app/__init__.py': '', 'config/app.toml': TOML_BASE });
  const head = remote.pushPr(7, prFiles);
  const repo = `widgets-${++repoCounter}`;
  const host = new PushingPlatform(remote, { owner: 'acme', repo }, { number: 7, headSha: head, baseSha: remote.baseSha, ...opts.pr });
  host.files.set('main:.github/slopgate.yml', opts.config);
  const work = mkdtempSync(join(tmpdir(), 'slopgate-refine-pr-'));
  scratch.push(work);
  const checkRunId = await host.startCheckRun(head, externalIdFor(7));
  const job: QueuedPrJob = {
    key: jobKey('acme', repo, 7),
    installationId: 1,
    owner: 'acme',
    repo,
    number: 7,
    headSha: head,
    checkRunId,
    trigger: 'pull_request',
    deliveryId: 'delivery-1',
  };
  const regated: string[] = [];
  const base: PrJobDeps = {
    workspace: new MirrorWorkspace(new RepoMirrors({ root: join(work, 'mirrors'), remoteUrl: () => remote.url }), join(work, 'jobs')),
    guards: GUARDS,
    store,
    sanctionKey: Buffer.alloc(32, 7),
    refinerAvailable: true,
    resolveThreads: false,
    log: silentLogger,
  };
  const deps: RefinePrDeps = {
    ...base,
    recipes: RECIPES,
    model: opts.model,
    // What the App does through its queue: a new check run on the pushed head, gated as a push.
    regate: async (h, number, sha) => {
      regated.push(sha);
      const id = await h.startCheckRun(sha, externalIdFor(number));
      await prJobResult(h, { ...job, headSha: sha, checkRunId: id, deliveryId: `refined-${sha}` }, withAuto(deps, opts.auto));
    },
  };
  return { host, remote, job, deps: withAuto(deps, opts.auto), repo, regated };
}

function withAuto(deps: RefinePrDeps, auto: boolean | undefined): RefinePrDeps {
  return auto ? { ...deps, autoRefine: (h, head) => refineGatedHead(h, head, deps) } : deps;
}

/** The last completion of the check run on `sha`. */
function verdictOn(host: FakePlatform, sha: string) {
  const runs = [...host.checkRuns.values()].filter((r) => r.headSha === sha && r.completions.length);
  return runs.at(-1)?.completions.at(-1);
}

const CONFIG = 'tests:\n  enabled: false\n';
const PUSH = `${CONFIG}refiner:\n  push: true\n`;
const TIMEOUT = 240_000;

describe('refinePr over an in-memory host', { timeout: TIMEOUT }, () => {
  it('command → one commit on the PR branch (files, message, parent, branch) → the gate re-runs on the new head → PASS', async () => {
    const model = new ScriptedModel([{ files: [{ path: 'app/db.py', content: DB_PY }], summary: 'restore the colon' }]);
    const s = await setup({ 'app/db.py': BROKEN }, { config: PUSH, model });
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('reported');
    expect(verdictOn(s.host, s.job.headSha)?.conclusion).toBe('failure');
    const g2 = (await store.listRuns(`acme/${s.repo}`, 7))[0]!.report!.findings.find((f) => f.guard === 'G2')!;
    expect(g2.severity).toBe('fail');

    expect(await refinePr(s.host, { number: 7, trigger: 'command', requestedBy: 'maint' }, s.deps)).toBe('pushed');

    expect(s.host.pushes).toHaveLength(1);
    const push = s.host.pushes[0]!;
    expect(push.branch).toBe('pr-7');
    expect(push.parentSha).toBe(s.job.headSha);
    expect(push.files).toEqual([{ path: 'app/db.py', content: DB_PY }]);
    expect(push.message).toMatch(/^slopgate refine: fix 1 finding \(round 1\)/);
    expect(push.message).toContain(`- ${g2.id} [G2] app/db.py`);
    expect(push.message).toContain('model:');
    const newHead = s.host.pr.headSha;
    expect(s.remote.bare('rev-parse', `${newHead}^`).trim()).toBe(s.job.headSha);
    expect(s.regated).toEqual([newHead]);
    expect(verdictOn(s.host, newHead)?.conclusion).toBe('success');
    expect(s.host.callsOf('postSuggestions')).toHaveLength(0);
    expect(s.host.issueComments.some((c) => c.body.includes(`pushed \`${newHead.slice(0, 7)}\``))).toBe(true);
    // The attempt is stored with the PR and the round of the report it refined; the re-gate is round 2.
    const attempts = await store.listRefineAttempts(`acme/${s.repo}`, 7);
    expect(attempts.map((a) => [a.pr, a.round, a.outcome, a.headSha])).toEqual([[7, 1, 'kept', s.job.headSha]]);
    expect((await store.listRuns(`acme/${s.repo}`, 7))[0]!.round).toBe(2);
  });

  it('an executable file stays executable in the pushed commit', async () => {
    const model = new ScriptedModel([{ files: [{ path: 'app/db.py', content: DB_PY }] }]);
    const s = await setup({ 'app/db.py': BROKEN }, { config: PUSH, model });
    s.remote.work.checkout('pr-7');
    s.remote.work.chmod('app/db.py', 0o755);
    const head = s.remote.pushPr(7, {});
    s.host.pr = { ...s.host.pr, headSha: head };
    expect(await refinePr(s.host, { number: 7, trigger: 'command' }, s.deps)).toBe('pushed');
    expect(s.host.pushes[0]!.parentSha).toBe(head);
    expect(s.host.pushes[0]!.files).toEqual([{ path: 'app/db.py', content: DB_PY, executable: true }]);
  });

  it('a fork without maintainer_can_modify gets one review of suggestions on head lines, and nothing is pushed', async () => {
    const model = new ScriptedModel([{ files: [{ path: 'app/db.py', content: DB_PY }] }]);
    const s = await setup(
      { 'app/db.py': BROKEN },
      { config: PUSH, model, pr: { isFork: true, headRepoFullName: 'someone/widgets', maintainerCanModify: false } },
    );
    expect(await refinePr(s.host, { number: 7, trigger: 'command' }, s.deps)).toBe('suggested');
    expect(s.host.callsOf('pushCommit')).toHaveLength(0);
    const [[number, review]] = s.host.callsOf('postSuggestions') as [
      [number, { commitSha: string; body: string; suggestions: Suggestion[] }],
    ];
    expect(number).toBe(7);
    expect(review.commitSha).toBe(s.job.headSha);
    const line = BROKEN.split('\n').indexOf('def add_user(conn, name)') + 1;
    expect(review.suggestions).toEqual([
      { path: 'app/db.py', startLine: line, endLine: line, replacement: 'def add_user(conn, name):', note: expect.any(String) },
    ]);
    expect(review.body).toContain('lives in a fork');
    expect(review.body).toContain('\\[G2\\] app/db.py');
    expect(s.regated).toEqual([]);
  });

  it('push off (the default): suggestions, even for a same-repository branch', async () => {
    const model = new ScriptedModel([{ files: [{ path: 'app/db.py', content: DB_PY }] }]);
    const s = await setup({ 'app/db.py': BROKEN }, { config: CONFIG, model });
    expect(await refinePr(s.host, { number: 7, trigger: 'command' }, s.deps)).toBe('suggested');
    expect(s.host.callsOf('pushCommit')).toHaveLength(0);
    const [[, review]] = s.host.callsOf('postSuggestions') as [[number, { body: string; suggestions: Suggestion[] }]];
    expect(review.body).toContain('`refiner.push` is off');
    expect(review.suggestions).toHaveLength(1);
  });

  it('a candidate that fails a guard (helpers dropped behind "remains unchanged") is never pushed; a comment explains', async () => {
    const model = new ScriptedModel([{ files: [{ path: 'app/db.py', content: DROPPED }] }]);
    const s = await setup({ 'app/db.py': BROKEN }, { config: `${PUSH}  modelAttempts: 1\n`, model });
    expect(await refinePr(s.host, { number: 7, trigger: 'command' }, s.deps)).toBe('nothing-kept');
    expect(s.host.callsOf('pushCommit')).toHaveLength(0);
    expect(s.host.callsOf('postSuggestions')).toHaveLength(0);
    const comment = s.host.issueComments.at(-1)!.body;
    expect(comment).toContain('nothing to land');
    expect(comment).toMatch(/\*\*reverted\*\*: G7 failed/);
    expect(comment).toContain('<!-- slopgate:refine -->');
    const attempts = await store.listRefineAttempts(`acme/${s.repo}`, 7);
    expect(attempts.map((a) => a.outcome)).toEqual(['reverted']);
  });

  it('the retry after a revert is not skipped as "history": this PR\'s own gate run and revert do not make its file a hotspot', async () => {
    const model = new ScriptedModel([
      { files: [{ path: 'app/db.py', content: DROPPED }] },
      { files: [{ path: 'app/db.py', content: DB_PY }] },
    ]);
    const s = await setup({ 'app/db.py': BROKEN }, { config: PUSH, model });
    await prJobResult(s.host, s.job, s.deps);
    expect(await refinePr(s.host, { number: 7, trigger: 'command' }, s.deps)).toBe('pushed');
    const attempts = await store.listRefineAttempts(`acme/${s.repo}`, 7);
    expect(attempts.map((a) => a.outcome)).toEqual(['reverted', 'kept']);
    expect(attempts[0]!.reason).toMatch(/^G7 failed/);
    expect(s.host.pushes[0]!.files).toEqual([{ path: 'app/db.py', content: DB_PY }]);
    expect(verdictOn(s.host, s.host.pr.headSha)?.conclusion).toBe('success');
  });

  it('at maxRounds the re-gate of the pushed head is STUCK with the slopgate:stuck label', async () => {
    // Two broken files; the model fixes only one: kept (strictly fewer blocking), and one is left.
    const model = new ScriptedModel([{ files: [{ path: 'app/db.py', content: DB_PY }] }]);
    const s = await setup({ 'app/db.py': BROKEN, 'config/app.toml': TOML_BROKEN }, { config: `${PUSH}maxRounds: 2\n`, model });
    await prJobResult(s.host, s.job, s.deps);
    expect((await store.listRuns(`acme/${s.repo}`, 7))[0]!.outcome).toBe('REFINE');
    expect(await refinePr(s.host, { number: 7, trigger: 'command' }, s.deps)).toBe('pushed');
    const out = verdictOn(s.host, s.host.pr.headSha)!;
    expect(out.conclusion).toBe('failure');
    expect((await store.listRuns(`acme/${s.repo}`, 7))[0]).toMatchObject({ outcome: 'STUCK', round: 2 });
    expect(s.host.pr.labels).toContain(STUCK_LABEL);
    // A STUCK head is not refined again.
    expect(await refinePr(s.host, { number: 7, trigger: 'command' }, s.deps)).toBe('declined');
    expect(s.host.issueComments.at(-1)!.body).toContain('STUCK');
    expect(s.host.pushes).toHaveLength(1);
  });

  it('refiner.auto: a REFINE decision is refined without a command, once, and the pushed head passes', async () => {
    const model = new ScriptedModel([{ files: [{ path: 'app/db.py', content: DB_PY }] }]);
    const s = await setup({ 'app/db.py': BROKEN }, { config: `${PUSH}  auto: true\n`, model, auto: true });
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('reported');
    expect(verdictOn(s.host, s.job.headSha)?.conclusion).toBe('failure');
    expect(s.host.pushes).toHaveLength(1);
    expect(verdictOn(s.host, s.host.pr.headSha)?.conclusion).toBe('success');
    // A recheck of the refined head does not refine again (auto runs on pushes only, once per head).
    const again = await s.host.startCheckRun(s.job.headSha, externalIdFor(7));
    s.host.pr = { ...s.host.pr, headSha: s.job.headSha };
    await prJobResult(s.host, { ...s.job, checkRunId: again, trigger: 'pull_request', deliveryId: 'again' }, s.deps);
    expect(s.host.pushes).toHaveLength(1);
  });

  it('where a patch lands: push only for a same-repository branch with refiner.push, never a fork or the default branch', () => {
    const push = configSchema.parse({ refiner: { push: true } });
    const off = configSchema.parse({});
    const host = new FakePlatform({ owner: 'acme', repo: 'widgets' }, { number: 1, headSha: 'h'.repeat(40), baseSha: 'b'.repeat(40) });
    expect(landingOf(host, host.pr, push)).toEqual({ push: true });
    expect(landingOf(host, host.pr, off)).toMatchObject({ push: false, why: expect.stringContaining('`refiner.push` is off') });
    // A fork stays on suggestions even when the author allows maintainers to edit: the App's token covers the base repo only.
    const fork = { ...host.pr, isFork: true, headRepoFullName: 'someone/widgets', maintainerCanModify: true };
    expect(landingOf(host, fork, push)).toMatchObject({ push: false, why: expect.stringContaining('fork') });
    expect(landingOf(host, { ...host.pr, headRef: 'main' }, push)).toMatchObject({
      push: false,
      why: expect.stringContaining('default branch'),
    });
    host.push = undefined;
    expect(landingOf(host, host.pr, push)).toMatchObject({ push: false, why: expect.stringContaining('cannot push') });
  });

  it('a push the host refuses (the branch moved on) changes nothing and is explained; no re-gate', async () => {
    const model = new ScriptedModel([{ files: [{ path: 'app/db.py', content: DB_PY }] }]);
    const s = await setup({ 'app/db.py': BROKEN }, { config: PUSH, model });
    s.host.failOn.set('pushCommit', new Error('Update is not a fast forward'));
    expect(await refinePr(s.host, { number: 7, trigger: 'command' }, s.deps)).toBe('failed');
    expect(s.regated).toEqual([]);
    expect(s.host.issueComments.at(-1)!.body).toContain('could not be pushed to `pr-7` (Update is not a fast forward)');
  });
});
