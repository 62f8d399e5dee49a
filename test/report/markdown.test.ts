import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/core/finding.js';
import { renderReport } from '../../src/report/index.js';
import { CHECK_RUN_OUTPUT_LIMIT, checkRunTitle, renderCheckRun } from '../../src/report/markdown.js';
import { buildReport, f, psiSection, suiteBrokenReport, testsSection } from './build-report.js';

function many(n: number, over: (i: number) => Partial<Finding> = () => ({})): Finding[] {
  return Array.from({ length: n }, (_, i) =>
    f({
      path: `src/module_${i}/file_${i}.py`,
      line: i + 1,
      message: `def handler_${i} was removed; callers in src/module_${i}/views.py still import it. `.repeat(3),
      remediation: `Restore handler_${i} (finding ${i}).`,
      ...over(i),
    }),
  );
}

/** Pipes that are table syntax (not escaped as \|). */
function tablePipes(line: string): number {
  return (line.match(/(?<!\\)\|/g) ?? []).length;
}

function omittedCount(text: string): number | null {
  const m = /… ([\d,]+) more findings? not shown/.exec(text);
  return m ? Number(m[1]!.replace(/,/g, '')) : null;
}

describe('report/markdown: check-run title', () => {
  it('counts blocking findings and adds Ψ and the test result: "2 blocking · Ψ 0.41 · tests: 1 regression"', () => {
    const report = buildReport([f(), f({ category: 'test-regression', guard: 'G8', path: 'tests/test_a.py' })], {
      sections: { psi: psiSection([{ path: 'a.py', psi: 0.41 }]), tests: testsSection({ regressions: ['tests/test_a.py::test_load'] }) },
    });
    expect(checkRunTitle(report)).toBe('2 blocking · Ψ 0.41 · tests: 1 regression');
  });

  it('a suite that does not start at the head never reads as "no regressions": title and summary name it, with the cause', () => {
    const cause = '`conftest.py` imports `sqlalchemy`, which is not installed in the sandbox';
    const report = suiteBrokenReport(`${cause}; declare it in the project’s test dependencies`);
    // The title keeps the cause and leaves the remedy to the summary.
    expect(checkRunTitle(report)).toBe(`1 blocking · suite does not start at the head: ${cause}`);
    const out = renderCheckRun(report);
    expect(out.summary).toContain(`### Tests: suite does not start at the head: ${cause}\n`);
    expect(out.summary).toContain(`suite does not start at the head: ${cause}; declare it in the project’s test dependencies`);
    expect(`${out.title}\n${out.summary}`).not.toContain('no regressions');
    // A report stored before the cause was recorded still says what happened, without a bare exit code.
    expect(checkRunTitle(suiteBrokenReport())).toBe('1 blocking · suite does not start at the head');
  });

  it('a skipped G8 reads "tests not run: <why>" in the title, once', () => {
    const report = buildReport([], {
      sections: { tests: testsSection({ skipped: 'tests not run: the sandbox cannot be established (bwrap is not installed)' }) },
    });
    expect(checkRunTitle(report)).toBe('no findings · tests not run: the sandbox cannot be established (bwrap is not installed)');
  });

  it('says "all clear" on PASS and counts advisory findings separately', () => {
    expect(checkRunTitle(buildReport([]))).toBe('all clear');
    expect(checkRunTitle(buildReport([f({ severity: 'nit', category: 'style' })]))).toBe('1 advisory');
  });
});

describe('report/markdown: size caps', () => {
  it('a report with 3,000 findings stays within 65,535 characters in summary and text, and says how many were left out', () => {
    const findings = many(3000);
    const out = renderCheckRun(buildReport(findings));
    for (const part of [out.summary, out.text]) {
      expect(part.length).toBeLessThanOrEqual(CHECK_RUN_OUTPUT_LIMIT);
      expect(part.length).toBeGreaterThan(CHECK_RUN_OUTPUT_LIMIT - 2000); // it fills the space it has
    }
    const rows = out.summary.split('\n').filter((l) => l.startsWith('| 🔴'));
    expect(rows.length + omittedCount(out.summary)!).toBe(3000);
    const details = out.text.split('\n').filter((l) => l.startsWith('### '));
    expect(details.length + omittedCount(out.text)!).toBe(3000);
    expect(out.summary).toMatch(/… [\d,]+ more findings not shown: GitHub caps the check summary at 65,535 characters/);
  });

  it('never cuts a table row: every row kept is whole, and nothing is said to be missing when everything fits', () => {
    const out = renderCheckRun(buildReport(many(40)));
    expect(omittedCount(out.summary)).toBeNull();
    expect(omittedCount(out.text)).toBeNull();
    for (const max of [600, 1500, 4000, 9000]) {
      const capped = renderCheckRun(buildReport(many(40)), { maxChars: max });
      expect(capped.summary.length).toBeLessThanOrEqual(max);
      expect(capped.text.length).toBeLessThanOrEqual(max);
      const tableRows = capped.summary.split('\n').filter((l) => l.startsWith('| 🔴'));
      for (const row of tableRows) {
        expect(row.endsWith(' |')).toBe(true);
        expect(tablePipes(row)).toBe(6);
      }
      expect(tableRows.length + (omittedCount(capped.summary) ?? 0)).toBe(40);
    }
  });

  it('counts characters the way GitHub does (UTF-16 units), so emoji-heavy messages still fit', () => {
    const findings = many(2000, (i) => ({ message: `🔥🧨 broken ${i} `.repeat(30) }));
    const out = renderCheckRun(buildReport(findings));
    expect(out.summary.length).toBeLessThanOrEqual(CHECK_RUN_OUTPUT_LIMIT);
    expect(out.text.length).toBeLessThanOrEqual(CHECK_RUN_OUTPUT_LIMIT);
    expect(out.text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/); // no lone high surrogate from a cut
  });

  it('one enormous message cannot crowd out the rest: it is clipped, not dropped', () => {
    const out = renderCheckRun(buildReport([f({ message: 'x'.repeat(200_000) }), f({ path: 'b.py', message: 'short one' })]));
    expect(out.text).toContain('short one');
    expect(omittedCount(out.text)).toBeNull();
  });
});

describe('report/markdown: escaping untrusted text', () => {
  const hostile = f({
    path: 'docs/a|b<!-- hide -->@octocat`x`.md',
    line: 3,
    message:
      '| col | col |\n# Heading\n<img src=x onerror=alert(1)> ping @octocat and @acme/security-team [click](javascript:alert(1)) <!-- marker -->\n1. not a list\n---',
    remediation: '<details>open</details> ask @someone',
  });
  const out = renderCheckRun(buildReport([hostile]));
  const all = `${out.summary}\n${out.text}`;

  it('cannot open an HTML comment, inject tags, or ping anyone', () => {
    expect(all).not.toContain('<!--');
    expect(all).not.toMatch(/(?<!\\)<(img|details)/); // only backslash-escaped, which renders as text
    expect(all).toContain('\\<\u200bimg'); // escaped and broken with a zero-width space: text, never a tag
    expect(all).not.toMatch(/@(octocat|acme|someone)/);
    expect(all).toContain('octocat'); // still readable
  });

  it('cannot break the findings table: the row keeps exactly its column separators', () => {
    const row = out.summary.split('\n').find((l) => l.startsWith('| 🔴'))!;
    expect(tablePipes(row)).toBe(6);
    expect(row).toContain('a\\|b');
  });

  it('cannot start a heading or a link in the details', () => {
    expect(out.text).not.toMatch(/^# Heading/m);
    expect(out.text).not.toContain('[click](');
    expect(out.text).toContain('1\\. not a list');
    expect(out.text).toContain('\\---');
  });
});

describe('report/markdown: document shape', () => {
  it('the summary gives the decision and why, the guard table, and the findings table; the text gives details', () => {
    const report = buildReport([
      f({ suggestion: { path: 'src/app.py', startLine: 10, endLine: 11, replacement: 'def load_config():\n    ...\n' } }),
    ]);
    const out = renderCheckRun(report, { detailsUrl: 'https://slopgate.example/runs/7 (x)' });
    expect(out.summary).toMatch(/^## ❌ REFINE · failure/);
    expect(out.summary).toContain('**Why:** 1 blocking finding');
    expect(out.summary).toContain('| G14 dead links | skipped | 0 | 0 | 0 | no changed files in scope |');
    expect(out.summary).toContain('| 🔴 fail | G7 | toplevel-dropped | src/app.py:10 |');
    expect(out.summary).toContain('[Full report](https://slopgate.example/runs/7%20%28x%29)');
    expect(out.text).toContain('Suggested replacement for lines 10–11 of src/app.py:');
    expect(out.text).toContain('```py\ndef load_config():');
  });

  it('renderReport("markdown") prints the title, the summary and the text', () => {
    const report = buildReport([f()]);
    const md = renderReport('markdown', report);
    // `--format markdown` is the CLI's: the same document as the check run, with the CLI's advice.
    const out = renderCheckRun(report, { host: 'cli' });
    expect(md.startsWith(`# slopgate: ${out.title}`)).toBe(true);
    expect(md).toContain(out.summary.trimEnd());
    expect(md).toContain(out.text.trimEnd());
  });

  it('a PASS has an empty text and a summary that says so', () => {
    const out = renderCheckRun(buildReport([]));
    expect(out.text).toBe('');
    expect(out.summary).toContain('## ✅ PASS · success');
    expect(out.summary).toContain('### Findings\n\nNone.');
  });
});
