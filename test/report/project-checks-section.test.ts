import { describe, expect, it } from 'vitest';
import { projectChecksMarkdown, projectChecksTextLines } from '../../src/report/project-checks-section.js';

const SECTION = {
  checks: [
    { tool: 'gofmt', source: '.github/workflows/ci.yml: test -z "$(gofmt -l .)"', severity: 'fail', status: 'ran', files: 2 },
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
      '  gofmt: ran on 2 files (findings: fail) — .github/workflows/ci.yml: test -z "$(gofmt -l .)"',
      '  ruff-check: skipped: not run by this version — Makefile: ruff check | tee x',
    ]);
  });

  it('markdown: a table whose cells are escaped (a | in a configured command does not break it)', () => {
    const md = projectChecksMarkdown(SECTION);
    expect(md).toContain('| check | configured in | result |');
    expect(md).toContain('| ruff-check | Makefile: ruff check \\| tee x | skipped: not run by this version |');
    expect(md.split('\n').filter((l) => l.startsWith('| '))).toHaveLength(3);
  });

  it('nothing for a missing or malformed section', () => {
    expect(projectChecksTextLines(undefined)).toEqual([]);
    expect(projectChecksMarkdown({ checks: 'x' })).toBe('');
  });
});
