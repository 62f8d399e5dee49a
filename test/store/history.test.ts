import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, makeReport } from './backends.js';
import type { Store } from '../../src/store/store.js';

const DAY = 86_400_000;
const now = new Date('2026-03-10T12:00:00Z');
const daysAgo = (n: number) => new Date(now.getTime() - n * DAY);

describe.each(BACKENDS.map((b) => [b().name, b] as const))('failure history (G9 query) on %s', (_name, factory) => {
  const backend = factory();
  let store: Store;
  /** Saves a run with one failing finding per path. */
  const fail = (
    repo: string,
    paths: string[],
    opts: { pr?: number; head?: string; at?: Date; guard?: string; category?: 'toplevel-dropped' | 'syntax-invalid' } = {},
  ) =>
    store.saveRun(
      makeReport({
        repo,
        ...(opts.head ? { headSha: opts.head } : {}),
        findings: paths.map((p) => ({
          guard: opts.guard ?? 'G7',
          category: opts.category ?? 'toplevel-dropped',
          severity: 'fail' as const,
          path: p,
          message: `dropped a function in ${p}`,
        })),
      }),
      { trigger: 'pull_request', finishedAt: opts.at ?? daysAgo(1), ...(opts.pr !== undefined ? { pr: opts.pr } : {}) },
    );

  beforeAll(async () => {
    await backend.setup();
    store = await backend.open();
  });
  afterAll(() => backend.teardown());

  it('flags a path that failed in two separate runs in the window, with counts, guards and the latest runs', async () => {
    const r1 = await fail('h/basic', ['src/db.py'], { pr: 1, at: daysAgo(3) });
    const r2 = await fail('h/basic', ['src/db.py', 'src/x.py'], { pr: 2, at: daysAgo(1), guard: 'G2', category: 'syntax-invalid' });
    const spots = await store.hotspots('h/basic', ['src/db.py', 'src/x.py', 'src/new.py'], 7, 2, { now });
    expect(spots).toHaveLength(1);
    expect(spots[0]).toMatchObject({ path: 'src/db.py', runs: 2, failures: 2 });
    expect(spots[0]!.guards.sort()).toEqual(['G2', 'G7']);
    expect(spots[0]!.categories.sort()).toEqual(['syntax-invalid', 'toplevel-dropped']);
    expect(spots[0]!.lastRuns.map((r) => r.runId)).toEqual([r2, r1]);
    expect(spots[0]!.lastRuns.map((r) => r.pr)).toEqual([2, 1]);
  });

  it('does not count failures older than the window, or in another repository', async () => {
    await fail('h/window', ['a.ts'], { at: daysAgo(8) });
    await fail('h/window', ['a.ts'], { at: daysAgo(2) });
    await fail('h/other-repo', ['a.ts'], { at: daysAgo(2) });
    expect(await store.hotspots('h/window', ['a.ts'], 7, 2, { now })).toEqual([]);
    expect((await store.hotspots('h/window', ['a.ts'], 9, 2, { now }))[0]?.runs).toBe(2);
  });

  it('counts re-runs of the same commit once: rechecking a PR three times does not make a hotspot', async () => {
    for (let i = 0; i < 3; i++) await fail('h/recheck', ['lib.rs'], { pr: 4, head: 'e'.repeat(40) });
    expect(await store.hotspots('h/recheck', ['lib.rs'], 7, 2, { now })).toEqual([]);
    await fail('h/recheck', ['lib.rs'], { pr: 5, head: 'f'.repeat(40) });
    expect((await store.hotspots('h/recheck', ['lib.rs'], 7, 2, { now }))[0]).toMatchObject({ runs: 2, failures: 4 });
  });

  it("excludes the current run, the current commit and, when asked, the PR's own earlier runs", async () => {
    const current = await fail('h/exclude', ['main.go'], { pr: 9, head: '1'.repeat(40) });
    await fail('h/exclude', ['main.go'], { pr: 9, head: '2'.repeat(40) });
    await fail('h/exclude', ['main.go'], { pr: 3, head: '3'.repeat(40) });
    expect((await store.hotspots('h/exclude', ['main.go'], 7, 2, { now }))[0]?.runs).toBe(3);
    expect((await store.hotspots('h/exclude', ['main.go'], 7, 2, { now, runId: current }))[0]?.runs).toBe(2);
    expect((await store.hotspots('h/exclude', ['main.go'], 7, 2, { now, headSha: '1'.repeat(40) }))[0]?.runs).toBe(2);
    expect(await store.hotspots('h/exclude', ['main.go'], 7, 2, { now, runId: current, pr: 9 })).toEqual([]);
  });

  it('uses the threshold as a minimum of separate runs, and returns nothing for no paths', async () => {
    await fail('h/threshold', ['t.py'], { at: daysAgo(1) });
    await fail('h/threshold', ['t.py'], { at: daysAgo(2) });
    await fail('h/threshold', ['t.py'], { at: daysAgo(3) });
    expect((await store.hotspots('h/threshold', ['t.py'], 7, 3, { now }))[0]?.runs).toBe(3);
    expect(await store.hotspots('h/threshold', ['t.py'], 7, 4, { now })).toEqual([]);
    expect(await store.hotspots('h/threshold', [], 7, 1, { now })).toEqual([]);
  });
});
