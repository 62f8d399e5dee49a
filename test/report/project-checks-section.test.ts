import { describe, expect, it } from 'vitest';
import { projectChecksMarkdown, projectChecksTextLines } from '../../src/report/project-checks-section.js';

const SECTION = {
  checks: [
    { tool: 'gofmt', source: '.github/workflows/ci.yml: test -z "$(gofmt -l .)"', severity: 'fail', status: 'ran', files: 2 },
    {
      tool: 'prettier',
      source: 'package.json: prettier --check .',
      severity: 'fail',
      status: 'ran',
      files: 2,
      found: { fail: 0, risk: 0, nit: 0 },
    },
    { tool: 'clippy', source: 'ci.yml: cargo clippy', severity: 'fail', status: 'ran', files: 1, found: { fail: 2, risk: 1, nit: 0 } },
    {
      tool: 'ruff-check',
      source: 'Makefile: ruff check | tee x',
      severity: 'risk',
      status: 'skipped',
      files: 1,
      reason: 'not run by this version',
    },
    { tool: 'bogus', status: 'passed' },
  ],
};

describe('the checks section (G16)', () => {
  it('text: each check with where it is configured, what it weighs and whether it ran; a skip says why', () => {
    expect(projectChecksTextLines(SECTION)).toEqual([
      "Project's own checks (G16)",
      // A record of an older slopgate has no counts: what its findings weigh, never a bare "fail".
      '  gofmt: ran on 2 files, findings of it weigh fail — .github/workflows/ci.yml: test -z "$(gofmt -l .)"',
      '  prettier: ran on 2 files, no findings — package.json: prettier --check .',
      '  clippy: ran on 1 file, 3 findings (2 fail, 1 risk) — ci.yml: cargo clippy',
      '  ruff-check: skipped: not run by this version — Makefile: ruff check | tee x',
    ]);
  });

  it('markdown: a table whose cells are escaped (a | in a configured command does not break it)', () => {
    const md = projectChecksMarkdown(SECTION);
    expect(md).toContain('| check | configured in | result |');
    expect(md).toContain('| ruff-check | Makefile: ruff check \\| tee x | skipped: not run by this version |');
    expect(md.split('\n').filter((l) => l.startsWith('| '))).toHaveLength(5);
  });

  it('a check that ran and found nothing never says fail', () => {
    const [, line] = projectChecksTextLines({ checks: [SECTION.checks[1]] });
    expect(line).not.toMatch(/fail/);
    expect(projectChecksMarkdown({ checks: [SECTION.checks[1]] })).toContain('| ran on 2 files, no findings |');
  });

  it('nothing for a missing or malformed section', () => {
    expect(projectChecksTextLines(undefined)).toEqual([]);
    expect(projectChecksMarkdown({ checks: 'x' })).toBe('');
  });
});
