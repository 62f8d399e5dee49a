import { describe, expect, it } from 'vitest';
import type { Guard } from '../../src/core/guard.js';
import { gate } from '../helpers/gate.js';
import { prRepo } from '../helpers/git-repo.js';

/** Routing as the real pipeline applies it: guards → merge → decide. */

const touchesNotes = (g: Partial<Guard> & Pick<Guard, 'id'>): Guard => ({
  name: `fake ${g.id}`,
  appliesTo: (file) => file.path === 'notes.md',
  ...g,
});

describe('routing through the pipeline', () => {
  const repo = prRepo({ 'notes.md': 'hello\n' }, { 'notes.md': 'hello\nworld\n' });

  it('a guard that crashes yields a guard-error and the decision is STUCK, while the other guards still report', async () => {
    const crash = touchesNotes({
      id: 'GX',
      checkFile: () => {
        throw new Error('parser exploded');
      },
    });
    const fine = touchesNotes({
      id: 'GY',
      checkFile: (f) => [{ category: 'style', severity: 'nit', path: f.path, line: 2, message: 'nit', remediation: 'tidy up' }],
    });
    const report = await gate(repo, [crash, fine]);
    expect(report.decision).toMatchObject({ outcome: 'STUCK', stuck: true, conclusion: 'failure' });
    const err = report.findings.find((f) => f.category === 'guard-error')!;
    expect(err.guard).toBe('GX');
    expect(err.message).toContain('parser exploded');
    expect(report.guards.find((g) => g.id === 'GX')!.status).toBe('error');
    expect(report.findings.some((f) => f.guard === 'GY')).toBe(true);
  });

  it('a guard that runs out of time is a guard-error (STUCK), not a pass', async () => {
    const slow = touchesNotes({ id: 'GS', checkFile: () => new Promise(() => undefined) });
    const report = await gate(repo, [slow], { config: { guards: { timeoutMs: 100 } } });
    expect(report.decision.outcome).toBe('STUCK');
    expect(report.findings[0]!.message).toContain('time budget');
  });

  it('two guards raising the same fingerprint merge into one finding confirmed by both', async () => {
    const same = {
      category: 'doc-destroyed',
      severity: 'fail',
      path: 'notes.md',
      line: 2,
      message: 'x',
      remediation: 'Restore the examples.',
    } as const;
    const a = touchesNotes({ id: 'GA', checkFile: () => [{ ...same }] });
    const b = touchesNotes({ id: 'GB', checkFile: () => [{ ...same, message: 'other words', severity: 'risk' }] });
    const report = await gate(repo, [a, b]);
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]).toMatchObject({ guard: 'GA', severity: 'fail', message: 'x', confirmedBy: ['GA', 'GB'] });
    expect(report.decision.outcome).toBe('REFINE');
  });

  it('a guard emitting a category outside the vocabulary is routed to STUCK as a critic-error', async () => {
    const rogue = touchesNotes({
      id: 'GR',
      checkFile: () => [{ category: 'vibes' as never, severity: 'nit', path: 'notes.md', line: 1, message: 'meh', remediation: 'n/a' }],
    });
    const report = await gate(repo, [rogue]);
    expect(report.findings[0]!.category).toBe('critic-error');
    expect(report.decision.outcome).toBe('STUCK');
  });

  it('strict config turns a risk-only result from ADVISE into a blocking decision', async () => {
    const risky = touchesNotes({
      id: 'GL',
      checkFile: () => [
        { category: 'dead-link', severity: 'risk', path: 'notes.md', line: 2, message: 'link to ./gone.md', remediation: 'Fix the link.' },
      ],
    });
    expect((await gate(repo, [risky])).decision.outcome).toBe('ADVISE');
    expect((await gate(repo, [risky], { config: { strict: true } })).decision.outcome).toBe('REFINE');
  });

  it('round 3 of the default 3 with a blocking finding is STUCK', async () => {
    const broken = touchesNotes({
      id: 'G2',
      checkFile: () => [
        { category: 'syntax-invalid', severity: 'fail', path: 'notes.md', line: 1, message: 'bad', remediation: 'Fix it.' },
      ],
    });
    expect((await gate(repo, [broken], { round: 2 })).decision.outcome).toBe('REFINE');
    expect((await gate(repo, [broken], { round: 3 })).decision.outcome).toBe('STUCK');
  });
});
