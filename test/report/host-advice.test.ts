import { afterAll, describe, expect, it } from 'vitest';
import type { HostKind } from '../../src/core/host-kind.js';
import type { Report } from '../../src/core/report.js';
import { g1 } from '../../src/guards/g1-manifest-safety/index.js';
import { runCheck } from '../../src/cli/check.js';
import { renderReport } from '../../src/report/index.js';
import { renderCheckRun } from '../../src/report/markdown.js';
import { renderBodySection } from '../../src/host/pr-body.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, removeTestRepos } from '../helpers/git-repo.js';
import { buildReport, f } from './build-report.js';

/**
 * Issue 32: a report speaks for the host it is read in. The CLI names CLI commands and config keys,
 * the Action pushes, workflow re-runs and its label, and only the App names `/slopgate` commands and
 * refine rounds. Each blocked report is rendered for all three hosts and checked both ways.
 */

afterAll(() => removeTestRepos());

/** What must never appear in a host's rendering: the other hosts' ways forward. */
const FOREIGN: Record<HostKind, RegExp[]> = {
  cli: [/\/slopgate /, /slopgate:allow-manifest/, /\bround \d+ of \d+/i, /re-run/i, /workflow/i, /\bpush\b/],
  action: [/\/slopgate /, /`slopgate (check|refine)/, /\bround \d+ of \d+/i, /--[a-z]/],
  app: [/`slopgate refine`/, /sarif-file/, /workflow job/, /run `slopgate check` again/],
};

const BLOCKED: Record<string, () => Report> = {
  'fix-and-push': () => buildReport([f()]),
  'offer-refine': () => buildReport([f()], {}, { refinerEnabled: true }),
  'auto-refine': () => buildReport([f()], {}, { refinerEnabled: true, autoRefine: true }),
  'ask-author': () => buildReport([f({ guard: 'G1', category: 'manifest-edit', path: 'package.json', remediation: 'Check it.' })]),
};

function renderings(report: Report, host: HostKind): string[] {
  const run = renderCheckRun(report, { host, maxChars: 900 });
  return [
    renderReport('text', report, { host }),
    renderReport('markdown', report, { host }),
    run.summary,
    run.text,
    renderBodySection({
      decision: report.decision,
      headSha: report.head.sha,
      qa: { status: 'not-run', reason: 'x' },
      rounds: host === 'app',
    }),
  ];
}

describe('the next step, per host', () => {
  for (const [next, build] of Object.entries(BLOCKED)) {
    it(`${next}: each host names only its own ways forward`, () => {
      const report = build();
      expect(report.decision.next).toBe(next);
      for (const host of ['cli', 'action', 'app'] as const) {
        for (const out of renderings(report, host)) {
          for (const bad of FOREIGN[host]) expect(out, `${host} says ${String(bad)}`).not.toMatch(bad);
        }
      }
    });
  }

  it('the CLI says to run slopgate check again (and slopgate refine where the refiner is offered); the App keeps its commands and rounds', () => {
    const text = (next: string, host: HostKind) => renderReport('text', BLOCKED[next]!(), { host });
    expect(text('fix-and-push', 'cli')).toContain('next: fix the blocking findings, then run `slopgate check` again');
    expect(text('offer-refine', 'cli')).toContain('`slopgate refine`');
    expect(text('ask-author', 'cli')).toContain('`manifests.allow` or `ignore.findings` in the config');
    expect(text('fix-and-push', 'action')).toContain('next: fix the blocking findings and push again');
    expect(text('ask-author', 'action')).toContain('re-runs the workflow job');
    expect(text('ask-author', 'app')).toContain('comment `/slopgate recheck`');
    expect(text('offer-refine', 'app')).toContain('comment `/slopgate refine`');
    expect(text('fix-and-push', 'app')).toContain('round 1 of 3');
    expect(renderCheckRun(BLOCKED['fix-and-push']!(), { host: 'app' }).summary).toContain('Round 1 of 3 ·');
  });

  it('a check run too long for GitHub points to the complete list in the host’s terms', () => {
    const report = buildReport(Array.from({ length: 40 }, (_, i) => f({ line: i + 1, message: `finding ${i} ${'x'.repeat(80)}` })));
    expect(renderCheckRun(report, { host: 'action', maxChars: 2000 }).summary).toContain('set the `sarif-file` input');
    expect(renderCheckRun(report, { host: 'app', maxChars: 2000 }).summary).toContain('`slopgate check --format json` on the branch');
  });
});

describe('G1’s sanction hint, per host', () => {
  const pkg = (deps: Record<string, string>) => JSON.stringify({ name: 'app', version: '1.0.0', dependencies: deps }, null, 2) + '\n';
  const repo = () =>
    prRepo({ 'package.json': pkg({ react: '^18.2.0' }) }, { 'package.json': pkg({ react: '^18.2.0', 'left-pad': '^1.3.0' }) });

  it('the CLI names the config only; the Action adds its label; the App adds the label and /slopgate allow', async () => {
    const hint = async (host: HostKind) => findingsOf(await gate(repo(), [g1], { services: { host } }), 'G1')[0]!.remediation;
    const [cli, action, app] = await Promise.all([hint('cli'), hint('action'), hint('app')]);
    expect(cli).toContain('`manifests.allow`');
    expect(cli).toContain('--config');
    expect(cli).not.toMatch(/label|\/slopgate /);
    expect(action).toContain('`slopgate:allow-manifest` label');
    expect(action).not.toContain('/slopgate allow');
    expect(app).toContain('`/slopgate allow package.json`');
  });

  it('slopgate check gates as the CLI: the report it prints advises CLI steps only', async () => {
    let out = '';
    await runCheck(
      { repo: repo().dir, base: 'main', head: 'pr', format: 'json', strict: true, noTests: true, only: ['G1'] },
      (s) => (out += s),
      {},
      { stderr: { write: () => true } },
    );
    const report = JSON.parse(out) as Report;
    const g1Hint = report.findings.find((x) => x.guard === 'G1')?.remediation ?? '';
    expect(g1Hint).toContain('`manifests.allow`');
    expect(g1Hint).not.toMatch(/\/slopgate |label/);
    for (const bad of FOREIGN.cli) expect(renderReport('text', report, { host: 'cli' })).not.toMatch(bad);
  });
});
