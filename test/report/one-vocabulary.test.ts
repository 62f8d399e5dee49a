import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/cli/check.js';
import type { Report } from '../../src/core/report.js';
import { g14 } from '../../src/guards/g14-dead-links/index.js';
import { renderCheckRun, renderMarkdown } from '../../src/report/markdown.js';
import { toSarif } from '../../src/report/sarif.js';
import { renderText } from '../../src/report/text.js';
import { gate } from '../helpers/gate.js';
import { prRepo } from '../helpers/git-repo.js';
import { buildReport, f, testsSection } from './build-report.js';

/** The mismatches issue 22 found between formats, each pinned. */
describe('one vocabulary across the formats', () => {
  it('a test unit that no longer builds is never "no regressions", in any format', () => {
    const broken = f({ guard: 'G8', category: 'build-broken', path: 'tests/test_api.py', message: 'The test module no longer imports.' });
    const report = buildReport([broken], { sections: { tests: testsSection({ brokenUnits: ['tests/test_api.py'] }) } });
    const outputs = [renderText(report), renderMarkdown(report), renderCheckRun(report).title];
    for (const out of outputs) {
      expect(out).not.toMatch(/no regressions/);
      expect(out).toMatch(/1 test unit no longer builds/);
    }
  });

  it("a guard's status follows the severities it found: only risk findings read 'risk' under ADVISE, not 'fail'", async () => {
    const repo = prRepo({ 'README.md': '# Demo\n' }, { 'README.md': '# Demo\n\nSee [the guide](docs/missing.md).\n' });
    const report = await gate(repo, [g14]);
    expect(report.decision.outcome).toBe('ADVISE');
    expect(report.findings.map((x) => x.severity)).toEqual(['risk']);
    expect(report.guards.find((g) => g.id === 'G14')?.status).toBe('risk');
    expect(renderText(report)).toMatch(/^ {2}risk +G14 /m);
    expect(renderMarkdown(report)).toMatch(/\| G14 [^|]+\| risk \|/);
  });

  it('a guard whose every finding was dismissed reads pass', async () => {
    const repo = prRepo({ 'README.md': '# Demo\n' }, { 'README.md': '# Demo\n\nSee [the guide](docs/missing.md).\n' });
    const report = await gate(repo, [g14], {
      config: { ignore: { findings: [{ path: 'README.md', category: 'dead-link', reason: 'fixed in the next PR' }] } },
    });
    expect(report.findings.every((x) => x.dismissed)).toBe(true);
    expect(report.guards.find((g) => g.id === 'G14')?.status).toBe('pass');
  });

  it('--qa that could not run says so in text, Markdown, JSON and SARIF', async () => {
    const repo = prRepo({ 'a.txt': 'a\n' }, { 'a.txt': 'b\n' });
    const run = async (format: 'text' | 'markdown' | 'json' | 'sarif') => {
      let out = '';
      await runCheck(
        { repo: repo.dir, base: 'main', head: 'pr', format, strict: false, noTests: true, qa: true },
        (s) => (out += s),
        { env: {} },
        { warn: () => undefined },
      );
      return out;
    };
    expect(await run('text')).toMatch(/^Q&A: not run \(no model configured/m);
    expect(await run('markdown')).toContain('Q&A: not run (no model configured');
    const json = JSON.parse(await run('json')) as Report;
    expect(json.sections.qa).toMatchObject({ status: 'not-run' });
    const sarif = JSON.parse(await run('sarif')) as ReturnType<typeof toSarif>;
    const notes = sarif.runs[0]!.invocations![0]!.toolExecutionNotifications ?? [];
    expect(notes.map((n) => n.message.text)).toContainEqual(expect.stringMatching(/^Q&A: not run \(no model configured/));
  });

  it('tests that did not run say so in SARIF too, with the words of the other formats', () => {
    const report = buildReport([], { sections: { tests: testsSection({ notRun: 'the suite timed out at the head' }) } });
    const notes = toSarif(report).runs[0]!.invocations![0]!.toolExecutionNotifications ?? [];
    expect(notes.map((n) => n.message.text)).toEqual(['Tests: tests not run: the suite timed out at the head']);
    expect(renderText(report)).toContain('Tests: tests not run: the suite timed out at the head');
  });
});

describe('every phase that did not run says so in SARIF, in the words of the text and Markdown reports', () => {
  const notes = (sarif: string) =>
    ((JSON.parse(sarif) as ReturnType<typeof toSarif>).runs[0]!.invocations![0]!.toolExecutionNotifications ?? []).map(
      (n) => n.message.text ?? '',
    );

  async function check(
    repo: ReturnType<typeof prRepo>,
    format: 'text' | 'markdown' | 'sarif',
    over: Partial<Parameters<typeof runCheck>[0]>,
  ) {
    let out = '';
    await runCheck(
      { repo: repo.dir, base: 'main', head: 'pr', format, strict: false, ...over },
      (s) => (out += s),
      { env: {} },
      {
        warn: () => undefined,
      },
    );
    return out;
  }

  it('G8 never ran (--no-tests): the tests notification, not silence', async () => {
    const repo = prRepo({ 'a.txt': 'a\n' }, { 'a.txt': 'b\n' });
    const said = 'tests not run: disabled for this run (--no-tests)';
    expect(await check(repo, 'text', { noTests: true })).toContain(said);
    expect(await check(repo, 'markdown', { noTests: true })).toContain(said);
    const sarif = notes(await check(repo, 'sarif', { noTests: true }));
    expect(sarif).toContain(`Tests: ${said}`);
    // Said once: not again as G8's own row.
    expect(sarif.filter((t) => t.includes('--no-tests'))).toHaveLength(1);
  });

  it('guards turned off in the committed config (guards.disable: G8, G16, G17): a notification for each', async () => {
    const config = "guards:\n  disable: ['G8', 'G16', 'G17']\n";
    const repo = prRepo({ 'a.txt': 'a\n', '.github/slopgate.yml': config }, { 'a.txt': 'b\n', '.github/slopgate.yml': config });
    const text = await check(repo, 'text', {});
    const markdown = await check(repo, 'markdown', {});
    const sarif = notes(await check(repo, 'sarif', {}));
    expect(text).toContain('tests not run: disabled in config (guards.disable)');
    expect(markdown).toContain('tests not run: disabled in config (guards.disable)');
    expect(sarif).toContain('Tests: tests not run: disabled in config (guards.disable)');
    for (const [id, name] of [
      ['G16', "project's own checks"],
      ['G17', 'Invented APIs (type probe: TypeScript, pyright)'],
    ] as const) {
      expect(text).toMatch(new RegExp(`skipped +${id} .*disabled in config \\(guards\\.disable\\)`));
      expect(markdown).toMatch(new RegExp(`^\\| ${id} [^|]*\\| skipped \\|.*disabled in config \\(guards\\.disable\\) \\|$`, 'm'));
      expect(sarif).toContain(`${id} ${name}: skipped: disabled in config (guards.disable)`);
    }
  });

  it('a guard skipped for a cause is a notification; one with no changed file in scope did look and is not', () => {
    const why16 = 'the project has no lint, typecheck or format script to run';
    const why17 = 'pyright is not installed: install it or set G17 off';
    const report = buildReport([], {
      guards: [
        { id: 'G14', name: 'dead links', status: 'skipped', reason: 'no changed files in scope', files: 0, findings: 0, ms: 0 },
        { id: 'G16', name: "project's own checks", status: 'skipped', reason: why16, files: 2, findings: 0, ms: 3 },
        { id: 'G17', name: 'Invented APIs', status: 'skipped', reason: why17, files: 2, findings: 0, ms: 5 },
      ],
    });
    const sarif = toSarif(report).runs[0]!.invocations![0]!.toolExecutionNotifications ?? [];
    expect(sarif.map((n) => n.message.text)).toEqual([
      `G16 project's own checks: skipped: ${why16}`,
      `G17 Invented APIs: skipped: ${why17}`,
    ]);
    expect(sarif.map((n) => n.descriptor?.id)).toEqual(['slopgate/G16', 'slopgate/G17']);
    for (const out of [renderText(report), renderMarkdown(report)]) {
      expect(out).toContain(why16);
      expect(out).toContain(why17);
    }
  });
});
