import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/cli.js';
import { exitCodeFor, parseFailLevel, type FailLevel } from '../../src/routing/fail-level.js';
import type { Finding } from '../../src/core/finding.js';
import type { Report } from '../../src/core/report.js';
import { prRepo } from '../helpers/git-repo.js';
import { sloppyPr } from '../helpers/sloppy-pr.js';

type Outcome = Report['decision']['outcome'];
const report = (outcome: Outcome, ...severities: Finding['severity'][]) =>
  ({ decision: { outcome }, findings: severities.map((severity) => ({ severity })) }) as unknown as Report;

describe('exitCodeFor', () => {
  const cases: [FailLevel, Report, 0 | 1][] = [
    ['fail', report('PASS'), 0],
    ['fail', report('ADVISE', 'risk', 'nit'), 0],
    ['fail', report('REFINE', 'fail'), 1],
    ['fail', report('ESCALATE'), 1], // blocks without any finding (e.g. a guard error routed to a human)
    ['fail', report('SKIPPED'), 0],
    ['risk', report('ADVISE', 'nit'), 0],
    ['risk', report('ADVISE', 'risk'), 1],
    ['nit', report('ADVISE', 'nit'), 1],
    ['nit', report('PASS'), 0],
    ['none', report('REFINE', 'fail'), 0],
    ['none', report('STUCK'), 0],
  ];
  it.each(cases)('--fail-level %s: %o → %i', (level, r, code) => {
    expect(exitCodeFor(r, level)).toBe(code);
  });

  it('rejects an unknown level with the list of levels', () => {
    expect(() => parseFailLevel('warn')).toThrow(/unknown fail level 'warn'/);
    expect(parseFailLevel(undefined)).toBe('fail');
    expect(parseFailLevel('RISK')).toBe('risk');
  });
});

describe('slopgate check --fail-level on real repositories', () => {
  it('a blocking PR: 1 by default, 0 with none', async () => {
    const repo = sloppyPr();
    const args = { repo: repo.dir, base: 'main', head: 'pr', format: 'json' as const, strict: false, noTests: true };
    expect(await runCheck(args, () => undefined)).toBe(1);
    expect(await runCheck({ ...args, failLevel: 'none' }, () => undefined)).toBe(0);
  });

  it('an advisory PR (a dead link is a risk): 0 by default and at fail, 1 at risk and nit', async () => {
    const repo = prRepo(
      { 'README.md': '# demo\n\nSee the [guide](docs/guide.md).\n', 'docs/guide.md': '# Guide\n' },
      { 'README.md': '# demo\n\nSee the [guide](docs/gone.md).\n' },
    );
    let out = '';
    const args = { repo: repo.dir, base: 'main', head: 'pr', format: 'json' as const, strict: false, noTests: true };
    expect(await runCheck(args, (s) => (out += s))).toBe(0);
    const r = JSON.parse(out) as Report;
    expect(r.decision.outcome).toBe('ADVISE');
    expect(r.findings.map((f) => [f.category, f.severity])).toEqual([['dead-link', 'risk']]);
    expect(await runCheck({ ...args, failLevel: 'fail' }, () => undefined)).toBe(0);
    expect(await runCheck({ ...args, failLevel: 'risk' }, () => undefined)).toBe(1);
    expect(await runCheck({ ...args, failLevel: 'nit' }, () => undefined)).toBe(1);
  });
});
