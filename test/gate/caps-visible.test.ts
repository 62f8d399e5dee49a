import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCoverage, gapLines } from '../../src/core/coverage.js';
import { makeFinding, type Finding } from '../../src/core/finding.js';
import type { Report } from '../../src/core/report.js';
import { decide } from '../../src/routing/decide.js';
import { exitCodeFor } from '../../src/routing/fail-level.js';
import { foldFindings } from '../../src/routing/fold.js';
import { renderReport } from '../../src/report/index.js';
import { prRepo, removeTestRepos } from '../helpers/git-repo.js';

const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const CLI = join(process.cwd(), 'src', 'cli.ts');

afterAll(() => removeTestRepos());

const goFile = (n: number) => `package gen\n\n// V${n} is generated.\nconst V${n} = ${n}\n`;

describe('caps are visible', () => {
  it('101 Go files, the unformatted one last in path order: G16 checks it too and reports it', () => {
    const base: Record<string, string> = { 'go.mod': 'module example.com/gen\n\ngo 1.21\n' };
    const head: Record<string, string> = {};
    for (let i = 0; i < 100; i++) head[`gen/a${String(i).padStart(3, '0')}.go`] = goFile(i);
    head['gen/z_last.go'] = 'package gen\n\nconst  Last = 1\n';
    const repo = prRepo(base, head);
    const r = spawnSync(TSX, [CLI, 'check', '--base', 'main', '--head', 'pr', '--only', 'G16', '--no-tests', '--format', 'json'], {
      cwd: repo.dir,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    const report = JSON.parse(r.stdout) as Report;
    expect(report.findings.some((f) => f.guard === 'G16' && f.path === 'gen/z_last.go')).toBe(true);
    expect(report.decision.conclusion).not.toBe('success');
    expect(report.coverage?.find((c) => c.check === 'G16 gofmt')).toMatchObject({ status: 'ran', scope: '101 files' });
  });

  it('a check that ran on part of its files is partial: a gap, never a pass', () => {
    const coverage = buildCoverage([{ id: 'G16', name: 'checks', status: 'pass', files: 3000, findings: 0, ms: 1 }], {
      checks: {
        checks: [
          {
            tool: 'gofmt',
            source: 'convention',
            severity: 'risk',
            status: 'partial',
            files: 3000,
            reason: 'checked the first 2000 of 3000 files; the others were not checked',
          },
        ],
      },
    });
    expect(coverage).toEqual([
      {
        check: 'G16 gofmt',
        scope: '3000 files',
        status: 'partial',
        reason: 'checked the first 2000 of 3000 files; the others were not checked',
      },
    ]);
    const d = decide([], { evidence: 1, notVerified: gapLines(coverage) });
    expect(d).toMatchObject({ outcome: 'ADVISE', conclusion: 'neutral' });
    expect(d.reason).toMatch(/^not verified: G16 gofmt on 3000 files ran on part of its input/);
    expect(exitCodeFor({ decision: d, findings: [] }, 'fail')).toBe(4);
    expect(exitCodeFor({ decision: d, findings: [] }, 'none')).toBe(0);
  });

  it('a blocking decision keeps its outcome and names the gaps; a skipped one is left alone', () => {
    const fail = makeFinding({ guard: 'G2', category: 'syntax-invalid', severity: 'fail', message: 'x', remediation: 'y', path: 'a.py' });
    const d = decide([fail], { evidence: 1, notVerified: ['the suite did not start at the base or the head — no test ran'] });
    expect(d.conclusion).toBe('failure');
    expect(d.reason).toMatch(/; not verified: the suite did not start/);
    expect(decide([], { skipReason: 'draft', notVerified: ['x'] }).conclusion).toBe('neutral');
  });

  it('a flood of one kind folds into one summary finding with the count, at the worst severity', () => {
    const links: Finding[] = [];
    for (let i = 0; i < 3000; i++)
      links.push(
        makeFinding({
          guard: 'G14',
          category: 'dead-link',
          severity: i === 2999 ? 'fail' : 'risk',
          path: `docs/p${i}.md`,
          line: 1,
          message: `dead link ${i}`,
          remediation: 'fix the link',
        }),
      );
    const other = makeFinding({ guard: 'G2', category: 'syntax-invalid', severity: 'fail', message: 'x', remediation: 'y', path: 'a.py' });
    const folded = foldFindings([...links, other]);
    expect(folded).toHaveLength(101);
    const summary = folded.find((f) => f.evidence?.folded !== undefined);
    expect(summary).toMatchObject({ severity: 'fail', evidence: { folded: 2901, total: 3000 } });
    expect(summary?.message).toMatch(/^2901 more dead-link findings of G14/);
    expect(folded).toContain(other);
  });

  it('a build the change does not feed, one G8 already compiles, or one left out by a run without dependencies is no gap; one slopgate cannot run is', () => {
    const build = (reason: string) => ({
      tool: 'build',
      source: 'ci.yml:9: go build ./...',
      severity: 'fail' as const,
      status: 'skipped' as const,
      files: 0,
      reason,
    });
    const coverage = buildCoverage([{ id: 'G16', name: 'checks', status: 'pass', files: 1, findings: 0, ms: 1 }], {
      checks: {
        checks: [
          build('no changed files in scope: the change touches none of the files it builds'),
          build("covered by the test gate: G8's `go test ./...` compiles every package"),
          build("it needs the project's dependencies, which slopgate installs only with tests on (--no-tests)"),
          build('slopgate runs a Maven build only as G8’s test run'),
        ],
      },
    });
    expect(coverage.map((e) => e.status)).toEqual(['skipped', 'skipped', 'skipped', 'not-run']);
  });

  it('every format carries the coverage record', () => {
    const coverage = buildCoverage(
      [{ id: 'G8', name: 'tests', status: 'skipped', reason: 'at the base, go not found', files: 0, findings: 0, ms: 1 }],
      {
        tests: {
          regressions: [],
          brokenUnits: [],
          suiteBroken: false,
          fixed: [],
          removed: [],
          flaky: [],
          skipped: 'at the base, go not found',
        },
      },
    );
    expect(coverage[0]).toMatchObject({ check: 'G8', status: 'not-run' });
    const decision = decide([], { evidence: 1, notVerified: gapLines(coverage) });
    const report: Report = {
      version: 1,
      tool: { name: 'slopgate', version: '0' },
      repo: 'r',
      base: { ref: 'main', sha: 'a'.repeat(40) },
      head: { ref: 'pr', sha: 'b'.repeat(40) },
      commits: [],
      files: [],
      guards: [{ id: 'G8', name: 'tests', status: 'skipped', reason: 'at the base, go not found', files: 0, findings: 0, ms: 1 }],
      findings: [],
      sections: {},
      decision,
      coverage,
      createdAt: new Date(0).toISOString(),
      durationMs: 1,
    };
    expect(renderReport('text', report)).toMatch(/Coverage: 1 not run\n {2}NOT RUN G8 — the suite: the suite did not start/);
    expect(renderReport('markdown', report)).toMatch(/### Coverage: 1 not run/);
    const sarif = JSON.parse(renderReport('sarif', report)) as { runs: { properties: { notVerified: string[] } }[] };
    expect(sarif.runs[0]?.properties.notVerified[0]).toMatch(/^the suite did not start/);
    expect(JSON.parse(renderReport('json', report))).toMatchObject({ coverage });
  });
});
