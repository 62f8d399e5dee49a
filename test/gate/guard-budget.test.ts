import { describe, expect, it } from 'vitest';
import { prRepo } from '../helpers/git-repo.js';
import { gate } from '../helpers/gate.js';
import { GUARDS } from '../../src/guards/index.js';
import { afterGuard, blockingGuard, crashingGuard, waitingGuard } from './fixtures/blocking-guards.js';

/**
 * Guards run in guard threads, where the time budget really stops them: a guard stuck in synchronous
 * code (a catastrophic regular expression) is terminated, reported as a guard-error (never a pass),
 * and the next guard runs in a fresh thread.
 */
describe('guard budget in guard threads', () => {
  it('a guard that blocks synchronously is stopped at its budget; the run goes on and is not PASS', async () => {
    const repo = prRepo({ 'a.txt': 'one\n' }, { 'a.txt': 'one\ntwo\n' });
    const report = await gate(repo, [blockingGuard, afterGuard], { config: { guards: { timeoutMs: 1500 } }, guardThreads: true });
    const stuck = report.guards.find((g) => g.id === 'GX1')!;
    expect(stuck.status).toBe('error');
    expect(stuck.reason).toContain('exceeded its time budget of 1500 ms and was stopped');
    const errorFinding = report.findings.find((f) => f.guard === 'GX1');
    expect(errorFinding).toMatchObject({ category: 'guard-error', severity: 'fail' });
    expect(report.decision.outcome).not.toBe('PASS');
    expect(report.decision.outcome).toBe('STUCK');
    // The next guard ran (in a new thread) and reported.
    expect(report.findings.find((f) => f.guard === 'GX2')?.message).toBe('checked a.txt in a thread');
    expect(report.guards.find((g) => g.id === 'GX2')!.status).toBe('nit');
  }, 120_000);

  it('a guard beside the one that overran its budget starts over in a fresh thread and reports', async () => {
    const repo = prRepo({ 'a.txt': 'one\n' }, { 'a.txt': 'one\ntwo\n' });
    const report = await gate(repo, [waitingGuard, blockingGuard, afterGuard], {
      config: { guards: { timeoutMs: 1500 } },
      guardThreads: true,
    });
    expect(report.guards.map((g) => [g.id, g.status])).toEqual([
      ['GX4', 'nit'],
      ['GX1', 'error'],
      ['GX2', 'nit'],
    ]);
    // Its thread was stopped for GX1's overrun, not for its own: it ran again and its answer is its own.
    expect(report.findings.find((f) => f.guard === 'GX4')?.message).toMatch(/^finished on start [12]$/);
    expect(report.findings.find((f) => f.guard === 'GX2')?.message).toBe('checked a.txt in a thread');
  }, 120_000);

  it('a guard that throws in its thread is a crash with its message', async () => {
    const repo = prRepo({ 'a.txt': 'one\n' }, { 'a.txt': 'one\ntwo\n' });
    const report = await gate(repo, [crashingGuard], { guardThreads: true });
    expect(report.findings[0]).toMatchObject({ guard: 'GX3', category: 'guard-error' });
    expect(report.findings[0]!.message).toContain('crashed: boom in a thread');
  }, 120_000);

  it('the registry guards find the same things in threads as in this thread', async () => {
    const base = {
      'package.json': '{\n  "name": "demo",\n  "version": "1.0.0",\n  "dependencies": { "left-pad": "1.0.0" }\n}\n',
      'src/util.py': 'import os\n\n\ndef helper(a, b):\n    return a + b\n\n\ndef other():\n    return os.getcwd()\n',
      'README.md': '# Demo\n\nSee [the guide](docs/guide.md).\n\n## Usage\n\nRun it.\n',
      'docs/guide.md': '# Guide\n\nText.\n',
      'config/app.json': '{\n  "a": 1\n}\n',
    };
    const change = {
      'package.json': '{\n  "name": "demo",\n  "version": "1.0.0",\n  "dependencies": { "left-pad": "1.0.0", "express": "4.0.0" }\n}\n',
      'src/util.py': 'import os\nimport requests\n\n\ndef helper(a, b, c):\n    return a + b\n',
      'README.md': '# Demo\n\nSee [the guide](docs/missing.md) and [usage](#nowhere).\n',
      'config/app.json': '{\n  "a": 1,\n  "b": 2\n  "c": 3\n}\n',
    };
    const repo = prRepo(base, change);
    const skip = { G8: 'not in this test', G9: 'no store' };
    const threaded = await gate(repo, GUARDS, { skip, guardThreads: true });
    const inline = await gate(repo, GUARDS, { skip, guardThreads: false });
    const view = (r: typeof threaded) => ({
      guards: r.guards.map((g) => [g.id, g.status, g.files, g.findings]),
      findings: r.findings.map((f) => [f.id, f.guard, f.category, f.severity, f.path, f.line, f.message]),
      sections: Object.keys(r.sections).sort(),
      decision: r.decision.outcome,
    });
    expect(view(threaded)).toEqual(view(inline));
    expect(threaded.findings.length).toBeGreaterThan(3);
  }, 180_000);
});
