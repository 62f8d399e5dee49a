import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { FileContent } from '../helpers/git-repo.js';
import { skipOutcome } from '../../src/host/check-run-outcomes.js';
import { prJobResult, skipReasonFor } from '../../src/host/pr-job.js';
import type { PrJobDeps } from '../../src/host/pr-job-deps.js';
import { externalIdFor, type QueuedPrJob } from '../../src/host/queued-job.js';
import { ALLOW_MANIFEST_LABEL, STUCK_LABEL } from '../../src/host/labels.js';
import { BODY_START } from '../../src/host/pr-body.js';
import { SupersededError } from '../../src/queue/types.js';
import { CONCLUSION_OF } from '../../src/routing/decide.js';
import { openStore } from '../../src/store/open-store.js';
import { Store } from '../../src/store/store.js';
import { FakePlatform } from './fake-platform.js';
import { cleanUpPrs, OWNER, REPO, setupPr, type PrSetup } from './pr-setup.js';

/** A store whose runs cannot be saved (a database that stops answering after the verdict). */
class SaveFailsStore extends Store {
  override async saveRun(): Promise<string> {
    throw new Error('database gone');
  }
}

afterAll(cleanUpPrs);

type Setup = PrSetup;

/**
 * A repository on a local bare remote with PR 7 on top of `main`, an in-memory host whose PR points at
 * that head, the `slopgate` check run already started, and job deps over a fresh mirror directory.
 */
interface SetupOptions {
  /** `.github/slopgate.yml` on the default branch. */
  config?: string;
  deps?: Partial<PrJobDeps>;
  trigger?: QueuedPrJob['trigger'];
}

async function setup(prFiles: Record<string, FileContent>, opts: SetupOptions = {}): Promise<Setup> {
  const s = await setupPr(prFiles, {
    ...(opts.config !== undefined ? { config: opts.config } : {}),
    ...(opts.deps ? { deps: opts.deps } : {}),
  });
  if (opts.trigger) s.job.trigger = opts.trigger;
  return s;
}

/** The one completion of the job's check run (a second one would be a bug). */
function completion(s: Setup) {
  const run = s.host.checkRuns.get(s.job.checkRunId)!;
  expect(run.status).toBe('completed');
  expect(run.completions).toHaveLength(1);
  return run.completions[0]!;
}

const TIMEOUT = 120_000;
const b64 = (text: string) => Buffer.from(text).toString('base64url');

describe('prJobResult over an in-memory host', { timeout: TIMEOUT }, () => {
  it('PASS: a clean PR gets a success check run, the PR body section, and no review or labels', async () => {
    const s = await setup({ 'src/app.js': 'export const x = 2;\n' });
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('reported');
    const out = completion(s);
    expect(out.conclusion).toBe('success');
    expect(out.actions?.map((a) => a.identifier)).toEqual(['rerun']);
    expect(s.host.postedReviews).toHaveLength(0);
    expect(s.host.callsOf('addLabels')).toHaveLength(0);
    expect(s.host.pr.body).toContain(BODY_START);
    // Config came from the default branch, never from the PR head, and the check run says so.
    expect(s.host.callsOf('listDirectory')).toEqual([['.github', 'main']]);
    expect(out.summary).toContain('Config: the embedded defaults: no slopgate config file on main (the default branch)');
    // The check run is completed before anything best-effort happens.
    const order = s.host.calls.map((c) => c.method);
    expect(order.indexOf('completeCheckRun')).toBeLessThan(order.indexOf('listReviewComments'));
    expect(order.indexOf('completeCheckRun')).toBeLessThan(order.indexOf('updatePullRequestBody'));
  });

  it('a blocking finding fails the check, comments on the added line and offers Refine when the refiner exists', async () => {
    const s = await setup({ 'src/app.js': 'export const x = 1;\nexport const y = 2; // SLOP\n' }, { deps: { refinerAvailable: true } });
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('reported');
    const out = completion(s);
    expect(out.conclusion).toBe('failure');
    expect(out.actions?.map((a) => a.identifier)).toEqual(['refine', 'rerun']);
    expect(out.annotations?.[0]).toMatchObject({ path: 'src/app.js', start_line: 2, annotation_level: 'failure' });
    expect(s.host.postedReviews).toHaveLength(1);
    expect(s.host.postedReviews[0]!.commitSha).toBe(s.job.headSha);
    expect(s.host.postedReviews[0]!.comments).toEqual([expect.objectContaining({ path: 'src/app.js', line: 2, side: 'RIGHT' })]);
    expect(s.host.postedReviews[0]!.body).toContain(`${s.host.pr.repoHtmlUrl}/checks/${s.job.checkRunId}`);
  });

  it('a read-only host (no comment or PR edit rights) still gets the verdict on the check run, and nothing else is tried', async () => {
    const s = await setup({ 'src/app.js': 'SLOP\n' }, { config: 'maxRounds: 1\n' });
    s.host.only();
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('reported');
    expect(completion(s).conclusion).toBe('failure');
    expect(completion(s).summary).toContain('Config: .github/slopgate.yml on main (the default branch)');
    for (const m of ['listReviewComments', 'createReview', 'updatePullRequestBody', 'addLabels'] as const) {
      expect(s.host.callsOf(m)).toEqual([]);
    }
  });

  it('a closed PR is skipped through routing (neutral, tier-1 reason), before any config is read', async () => {
    const s = await setup({ 'src/app.js': 'SLOP\n' });
    s.host.pr.state = 'closed';
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('skipped');
    const out = completion(s);
    expect(out).toMatchObject({ conclusion: 'neutral', title: 'Skipped: the pull request is closed' });
    expect(out.actions?.map((a) => a.identifier)).toEqual(['rerun']);
    expect(s.host.callsOf('listDirectory')).toHaveLength(0);
    expect(s.host.callsOf('cloneCredentials')).toHaveLength(0);
  });

  it('a draft is skipped under the default `drafts: skip`, and gated with `drafts: run`', async () => {
    const s = await setup({ 'src/app.js': 'SLOP\n' });
    s.host.pr.draft = true;
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('skipped');
    expect(completion(s)).toMatchObject({ conclusion: 'neutral', title: 'Skipped: draft' });
    expect(s.host.callsOf('cloneCredentials')).toHaveLength(0);

    const t = await setup({ 'src/app.js': 'SLOP\n' }, { config: 'drafts: run\n' });
    t.host.pr.draft = true;
    expect(await prJobResult(t.host, t.job, t.deps)).toBe('reported');
    expect(completion(t).conclusion).toBe('failure');
  });

  it('an author in ignore.authors is skipped; the config is read from the default branch', async () => {
    const s = await setup({ 'src/app.js': 'SLOP\n' }, { config: 'ignore:\n  authors: [renovate-bot]\n' });
    s.host.pr.author = 'renovate-bot';
    // The same file on the PR head must not matter.
    s.host.files.set(`${s.job.headSha}:.github/slopgate.yml`, 'ignore:\n  authors: []\n');
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('skipped');
    expect(completion(s)).toMatchObject({ conclusion: 'neutral', title: 'Skipped: author renovate-bot is in ignore.authors' });
    expect(s.host.callsOf('readFile')).toEqual([['.github/slopgate.yml', 'main']]);
  });

  it('a PR that moved on cancels the run as superseded and hands the real head to the runtime', async () => {
    const stale: string[] = [];
    const s = await setup({ 'src/app.js': 'SLOP\n' }, { deps: { onStaleHead: async (_job, head) => void stale.push(head) } });
    s.host.pr.headSha = 'f'.repeat(40);
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('superseded');
    expect(completion(s)).toMatchObject({ conclusion: 'cancelled', title: 'Superseded by fffffff' });
    expect(stale).toEqual(['f'.repeat(40)]);
  });

  it('a broken config on the default branch fails the check with the file and the problem, and gates nothing', async () => {
    const s = await setup({ 'src/app.js': 'SLOP\n' }, { config: 'maxRounds: lots\n' });
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('config-error');
    const out = completion(s);
    expect(out.conclusion).toBe('failure');
    expect(out.title).toMatch(/^Config error: \.github\/slopgate\.yml/);
    expect(out.summary).toContain('`main`');
    expect(s.host.callsOf('cloneCredentials')).toHaveLength(0);
  });

  it('slopgate failing itself is action_required by default, never a pass', async () => {
    const s = await setup({ 'src/app.js': 'x\n' }, { deps: { gate: async () => Promise.reject(new Error('sandbox exploded')) } });
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('infrastructure-error');
    const out = completion(s);
    expect(out.conclusion).toBe('action_required');
    expect(out.title).toContain('sandbox exploded');
    expect(out.actions?.map((a) => a.identifier)).toEqual(['rerun']);
  });

  it('slopgate failing itself is neutral when the default branch says `onInfraError: neutral`', async () => {
    const gate = async () => Promise.reject(new Error('out of disk'));
    const s = await setup({ 'src/app.js': 'x\n' }, { config: 'onInfraError: neutral\n', deps: { gate } });
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('infrastructure-error');
    expect(completion(s)).toMatchObject({ conclusion: 'neutral' });
  });

  it('a host failure before the config is read still completes the run, with the safe default', async () => {
    const s = await setup({ 'src/app.js': 'x\n' }, { config: 'onInfraError: neutral\n' });
    s.host.failOn.set('listDirectory', new Error('502 from the host'));
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('infrastructure-error');
    expect(completion(s)).toMatchObject({ conclusion: 'action_required' });
  });

  it('aborted for shutdown: the job throws and leaves the check run to the queue (handed off)', async () => {
    const s = await setup({ 'src/app.js': 'x\n' });
    const ctl = new AbortController();
    ctl.abort(new Error('worker shutting down'));
    await expect(prJobResult(s.host, s.job, s.deps, ctl.signal)).rejects.toThrow();
    expect(s.host.callsOf('completeCheckRun')).toHaveLength(0);
    expect(s.host.checkRuns.get(s.job.checkRunId)!.status).toBe('in_progress');
  });

  it('aborted because a newer job arrived: cancelled, naming the newer head', async () => {
    const newer = 'a'.repeat(40);
    const s = await setup({ 'src/app.js': 'x\n' }, { deps: { headOfJob: (id) => (id === 'job-2' ? newer : undefined) } });
    const ctl = new AbortController();
    ctl.abort(new SupersededError('job-2'));
    expect(await prJobResult(s.host, s.job, s.deps, ctl.signal)).toBe('superseded');
    expect(completion(s)).toMatchObject({ conclusion: 'cancelled', title: 'Superseded by aaaaaaa' });
  });

  describe('with a store', () => {
    let store: Store;
    afterEach(async () => {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed
      await store?.close();
    });

    it('rounds come from the store: REFINE advances the round, and at maxRounds the PR is STUCK and labelled', async () => {
      store = await openStore();
      const s = await setup({ 'src/app.js': 'SLOP\n' }, { config: 'maxRounds: 2\n' });
      s.deps.store = store;
      expect(await prJobResult(s.host, s.job, s.deps)).toBe('reported');
      expect(completion(s).conclusion).toBe('failure');
      expect(s.host.pr.labels).not.toContain(STUCK_LABEL);
      expect((await store.getRound(`${OWNER}/${REPO}`, 7)).round).toBe(2);

      // The next push: same PR, round 2 of 2.
      const head2 = s.remote.pushPr(7, { 'src/app.js': 'SLOP again\n' });
      s.host.pr.headSha = head2;
      const checkRunId = await s.host.startCheckRun(head2, externalIdFor(7));
      const job2 = { ...s.job, headSha: head2, checkRunId, deliveryId: 'delivery-2' };
      expect(await prJobResult(s.host, job2, s.deps)).toBe('reported');
      const out = s.host.checkRuns.get(checkRunId)!.completions;
      expect(out).toHaveLength(1);
      expect(out[0]!.conclusion).toBe('failure');
      expect(out[0]!.summary).toContain('STUCK');
      expect(s.host.callsOf('addLabels')).toEqual([[7, [STUCK_LABEL]]]);
      expect(s.host.pr.labels).toContain(STUCK_LABEL);
      const runs = await store.listRuns(`${OWNER}/${REPO}`, 7, 10);
      expect(runs.map((r) => r.report?.decision.outcome).sort()).toEqual(['REFINE', 'STUCK']);
    });

    it('steps after the verdict failing (comments, body, labels, the store) never turn a finished report into an error', async () => {
      store = await openStore();
      const s = await setup({ 'src/app.js': 'SLOP\n' }, { config: 'maxRounds: 1\n' });
      s.deps.store = new SaveFailsStore(store.db);
      s.host.failOn.set('listReviewComments', new Error('comments down'));
      s.host.failOn.set('updatePullRequestBody', new Error('body down'));
      s.host.failOn.set('addLabels', new Error('labels down'));
      expect(await prJobResult(s.host, s.job, s.deps)).toBe('reported');
      const out = completion(s);
      expect(out.conclusion).toBe('failure');
      expect(s.host.callsOf('addLabels')).toEqual([[7, [STUCK_LABEL]]]);
      expect(s.host.callsOf('updatePullRequestBody')).toHaveLength(1);
    });
  });

  it('sanctions: grants in signed replies of this App reach the pipeline while the file is as approved; others do not', async () => {
    const seen: { sanctions: string[]; notes: string[] }[] = [];
    const s = await setup(
      { 'package.json': '{"name":"w"}\n', 'go.mod': 'module w\n', 'Cargo.toml': '[package]\nname = "w"\n' },
      {
        deps: {
          gate: async (opts) => {
            seen.push({ sanctions: opts.sanctions ?? [], notes: opts.sanctionNotes ?? [] });
            throw new Error('stop here');
          },
        },
      },
    );
    const { grantMarker, legacyAllowMarker } = await import('../../src/host/sanctions.js');
    const blob = (path: string) => s.remote.work.git('rev-parse', `${s.job.headSha}:${path}`).trim();
    const scope = { owner: OWNER, repo: REPO, number: 7 };
    const grant = (path: string, b: string, via: 'allow' | 'label' = 'allow') =>
      grantMarker({ via, by: 'maint', at: s.job.headSha, pattern: path, files: [{ path, blob: b }] }, s.deps.sanctionKey!, scope);
    s.host.issueComments.push(
      { id: 1, body: `ok ${grant('package.json', blob('package.json'))}`, authorIsBot: true, byThisApp: true },
      { id: 2, body: `stale ${grant('go.mod', 'f'.repeat(40))}`, authorIsBot: true, byThisApp: true },
      { id: 3, body: `pasted ${grant('Cargo.toml', blob('Cargo.toml'))}`, authorIsBot: false, byThisApp: false },
      { id: 4, body: `other bot ${grant('Cargo.toml', blob('Cargo.toml'))}`, authorIsBot: true, byThisApp: false },
      { id: 5, body: `forged <!-- slopgate:grant:${b64('{}')}.${'A'.repeat(32)} -->`, authorIsBot: true, byThisApp: true },
      { id: 6, body: `old format ${legacyAllowMarker('pom.xml', s.deps.sanctionKey!, scope)}`, authorIsBot: true, byThisApp: true },
      { id: 7, body: `label ${grant('Cargo.toml', blob('Cargo.toml'), 'label')}`, authorIsBot: true, byThisApp: true },
    );
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('infrastructure-error');
    expect(seen[0]!.sanctions).toEqual(['package.json']);
    expect(seen[0]!.notes.join('\n')).toContain('`package.json` is allowed by `/slopgate allow package.json` by @maint');
    expect(seen[0]!.notes.join('\n')).toMatch(/The allow for `go\.mod` given at `\w{7}` .* lapsed: the file changed since/);
    expect(seen[0]!.notes.join('\n')).toContain('The allow for `pom.xml` was given before sanctions were bound');

    // The label's grant counts while the label is on the PR; a label without a grant of its own allows nothing.
    s.host.pr.labels = [ALLOW_MANIFEST_LABEL];
    const second = await s.host.startCheckRun(s.job.headSha, externalIdFor(7));
    expect(await prJobResult(s.host, { ...s.job, checkRunId: second }, s.deps)).toBe('infrastructure-error');
    expect(seen[1]!.sanctions.sort()).toEqual(['Cargo.toml', 'package.json']);
    s.host.issueComments.splice(
      s.host.issueComments.findIndex((c) => c.id === 7),
      1,
    );
    const third = await s.host.startCheckRun(s.job.headSha, externalIdFor(7));
    expect(await prJobResult(s.host, { ...s.job, checkRunId: third }, s.deps)).toBe('infrastructure-error');
    expect(seen[2]!.sanctions).toEqual(['package.json']);
    expect(seen[2]!.notes.join('\n')).toContain('label is on this PR but allows nothing: no one with write access added it');
  });

  it("skips are routing decisions: the conclusion is SKIPPED's, and a closed PR wins over draft and author", () => {
    const host = new FakePlatform({ owner: OWNER, repo: REPO }, { number: 1, headSha: 'h', baseSha: 'b', state: 'closed', draft: true });
    expect(skipReasonFor(host.pr)).toBe('the pull request is closed');
    expect(skipOutcome('draft')).toMatchObject({ conclusion: CONCLUSION_OF.SKIPPED, title: 'Skipped: draft' });
  });
});
