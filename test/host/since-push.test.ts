import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SincePushSection } from '../../src/core/report-sections.js';
import type { Report } from '../../src/core/report.js';
import { runGate } from '../../src/gate/run-gate.js';
import { externalIdFor, type QueuedPrJob } from '../../src/host/queued-job.js';
import { prJobResult } from '../../src/host/pr-job.js';
import { findingIdOf } from '../../src/host/review-plan.js';
import { previousGatedHead } from '../../src/host/since-push.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { buildReport, f } from '../report/build-report.js';
import { ALL_CAPABILITIES } from './fake-platform.js';
import { cleanUpPrs, completionOf, FULL, nextJob, setupPr, type PrSetup } from './pr-setup.js';

const TIMEOUT = 120_000;

let store: Store;
beforeEach(async () => {
  store = await openStore();
});
afterEach(async () => {
  await store.close();
});
afterAll(cleanUpPrs);

const FIRST = 'export const x = 1;\nconst a = 1; // SLOP\nconst b = 2; // SLOP\n';
/** `a` fixed, two lines on top (b moves from line 3 to 4), `c` new on line 5. */
const SECOND = '// header\n// more header\nexport const x = 1;\nconst b = 2; // SLOP\nconst c = 3; // SLOP\n';

async function sectionOfLatestRun(pr: number): Promise<SincePushSection | undefined> {
  const [run] = await store.listRuns(FULL, pr, 1);
  return run?.report?.sections.sincePush;
}

/** Ids of every comment whose thread the job asked the host to resolve. */
const resolvedIds = (s: PrSetup) =>
  new Set(s.host.callsOf('resolveThreads').flatMap((call) => (call[1] as { id: number }[]).map((c) => c.id)));

const commentIdsOf = (s: PrSetup) => s.host.reviewComments.map((c) => ({ id: c.id, finding: findingIdOf(c.body), line: c.line }));

/** Gates the first push (findings on lines 2 and 3), then the second (one fixed, one moved, one new). */
async function twoPushes(resolveThreads = true): Promise<{ s: PrSetup; second: QueuedPrJob }> {
  const s = await setupPr({ 'src/app.js': FIRST }, { deps: { store, resolveThreads } });
  expect(await prJobResult(s.host, s.job, s.deps)).toBe('reported');
  expect(s.host.reviewComments).toHaveLength(2);
  expect(await sectionOfLatestRun(7)).toBeUndefined(); // the first gated head has nothing to compare with
  const second = await nextJob(s, { 'src/app.js': SECOND });
  expect(await prJobResult(s.host, second, s.deps)).toBe('reported');
  return { s, second };
}

describe('since the last push, through the host seam', { timeout: TIMEOUT }, () => {
  it('a second push: 1 fixed, 1 new, 1 still open in the check run and the PR body; only the fixed thread is resolved', async () => {
    const { s, second } = await twoPushes();
    const done = completionOf(s, second);
    expect(done.summary).toContain(`Since \`${s.job.headSha.slice(0, 7)}\` (the last gated push): 1 fixed · 1 new · 1 still open`);
    expect(done.summary).toContain('### Since the last push');
    expect(done.summary).toMatch(/\*\*Fixed\*\*\n\n- fail · G99 · `todo-marker` · `src\/app\.js` line 2 at `[0-9a-f]{7}`/);
    expect(done.summary).toMatch(/\*\*New\*\*\n\n- fail · G99 · `todo-marker` · `src\/app\.js` line 5:/);
    expect(s.host.pr.body).toContain('1 fixed · 1 new · 1 still open');
    expect(s.host.pr.body).toContain(`\`${second.headSha.slice(0, 7)}\``);

    // Review comments: the moved finding keeps its comment (no second one), the new one gets one.
    const [first, moved] = commentIdsOf(s);
    expect(s.host.reviewComments).toHaveLength(3);
    expect(s.host.postedReviews[1]!.comments.map((c) => c.line)).toEqual([5]);
    const resolved = s.host.callsOf('resolveThreads');
    expect(resolved).toHaveLength(1);
    expect(resolved[0]![1]).toEqual([expect.objectContaining({ id: first!.id })]);
    expect(s.host.callsOf('hideStaleComments')).toEqual([]);

    const section = (await sectionOfLatestRun(7))!;
    expect(section).toMatchObject({ history: 'descendant', mergeBaseMoved: false, lineMapping: 'diff', dismissed: [] });
    expect(section.fixed).toEqual([expect.objectContaining({ id: first!.finding, line: 2, gone: 'fixed' })]);
    expect(section.stillOpen).toEqual([{ id: expect.any(String), was: [moved!.finding] }]);

    // A third push that changes nothing flagged: the moved finding's comment (posted under its first id) stays open.
    const third = await nextJob(s, { 'README.md': 'widgets, documented\n' });
    expect(await prJobResult(s.host, third, s.deps)).toBe('reported');
    expect(completionOf(s, third).summary).toContain('0 fixed · 0 new · 2 still open');
    expect(resolvedIds(s)).toEqual(new Set([first!.id])); // the host skips a thread resolved before
    expect(s.host.reviewComments).toHaveLength(3);
  });

  it('a recheck of the same head compares with the push before it, not with itself', async () => {
    const { s } = await twoPushes();
    const recheck = await nextJob(s);
    expect(await prJobResult(s.host, recheck, s.deps)).toBe('reported');
    expect(completionOf(s, recheck).summary).toContain(
      `Since \`${s.job.headSha.slice(0, 7)}\` (the last gated push): 1 fixed · 1 new · 1 still open`,
    );
  });

  it('a host without the threads capability (ThreadResolver) hides the fixed comment instead', async () => {
    const s = await setupPr({ 'src/app.js': FIRST }, { deps: { store, resolveThreads: true } });
    s.host.only(...ALL_CAPABILITIES.filter((c) => c !== 'threads'));
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('reported');
    const second = await nextJob(s, { 'src/app.js': SECOND });
    expect(await prJobResult(s.host, second, s.deps)).toBe('reported');
    expect(s.host.callsOf('hideStaleComments')).toEqual([[7, [expect.objectContaining({ id: s.host.reviewComments[0]!.id })]]]);
    expect(s.host.callsOf('resolveThreads')).toEqual([]);
  });

  it('a force-push onto a moved base: the comparison follows the new merge-base and carries lines through the rebase', async () => {
    const { s } = await twoPushes();
    const oldHead = s.host.pr.headSha;
    // main moves on (three lines on top of src/app.js); the PR is rebuilt on it and force-pushed.
    const work = s.remote.work;
    work.checkout('main');
    const rebasedOnto = work.write({ 'src/app.js': `// main 1\n// main 2\n// main 3\nexport const x = 1;\n` }).commit('main moves');
    work.git('push', '-q', s.remote.dir, 'main:main');
    work.git('checkout', '-q', '-B', 'rewritten', 'main');
    const head = work.write({ 'src/app.js': `// main 1\n// main 2\n// main 3\n${SECOND}` }).commit('rebased');
    work.git('push', '-q', '--force', s.remote.dir, `${head}:refs/pull/7/head`);
    work.checkout('main');
    s.host.pr.headSha = head;
    s.host.pr.baseSha = rebasedOnto;
    const job: QueuedPrJob = {
      ...s.job,
      headSha: head,
      checkRunId: await s.host.startCheckRun(head, externalIdFor(7)),
      deliveryId: 'force',
    };
    expect(await prJobResult(s.host, job, s.deps)).toBe('reported');

    const done = completionOf(s, job);
    expect(done.summary).toContain(`Since \`${oldHead.slice(0, 7)}\` (the last gated push): 0 fixed · 0 new · 2 still open`);
    expect(done.summary).toContain('The branch was force-pushed or rebased since');
    expect(done.summary).toContain('compared against its new merge-base');
    const section = (await sectionOfLatestRun(7))!;
    expect(section).toMatchObject({ history: 'rewritten', mergeBaseMoved: true, lineMapping: 'diff', new: [], fixed: [] });
    // Nothing resolved beyond the thread of the finding fixed by the second push; no comment repeated.
    expect(resolvedIds(s)).toEqual(new Set([s.host.reviewComments[0]!.id]));
    expect(s.host.reviewComments).toHaveLength(3);
    // The verdict shown is the new head's, and says so.
    expect(s.host.pr.body).toContain(`\`${head.slice(0, 7)}\``);
    expect(done.summary).toContain(`\`${head.slice(0, 7)}\``);
  });

  it('a push that lands while a run publishes: its check run completes, nothing PR-wide is written for the old commit', async () => {
    const s = await setupPr({ 'src/app.js': FIRST }, { deps: { store } });
    const newer = 'f'.repeat(40);
    s.deps.gate = async (opts) => {
      const report: Report = await runGate(opts);
      s.host.pr.headSha = newer; // the author pushed while the gate ran
      return report;
    };
    const bodyBefore = s.host.pr.body;
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('reported');
    expect(completionOf(s).conclusion).toBe('failure');
    expect(s.host.postedReviews).toEqual([]);
    expect(s.host.pr.body).toBe(bodyBefore);
    expect(s.host.callsOf('addLabels')).toEqual([]);
  });
});

describe('the previous gated head, from the store', () => {
  const sha = (c: string) => c.repeat(40);
  const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
  const run = (head: string, trigger: string, minute: number, findings = [f()]) =>
    store.saveRun(buildReport(findings, { head: { ref: 'pr', sha: head } }), { repo: FULL, pr: 9, trigger, startedAt: at(minute) });

  it('is the newest run of the PR on another head that gated the PR itself; a finding it cannot read is left out', async () => {
    await run(sha('a'), 'pull_request', 1);
    const odd = { ...f({ line: 3 }), category: 'a-category-from-the-future' };
    await run(sha('b'), 'pull_request', 2, [f({ line: 7 }), odd as ReturnType<typeof f>]);
    await run(sha('c'), 'cli', 3);
    await run(sha('d'), 'refine', 4);
    await run(sha('e'), 'recheck', 5);
    // Gating head e again: its own runs are passed over, as are the CLI and refine runs.
    expect(await previousGatedHead(store, FULL, 9, sha('e'))).toMatchObject({ headSha: sha('b'), findings: [{ line: 7 }] });
    expect((await previousGatedHead(store, FULL, 9, sha('e')))!.findings).toHaveLength(1);
    expect(await previousGatedHead(store, FULL, 9, sha('f'))).toMatchObject({ headSha: sha('e') });
    expect(await previousGatedHead(store, FULL, 10, sha('f'))).toBeNull();
  });
});
