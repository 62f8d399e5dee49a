import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, makeReport } from './backends.js';
import type { Store } from '../../src/store/store.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';

describe.each(BACKENDS.map((b) => [b().name, b] as const))('store on %s', (_name, factory) => {
  const backend = factory();
  let store: Store;
  beforeAll(async () => {
    await backend.setup();
    store = await backend.open();
  });
  afterAll(() => backend.teardown());

  it('records each migration once, so reopening the same database applies nothing twice', async () => {
    const { rows } = await store.db.query<{ version: number; n: number }>(
      'SELECT version, count(*)::int AS n FROM schema_migrations GROUP BY version',
    );
    expect(rows.sort((a, b) => a.version - b.version)).toEqual(MIGRATIONS.map((m) => ({ version: m.version, n: 1 })));
    const again = await backend.open();
    const { rows: after } = await again.db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
    expect(after[0]!.n).toBe(MIGRATIONS.length);
  });

  it('saves a run with its report, findings and guard failures, and reads the report back intact', async () => {
    const report = makeReport({
      repo: 'acme/save',
      findings: [
        { guard: 'G7', category: 'toplevel-dropped', severity: 'fail', path: 'src/db.ts', line: 12, message: 'connect() was removed' },
        { guard: 'G14', category: 'dead-link', severity: 'risk', path: 'README.md', line: 3, message: 'docs/x.md does not exist' },
        { guard: 'G2', category: 'guard-error', severity: 'fail', path: 'src/a.ts', message: 'G2 crashed' },
        { guard: 'G8', category: 'test-regression', severity: 'fail', message: 'test_login now fails' },
      ],
    });
    const id = await store.saveRun(report, { pr: 7, trigger: 'pull_request' });
    const run = await store.getRun(id);
    expect(run).toMatchObject({ repo: 'acme/save', pr: 7, outcome: 'REFINE', status: 'completed', headSha: report.head.sha });
    expect(run!.report).toEqual(report);
    const { rows: findings } = await store.db.query<{ finding_id: string }>(
      'SELECT finding_id FROM findings WHERE run_id = $1 ORDER BY finding_id',
      [id],
    );
    expect(findings.map((f) => f.finding_id)).toEqual(report.findings.map((f) => f.id).sort());
    // Only blocking findings on a file count as guard failures; a crash of slopgate itself does not.
    const { rows: failures } = await store.db.query<{ path: string; guard: string }>(
      'SELECT path, guard FROM guard_failures WHERE run_id = $1',
      [id],
    );
    expect(failures).toEqual([{ path: 'src/db.ts', guard: 'G7' }]);
  });

  it('stores every finding of a 1,200-finding run (several batches), with and without path and line', async () => {
    const findings = Array.from({ length: 1200 }, (_, i) =>
      i % 3 === 0
        ? {
            guard: 'G8',
            category: 'test-regression' as const,
            severity: 'fail' as const,
            message: `test ${i} fails`,
            remediation: `fix test ${i}`,
          }
        : {
            guard: 'G2',
            category: 'syntax-invalid' as const,
            severity: 'fail' as const,
            path: `src/f${i}.ts`,
            line: i,
            message: `bad syntax ${i}`,
          },
    );
    const id = await store.saveRun(makeReport({ repo: 'acme/big', findings }), { trigger: 'cli' });
    const { rows } = await store.db.query<{ total: number; pathless: number; failures: number }>(
      `SELECT (SELECT count(*)::int FROM findings WHERE run_id = $1) AS total,
              (SELECT count(*)::int FROM findings WHERE run_id = $1 AND path IS NULL AND line IS NULL) AS pathless,
              (SELECT count(*)::int FROM guard_failures WHERE run_id = $1) AS failures`,
      [id],
    );
    expect(rows[0]).toEqual({ total: 1200, pathless: 400, failures: 800 });
  });

  it('rolls the whole run back when one insert fails, leaving no orphan findings', async () => {
    const report = makeReport({
      repo: 'acme/rollback',
      findings: [{ guard: 'G7', category: 'toplevel-dropped', severity: 'fail', path: 'a.py', message: 'f() removed' }],
    });
    const id = await store.saveRun(report, { trigger: 'cli' });
    await expect(store.saveRun(report, { id, trigger: 'cli' })).rejects.toThrow();
    const { rows } = await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM guard_failures WHERE repo = $1', [
      'acme/rollback',
    ]);
    expect(rows[0]!.n).toBe(1);
  });

  it('logs non-PASS decisions and exports them as JSON lines, but not PASS runs', async () => {
    await store.saveRun(makeReport({ repo: 'acme/log' }), { pr: 1, trigger: 'pull_request' });
    const id = await store.saveRun(
      makeReport({
        repo: 'acme/log',
        findings: [{ guard: 'G2', category: 'syntax-invalid', severity: 'fail', path: 'x.json', message: 'bad json' }],
      }),
      { pr: 1, trigger: 'pull_request' },
    );
    await store.appendDecision({
      repo: 'acme/log',
      pr: 1,
      decision: { ...makeReport().decision, outcome: 'ESCALATE', reason: 'tie-breaker' },
      extra: { tier3: 'escalate' },
    });
    const lines = (await store.exportDecisions({ repo: 'acme/log' }))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.outcome)).toEqual(['REFINE', 'ESCALATE']);
    expect(lines[0].runId).toBe(id);
    expect(lines[1].record.extra).toEqual({ tier3: 'escalate' });
  });

  it('tells a webhook redelivery apart from a new delivery, also when both arrive at once', async () => {
    expect(await store.recordDelivery('d-1')).toBe(true);
    expect(await store.recordDelivery('d-1')).toBe(false);
    const other = await backend.open();
    const results = await Promise.all([store.recordDelivery('d-2'), other.recordDelivery('d-2'), store.recordDelivery('d-2')]);
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('advances the round only from the round the caller read (round-shift guard)', async () => {
    expect((await store.getRound('acme/r', 5)).round).toBe(1);
    const other = await backend.open();
    // Two webhooks read round 1 and both try to advance.
    const [a, b] = await Promise.all([store.advanceRound('acme/r', 5, 1), other.advanceRound('acme/r', 5, 1)]);
    expect([a.advanced, b.advanced].sort()).toEqual([false, true]);
    expect([a, b].find((r) => !r.advanced)).toMatchObject({ round: 2, reason: 'round-shifted' });
    expect((await store.advanceRound('acme/r', 5, 2)).round).toBe(3);
    await store.setMaxRoundsOverride('acme/r', 5, 6);
    expect(await store.getRound('acme/r', 5)).toMatchObject({ round: 3, maxRoundsOverride: 6 });
    await store.resetRound('acme/r', 5);
    expect(await store.getRound('acme/r', 5)).toMatchObject({ round: 1, maxRoundsOverride: null });
  });

  it('loses no rows when two gate runs write to the same database at once (2 handles × 50 runs)', async () => {
    const a = await backend.open();
    const b = await backend.open();
    const finding = (i: number) => ({
      guard: 'G2',
      category: 'syntax-invalid' as const,
      severity: 'fail' as const,
      path: `f${i % 7}.ts`,
      message: `broken ${i}`,
    });
    const write = (s: Store, tag: string) =>
      Array.from({ length: 50 }, (_, i) =>
        s.saveRun(makeReport({ repo: 'acme/busy', findings: [finding(i), { ...finding(i + 1), message: `also ${tag}${i}` }] }), {
          pr: i,
          trigger: tag,
        }),
      );
    const ids = await Promise.all([...write(a, 'a'), ...write(b, 'b')]);
    expect(new Set(ids).size).toBe(100);
    const { rows } = await store.db.query<{ runs: number; findings: number; failures: number; decisions: number }>(
      `SELECT (SELECT count(*)::int FROM runs WHERE repo = 'acme/busy') AS runs,
              (SELECT count(*)::int FROM findings f JOIN runs r ON r.id = f.run_id WHERE r.repo = 'acme/busy') AS findings,
              (SELECT count(*)::int FROM guard_failures WHERE repo = 'acme/busy') AS failures,
              (SELECT count(*)::int FROM decisions WHERE repo = 'acme/busy') AS decisions`,
    );
    expect(rows[0]).toEqual({ runs: 100, findings: 200, failures: 200, decisions: 100 });
    // Every run reads back with the report it was saved with.
    const broken = await store.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM runs WHERE repo = 'acme/busy' AND (report->>'repo') IS DISTINCT FROM 'acme/busy'`,
    );
    expect(broken.rows[0]!.n).toBe(0);
  });
});
