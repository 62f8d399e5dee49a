import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Guard } from '../../src/core/guard.js';
import { silentLogger } from '../../src/core/trace.js';
import { dismissByCommand, NO_STORE_FOR_DISMISS, type DismissRequest } from '../../src/host/dismiss-finding.js';
import { prJobResult } from '../../src/host/pr-job.js';
import { findingIdOf } from '../../src/host/review-plan.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoredDismissal } from '../../src/store/dismissals.js';
import { Store } from '../../src/store/store.js';
import { markerGuard } from '../helpers/test-guards.js';
import { cleanUpPrs, completionOf, FULL, nextJob, setupPr, type PrSetup } from './pr-setup.js';

const TIMEOUT = 120_000;

/** The same database, but listing dismissals fails (a store that stops answering). */
class ListFailsStore extends Store {
  override listDismissals(): Promise<StoredDismissal[]> {
    return Promise.reject(new Error('connection reset'));
  }
}
const log = silentLogger;

let store: Store;
beforeEach(async () => {
  store = await openStore();
});
afterEach(async () => {
  await store.close();
});
afterAll(cleanUpPrs);

/** Gates PR 7 (line 2 of src/app.js holds the SLOP marker) with the store; returns the setup and the finding's id. */
async function gatedSlopPr(): Promise<{ s: PrSetup; id: string }> {
  const s = await setupPr({ 'src/app.js': 'export const x = 1;\nexport const y = 2; // SLOP\n' }, { deps: { store } });
  expect(await prJobResult(s.host, s.job, s.deps)).toBe('reported');
  expect(completionOf(s).conclusion).toBe('failure');
  const id = findingIdOf(s.host.postedReviews[0]?.comments[0]?.body);
  expect(id).toMatch(/^[0-9a-f]{12}$/);
  return { s, id: id! };
}

function request(s: PrSetup, findingId: string, reason = 'the marker is part of a fixture on purpose'): DismissRequest {
  return { repo: FULL, pr: s.job.number, headSha: s.host.pr.headSha, sender: 'maint', findingId, reason };
}

describe('/slopgate dismiss through the host seam', { timeout: TIMEOUT }, () => {
  it('accepted: recorded in the store; the re-gate shows it dismissed, unblocks the decision and hides the old comment', async () => {
    const { s, id } = await gatedSlopPr();
    const out = await dismissByCommand(store, request(s, id), { log });
    expect(out.ok).toBe(true);
    expect(out.reply).toContain(`Dismissed by @maint: finding \`${id}\``);
    expect(out.reply).toContain('Reason: the marker is part of a fixture on purpose');
    const stored = await store.listDismissals(FULL, 7);
    expect(stored).toEqual([
      expect.objectContaining({ fingerprint: id, by: 'maint', source: 'command', category: 'todo-marker', path: 'src/app.js' }),
    ]);

    const again = await nextJob(s);
    expect(await prJobResult(s.host, again, s.deps)).toBe('reported');
    const done = completionOf(s, again);
    expect(done.conclusion).toBe('success');
    expect(done.text ?? '').toContain('(dismissed)');
    expect(done.text ?? '').toContain('dismissed by maint via /slopgate dismiss');
    // Annotations and line comments skip a dismissed finding; the earlier comment is hidden.
    expect(done.annotations ?? []).toEqual([]);
    expect(s.host.postedReviews).toHaveLength(1);
    const hidden = s.host.callsOf('hideStaleComments');
    expect(hidden).toHaveLength(1);
    expect(hidden[0]![1]).toEqual([expect.objectContaining({ id: expect.any(Number) })]);
    const runs = await store.listRuns(FULL, 7, 5);
    expect(runs[0]!.report?.findings.find((f) => f.id === id)?.dismissed).toMatchObject({ by: 'maint', source: 'command' });
    expect(runs[0]!.report?.decision.blocking).toBe(0);
  });

  it('carried to a new push while the fingerprint is unchanged; a changed finding blocks again', async () => {
    const { s, id } = await gatedSlopPr();
    expect((await dismissByCommand(store, request(s, id), { log })).ok).toBe(true);

    // Another file changes; the flagged line stays as it was.
    const push = await nextJob(s, { 'README.md': 'widgets, now documented\n' });
    expect(await prJobResult(s.host, push, s.deps)).toBe('reported');
    expect(completionOf(s, push).conclusion).toBe('success');

    // The marker moves to another line: a new fingerprint (category, path, line, remediation), not covered.
    const changed = await nextJob(s, { 'src/app.js': 'export const x = 1;\nexport const y = 2;\nexport const z = 3; // SLOP\n' });
    expect(await prJobResult(s.host, changed, s.deps)).toBe('reported');
    const out = completionOf(s, changed);
    expect(out.conclusion).toBe('failure');
    expect(out.annotations).toEqual([expect.objectContaining({ path: 'src/app.js', start_line: 3 })]);
  });

  it('a store that cannot list dismissals at gate time makes the finding count again (stricter, never more open)', async () => {
    const { s, id } = await gatedSlopPr();
    expect((await dismissByCommand(store, request(s, id), { log })).ok).toBe(true);
    const broken = new ListFailsStore(store.db);
    const again = await nextJob(s);
    expect(await prJobResult(s.host, again, { ...s.deps, store: broken })).toBe('reported');
    expect(completionOf(s, again).conclusion).toBe('failure');
  });

  it('an unknown id is refused and nothing is stored', async () => {
    const { s } = await gatedSlopPr();
    const out = await dismissByCommand(store, request(s, 'deadbeef0000'), { log });
    expect(out).toMatchObject({ ok: false });
    expect(out.reply).toContain('no finding `deadbeef0000` in the latest report');
    expect(await store.listDismissals(FULL, 7)).toEqual([]);
  });

  it('a finding of an older head is not the latest report: refused', async () => {
    const { s, id } = await gatedSlopPr();
    s.remote.pushPr(7, { 'src/app.js': 'export const x = 1;\n' });
    s.host.pr.headSha = s.remote.work.git('rev-parse', 'pr-7').trim();
    const out = await dismissByCommand(store, request(s, id), { log });
    expect(out.ok).toBe(false);
    expect(await store.listDismissals(FULL, 7)).toEqual([]);
  });

  it('a finding that says the gate itself failed cannot be dismissed', async () => {
    const crashing: Guard = {
      id: 'G98',
      name: 'crashes',
      appliesTo: () => true,
      checkFile: () => {
        throw new Error('boom');
      },
    };
    const s = await setupPr({ 'src/app.js': 'export const x = 2;\n' }, { deps: { store, guards: [markerGuard, crashing] } });
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('reported');
    const [run] = await store.listRuns(FULL, 7, 1);
    const crash = run!.report!.findings.find((f) => f.category === 'guard-error');
    expect(crash, 'the crashing guard yields a guard-error finding').toBeDefined();
    const out = await dismissByCommand(store, request(s, crash!.id), { log });
    expect(out.ok).toBe(false);
    expect(out.reply).toContain('cannot be dismissed');
    expect(await store.listDismissals(FULL, 7)).toEqual([]);
  });

  it('without a store it says so clearly and records nothing', async () => {
    const out = await dismissByCommand(
      undefined,
      { repo: FULL, pr: 7, headSha: 'a'.repeat(40), sender: 'maint', findingId: 'deadbeef0000', reason: 'r' },
      { log },
    );
    expect(out).toEqual({ ok: false, reply: NO_STORE_FOR_DISMISS });
    expect(out.reply).toContain('keeps no store');
  });

  it("without a stored run of the head, the host's record (the check run) is asked for the finding", async () => {
    const s = await setupPr({ 'src/app.js': 'x\n' });
    const asked: string[] = [];
    const hostFindings = async (head: string, fid: string) => {
      asked.push(head);
      return [{ id: fid, category: 'todo-marker' as const }];
    };
    const out = await dismissByCommand(store, request(s, 'abcdefabcdef'), { log, hostFindings });
    expect(out.ok).toBe(true);
    expect(asked).toEqual([s.host.pr.headSha]);
    expect(await store.listDismissals(FULL, 7)).toEqual([
      expect.objectContaining({ fingerprint: 'abcdefabcdef', category: 'todo-marker' }),
    ]);
  });
});
