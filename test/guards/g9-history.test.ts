import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Guard } from '../../src/core/guard.js';
import { g9 } from '../../src/guards/g9-history/index.js';
import type { Store } from '../../src/store/store.js';
import { gate, findingsOf } from '../helpers/gate.js';
import { prRepo, type TestRepo } from '../helpers/git-repo.js';
import { BACKENDS } from '../store/backends.js';

/** A stand-in for any guard that fails a file: flags files containing BROKEN. */
const breaks: Guard = {
  id: 'G7',
  name: 'test: breaks',
  appliesTo: () => true,
  checkFile: (file) =>
    file.head.text?.includes('BROKEN')
      ? [
          {
            category: 'toplevel-dropped',
            severity: 'fail',
            path: file.path,
            line: 1,
            message: `${file.path} lost a definition`,
            remediation: 'restore it',
          },
        ]
      : [],
};

describe.each(BACKENDS.map((b) => [b().name, b] as const))('G9 failure history on %s', (_name, factory) => {
  const backend = factory();
  let store: Store;
  beforeAll(async () => {
    await backend.setup();
    store = await backend.open();
  });
  afterAll(() => backend.teardown());

  /** Gates `repo` as PR `pr` of `name` with the breaking guard and G9, and stores the run like the App does. */
  async function gateAndSave(repo: TestRepo, name: string, pr: number, config = {}) {
    const runId = crypto.randomUUID();
    const report = await gate(repo, [breaks, g9], { repoName: name, services: { history: store, run: { repo: name, pr, runId } }, config });
    await store.saveRun(report, { id: runId, pr, trigger: 'pull_request' });
    return report;
  }

  it('escalates a file that broke in two earlier PRs this week, with the runs as evidence', async () => {
    const name = 'g9/escalate';
    await gateAndSave(prRepo({ 'src/db.py': 'ok\n' }, { 'src/db.py': 'BROKEN 1\n' }), name, 1);
    await gateAndSave(prRepo({ 'src/db.py': 'ok\n' }, { 'src/db.py': 'BROKEN 2\n' }), name, 2);
    // A third PR edits the same file, this time correctly.
    const report = await gateAndSave(
      prRepo({ 'src/db.py': 'ok\n', 'src/other.py': 'x\n' }, { 'src/db.py': 'fine now\n', 'src/other.py': 'y\n' }),
      name,
      3,
      { strict: true },
    );
    const [hot, ...rest] = findingsOf(report, 'G9');
    expect(rest).toEqual([]);
    expect(hot).toMatchObject({ category: 'history-hotspot', severity: 'risk', path: 'src/db.py' });
    expect(hot!.message).toContain('2 separate runs');
    expect(hot!.message).toContain('PR #2');
    expect(hot!.evidence).toMatchObject({ runs: 2, guards: ['G7'], categories: ['toplevel-dropped'], threshold: 2, windowDays: 7 });
    expect(report.decision.outcome).toBe('ESCALATE');
    expect(report.sections.history).toMatchObject({ hotspots: [{ path: 'src/db.py', runs: 2 }] });
  });

  it("does not treat a PR's own earlier failing pushes as a hotspot (unless includeOwnPr)", async () => {
    const name = 'g9/own-pr';
    await gateAndSave(prRepo({ 'a.ts': 'ok\n' }, { 'a.ts': 'BROKEN a\n' }), name, 8);
    await gateAndSave(prRepo({ 'a.ts': 'ok\n' }, { 'a.ts': 'BROKEN b\n' }), name, 8);
    const fixed = prRepo({ 'a.ts': 'ok\n' }, { 'a.ts': 'fixed\n' });
    expect(findingsOf(await gateAndSave(fixed, name, 8), 'G9')).toEqual([]);
    const counted = await gate(fixed, [g9], {
      services: { history: store, run: { repo: name, pr: 8 } },
      config: { history: { includeOwnPr: true } },
    });
    expect(findingsOf(counted, 'G9')).toHaveLength(1);
  });

  it('finds the history of a renamed file under its old path', async () => {
    const name = 'g9/rename';
    await gateAndSave(prRepo({ 'old/util.go': 'package a\n' }, { 'old/util.go': 'BROKEN 1\n' }), name, 1);
    await gateAndSave(prRepo({ 'old/util.go': 'package a\n' }, { 'old/util.go': 'BROKEN 2\n' }), name, 2);
    const body = 'package a\n\nfunc A() int { return 1 }\nfunc B() int { return 2 }\n';
    const report = await gate(prRepo({ 'old/util.go': body }, { 'old/util.go': null, 'new/util.go': body + '// moved\n' }), [g9], {
      services: { history: store, run: { repo: name, pr: 3 } },
    });
    const [hot] = findingsOf(report, 'G9');
    expect(hot).toMatchObject({ path: 'new/util.go', evidence: { historyPath: 'old/util.go', runs: 2 } });
  });

  it('stays quiet below the threshold: one earlier failure is not a pattern', async () => {
    const name = 'g9/once';
    await gateAndSave(prRepo({ 'b.rs': 'fn a() {}\n' }, { 'b.rs': 'BROKEN\n' }), name, 1);
    const report = await gateAndSave(prRepo({ 'b.rs': 'fn a() {}\n' }, { 'b.rs': 'fn a() { }\n' }), name, 2);
    expect(findingsOf(report, 'G9')).toEqual([]);
    expect(report.guards.find((g) => g.id === 'G9')?.status).toBe('pass');
  });
});

describe('G9 without a store', () => {
  it('is skipped with a reason that says what to configure', async () => {
    const report = await gate(prRepo({ 'a.py': 'x = 1\n' }, { 'a.py': 'x = 2\n' }), [g9]);
    const status = report.guards.find((g) => g.id === 'G9');
    expect(status?.status).toBe('skipped');
    expect(status?.reason).toMatch(/no store configured.*DATABASE_URL.*--db/);
    expect(report.findings).toEqual([]);
  });
});
