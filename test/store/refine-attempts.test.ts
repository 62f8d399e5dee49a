import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, makeReport } from './backends.js';
import type { Store } from '../../src/store/store.js';
import type { RefineAttempt } from '../../src/refiner/attempt.js';

const attempt = (n: number, outcome: RefineAttempt['outcome'], paths: string[], extra: Partial<RefineAttempt> = {}): RefineAttempt => ({
  n,
  source: 'model:qwen3',
  paths,
  targets: ['abc123def456'],
  outcome,
  verdicts: [{ guard: 'G7', status: outcome === 'reverted' ? 'fail' : 'pass', newFindings: outcome === 'reverted' ? 1 : 0 }],
  fixed: outcome === 'kept' ? ['abc123def456'] : [],
  tokens: { prompt: 1200, completion: 300 },
  ms: 42,
  ...(outcome === 'reverted' ? { reason: 'G7 failed: format_row was dropped' } : {}),
  ...extra,
});

describe.each(BACKENDS.map((b) => [b().name, b] as const))('refine attempts on %s', (_name, factory) => {
  const backend = factory();
  let store: Store;
  beforeAll(async () => {
    await backend.setup();
    store = await backend.open();
  });
  afterAll(() => backend.teardown());

  it('migration 2 is applied once, after version 1', async () => {
    const sql = 'SELECT version, name FROM schema_migrations WHERE version = 2';
    const { rows } = await store.db.query<{ version: number; name: string }>(sql);
    expect(rows).toEqual([{ version: 2, name: 'refine-attempts' }]);
  });

  it('records every attempt of a PR and reads them back in order, with verdicts, tokens and reasons', async () => {
    const scope = { repo: 'r/one', pr: 4, round: 1, headSha: 'a'.repeat(40) };
    await store.recordRefineAttempt(scope, attempt(1, 'reverted', ['app/db.py'], { candidateSha: 'c'.repeat(40) }));
    await store.recordRefineAttempt(scope, attempt(2, 'kept', ['app/db.py']));
    await store.recordRefineAttempt({ repo: 'r/one', pr: 5, round: 1, headSha: 'b'.repeat(40) }, attempt(1, 'kept', ['x.py']));
    const list = await store.listRefineAttempts('r/one', 4);
    expect(list.map((a) => [a.n, a.outcome])).toEqual([
      [1, 'reverted'],
      [2, 'kept'],
    ]);
    expect(list[0]).toMatchObject({ pr: 4, round: 1, source: 'model:qwen3', reason: 'G7 failed: format_row was dropped' });
    expect(list[0]).toMatchObject({ candidateSha: 'c'.repeat(40), tokens: { prompt: 1200, completion: 300 } });
    expect(list[0]!.verdicts).toEqual([{ guard: 'G7', status: 'fail', newFindings: 1 }]);
    expect(list[1]!.fixed).toEqual(['abc123def456']);
    expect(await store.listRefineAttempts('r/one', null)).toEqual([]);
  });

  it('repeatedly reverted paths are G9 history; kept attempts and other repos are not', async () => {
    const scope = { repo: 'r/hot', pr: 9, round: 1, headSha: 'd'.repeat(40) };
    await store.recordRefineAttempt(scope, attempt(1, 'reverted', ['src/hot.py', 'src/once.py']));
    await store.recordRefineAttempt(scope, attempt(2, 'reverted', ['src/hot.py']));
    await store.recordRefineAttempt(scope, attempt(3, 'kept', ['src/once.py']));
    await store.recordRefineAttempt({ ...scope, repo: 'r/other' }, attempt(1, 'reverted', ['src/once.py']));
    const spots = await store.hotspots('r/hot', ['src/hot.py', 'src/once.py'], 7, 2);
    expect(spots.map((s) => [s.path, s.runs])).toEqual([['src/hot.py', 2]]);
    expect(spots[0]!.guards).toEqual(['refiner']);
    // The PR's own reverts do not count when G9 excludes the PR (history.includeOwnPr: false).
    expect(await store.hotspots('r/hot', ['src/hot.py'], 7, 2, { pr: 9 })).toEqual([]);
    // One failing gate run plus one revert reach a threshold of 2 together.
    const failing = { guard: 'G2', category: 'syntax-invalid' as const, severity: 'fail' as const, path: 'src/once.py', message: 'bad' };
    await store.saveRun(makeReport({ repo: 'r/hot', findings: [failing] }), { trigger: 'cli' });
    const merged = await store.hotspots('r/hot', ['src/once.py'], 7, 2);
    expect(merged).toHaveLength(1);
    expect(merged[0]!.guards.sort()).toEqual(['G2', 'refiner']);
  });
});
