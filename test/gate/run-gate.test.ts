import { describe, expect, it } from 'vitest';
import type { Guard } from '../../src/core/guard.js';
import { prRepo } from '../helpers/git-repo.js';
import { findingsOf, gate } from '../helpers/gate.js';

/** A guard that flags every added line containing TODO, for exercising the pipeline. */
const todoGuard: Guard = {
  id: 'T1',
  name: 'todo',
  appliesTo: (f) => f.head.text !== null,
  checkFile: (f) =>
    (f.head.text ?? '').split('\n').flatMap((text, i) =>
      text.includes('TODO')
        ? [
            {
              category: 'todo-marker' as const,
              severity: 'nit' as const,
              path: f.path,
              line: i + 1,
              message: `TODO on line ${i + 1}`,
              remediation: 'finish it',
            },
          ]
        : [],
    ),
};

const crashingGuard: Guard = {
  id: 'T2',
  name: 'crashes on b.txt',
  appliesTo: () => true,
  checkFile: (f) => {
    if (f.path === 'b.txt') throw new Error('boom');
    return [{ category: 'style', severity: 'fail', path: f.path, message: 'style', remediation: 'restyle' }];
  },
};

const slowGuard: Guard = {
  id: 'T3',
  name: 'never finishes',
  appliesTo: () => true,
  checkAll: () => new Promise(() => undefined),
};

describe('pipeline', () => {
  it('runs every guard on every file and attributes findings to the PR commit that added the line', async () => {
    const repo = prRepo({ 'a.txt': 'one\n' }, { 'a.txt': 'one\nTODO first\n' }, { 'b.txt': 'TODO second\n' });
    const report = await gate(repo, [todoGuard]);
    const todos = findingsOf(report, 'T1');
    expect(todos.map((f) => f.path).sort()).toEqual(['a.txt', 'b.txt']);
    expect(todos.find((f) => f.path === 'a.txt')!.commit).toBe(report.commits[0]);
    expect(todos.find((f) => f.path === 'b.txt')!.commit).toBe(report.commits[1]);
    expect(report.guards[0]).toMatchObject({ id: 'T1', status: 'nit', files: 2, findings: 2 }); // the worst severity it found
    expect(report.decision.outcome).toBe('PASS'); // nits alone pass, shown as annotations
  });

  it('turns a crash into a guard-error finding for that file and keeps checking the others', async () => {
    const repo = prRepo({}, { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
    const report = await gate(repo, [crashingGuard, todoGuard]);
    const errors = report.findings.filter((f) => f.category === 'guard-error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.path).toBe('b.txt');
    expect(errors[0]!.message).toMatch(/boom/);
    expect(
      report.findings
        .filter((f) => f.category === 'style')
        .map((f) => f.path)
        .sort(),
    ).toEqual(['a.txt', 'c.txt']);
    expect(report.guards.find((g) => g.id === 'T2')!.status).toBe('error');
    expect(report.decision.outcome).toBe('STUCK');
  });

  it('stops a guard that exceeds its time budget and reports it', async () => {
    const repo = prRepo({}, { 'a.txt': 'TODO\n' });
    const report = await gate(repo, [slowGuard, todoGuard], { config: { guards: { timeoutMs: 200 } } });
    const err = report.findings.find((f) => f.category === 'guard-error');
    expect(err?.message).toMatch(/time budget of 200 ms/);
    expect(findingsOf(report, 'T1')).toHaveLength(1);
  });

  it('skips guards that are disabled, not selected, or have nothing to look at, with the reason', async () => {
    const repo = prRepo({ 'a.txt': 'a\n' }, { 'a.txt': 'b\n' });
    const nothing: Guard = { id: 'T4', name: 'md only', appliesTo: (f) => f.path.endsWith('.md'), checkFile: () => [] };
    const disabled = await gate(repo, [todoGuard, nothing], { config: { guards: { disable: ['t1'] } } });
    expect(disabled.guards.map((g) => [g.id, g.status, g.reason])).toEqual([
      ['T1', 'skipped', 'disabled in config (guards.disable)'],
      ['T4', 'skipped', 'no changed files in scope'],
    ]);
    const only = await gate(repo, [todoGuard, nothing], { only: ['T4'] });
    expect(only.guards[0]).toMatchObject({ status: 'skipped', reason: 'not selected (--only)' });
  });

  it('leaves files matching ignore.paths out of every guard', async () => {
    const repo = prRepo({}, { 'vendor/lib.txt': 'TODO\n', 'src/a.txt': 'TODO\n' });
    const report = await gate(repo, [todoGuard], { config: { ignore: { paths: ['vendor/**'] } } });
    expect(findingsOf(report, 'T1').map((f) => f.path)).toEqual(['src/a.txt']);
    expect(report.files.map((f) => f.path).sort()).toEqual(['src/a.txt', 'vendor/lib.txt']);
  });

  it('merges the same problem raised twice into one finding confirmed by both sources', async () => {
    const repo = prRepo({}, { 'a.txt': 'TODO\n' });
    const twin: Guard = { ...todoGuard, id: 'T5' };
    const report = await gate(repo, [todoGuard, twin]);
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]!.confirmedBy).toEqual(['T1', 'T5']);
  });

  it('passes an empty change with a PASS decision and a versioned report', async () => {
    const repo = prRepo({ 'a.txt': 'a\n' });
    const report = await gate(repo, [todoGuard]);
    expect(report.version).toBe(1);
    expect(report.files).toEqual([]);
    expect(report.decision).toMatchObject({ outcome: 'PASS', conclusion: 'success' });
  });

  it('gives the sanction check the config allow-list and extra sanctions', async () => {
    const repo = prRepo({}, { 'package.json': '{}\n', 'go.mod': 'module x\n' });
    const seen: Record<string, boolean> = {};
    const probe: Guard = {
      id: 'T6',
      name: 'sanction probe',
      appliesTo: () => true,
      checkFile: (f, ctx) => {
        seen[f.path] = ctx.sanctioned(f.path);
        return [];
      },
    };
    await gate(repo, [probe], { config: { manifests: { allow: ['**/package.json'] } }, sanctions: ['go.mod'] });
    expect(seen).toEqual({ 'package.json': true, 'go.mod': true });
    await gate(repo, [probe]);
    expect(seen).toEqual({ 'package.json': false, 'go.mod': false });
  });
});

describe('no-evidence rule', () => {
  it('never reports PASS when every guard was switched off', async () => {
    const repo = prRepo({ 'a.txt': 'a\n' }, { 'a.txt': 'b\n' });
    const report = await gate(repo, [todoGuard], { config: { guards: { disable: ['T1'] } } });
    expect(report.decision.outcome).toBe('STUCK');
    expect(report.decision.reason).toMatch(/no evidence/);
  });

  it('passes a change no guard had a file for (e.g. an image-only PR)', async () => {
    const repo = prRepo({}, { 'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00]) });
    const mdOnly: Guard = { id: 'T7', name: 'md only', appliesTo: (f) => f.path.endsWith('.md'), checkFile: () => [] };
    const report = await gate(repo, [mdOnly]);
    expect(report.decision.outcome).toBe('PASS');
  });

  it('a guard that waits for the suites goes on once the guard that starts them says so', async () => {
    const repo = prRepo({ 'a.txt': 'one\n' }, { 'a.txt': 'one\ntwo\n' });
    const order: string[] = [];
    let finish!: () => void;
    const suitesDone = new Promise<void>((r) => (finish = r));
    const starter: Guard = {
      id: 'T10',
      name: 'starts the suites',
      alongside: true,
      startsSuites: true,
      runsWithoutFiles: true,
      appliesTo: () => true,
      checkAll: async (_files, ctx) => {
        // Some work before the suites start: a guard that did not wait would run in it.
        await new Promise((r) => setTimeout(r, 20));
        order.push('suites start');
        ctx.suites?.started();
        await suitesDone;
        order.push('suites end');
        return [];
      },
    };
    const waiter: Guard = {
      id: 'T11',
      name: 'waits for them',
      appliesTo: () => true,
      checkAll: async (_files, ctx) => {
        await ctx.suites?.underway;
        order.push('waiter runs');
        finish();
        return [];
      },
    };
    await gate(repo, [waiter, starter], { guardThreads: false, config: { guards: { timeoutMs: 60_000 } } });
    expect(order).toEqual(['suites start', 'waiter runs', 'suites end']);
  });

  it('a guard that waits for the suites is not held when the guard that starts them is skipped or absent', async () => {
    const repo = prRepo({ 'a.txt': 'one\n' }, { 'a.txt': 'one\ntwo\n' });
    const starter: Guard = {
      id: 'T12',
      name: 'starts the suites',
      alongside: true,
      startsSuites: true,
      runsWithoutFiles: true,
      appliesTo: () => true,
      skipReason: () => 'tests are off',
      checkAll: () => [],
    };
    const waiter: Guard = {
      id: 'T13',
      name: 'waits for them',
      appliesTo: () => true,
      checkAll: async (_files, ctx) => {
        await ctx.suites?.underway;
        return [{ category: 'todo-marker', severity: 'nit', path: 'a.txt', line: 2, message: 'ran', remediation: 'none' }];
      },
    };
    const skipped = await gate(repo, [starter, waiter], { guardThreads: false });
    expect(skipped.guards.map((g) => [g.id, g.status])).toEqual([
      ['T12', 'skipped'],
      ['T13', 'nit'],
    ]);
    const alone = await gate(repo, [waiter], { guardThreads: false });
    expect(alone.guards.map((g) => [g.id, g.status])).toEqual([['T13', 'nit']]);
  });

  it('a guard marked alongside runs while the others go, and the report keeps the registry order', async () => {
    const repo = prRepo({ 'a.txt': 'one\n' }, { 'a.txt': 'one\ntwo\n' });
    // The alongside guard finishes only once the static guard after it has run: run one after another, it would wait forever.
    let staticRan!: () => void;
    const staticDone = new Promise<void>((r) => (staticRan = r));
    const order: string[] = [];
    const slow: Guard = {
      id: 'T8',
      name: 'waits on a child process',
      alongside: true,
      runsWithoutFiles: true,
      appliesTo: () => true,
      checkAll: async () => {
        order.push('T8 start');
        await staticDone;
        order.push('T8 end');
        return [{ category: 'todo-marker', severity: 'nit', message: 'slow one', remediation: 'none' }];
      },
    };
    const quick: Guard = {
      id: 'T9',
      name: 'static',
      appliesTo: () => true,
      checkAll: () => {
        order.push('T9');
        staticRan();
        return [{ category: 'todo-marker', severity: 'nit', path: 'a.txt', line: 2, message: 'quick one', remediation: 'none' }];
      },
    };
    const report = await gate(repo, [todoGuard, slow, quick], { guardThreads: false, config: { guards: { timeoutMs: 60_000 } } });
    expect(order).toEqual(['T8 start', 'T9', 'T8 end']);
    expect(report.guards.map((g) => [g.id, g.status])).toEqual([
      ['T1', 'pass'],
      ['T8', 'nit'],
      ['T9', 'nit'],
    ]);
    expect(report.findings.map((f) => f.message).sort()).toEqual(['quick one', 'slow one']);
  });
});
