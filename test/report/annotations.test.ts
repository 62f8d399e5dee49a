import { describe, expect, it } from 'vitest';
import { toAnnotations } from '../../src/report/annotations.js';
import { buildReport, f } from './build-report.js';

describe('report/annotations', () => {
  const report = buildReport([
    f({ severity: 'nit', category: 'style', guard: 'qa', path: 'z.py', line: 5 }),
    f({ severity: 'risk', category: 'dead-link', guard: 'G14', path: 'README.md', line: undefined }),
    f({ path: 'src/app.py', line: 10, endLine: 14, commit: 'abcdef1234567890' }),
    f({ path: undefined, line: undefined, category: 'tests-removed' }),
  ]);
  const out = toAnnotations(report);

  it('maps fail → failure, risk → warning, nit → notice, failures first', () => {
    expect(out.map((a) => a.annotation_level)).toEqual(['failure', 'warning', 'notice']);
    expect(out.map((a) => a.path)).toEqual(['src/app.py', 'README.md', 'z.py']);
  });

  it('skips findings without a path (they live in the summary)', () => {
    expect(out.some((a) => a.title.includes('tests-removed'))).toBe(false);
  });

  it('a finding without a line is annotated on line 1; end_line defaults to start_line; a range is kept', () => {
    const readme = out.find((a) => a.path === 'README.md')!;
    expect([readme.start_line, readme.end_line]).toEqual([1, 1]);
    const nit = out.find((a) => a.path === 'z.py')!;
    expect([nit.start_line, nit.end_line]).toEqual([5, 5]);
    const app = out.find((a) => a.path === 'src/app.py')!;
    expect([app.start_line, app.end_line]).toEqual([10, 14]);
  });

  it('title names guard and category; message carries what is wrong, what to do, the finding id and the commit', () => {
    const app = out.find((a) => a.path === 'src/app.py')!;
    expect(app.title).toBe('G7 toplevel-dropped: def load_config was removed');
    expect(app.message).toContain('def load_config was removed');
    expect(app.message).toContain('What to do: Restore load_config');
    expect(app.message).toContain(`slopgate finding ${report.findings.find((x) => x.path === 'src/app.py')!.id} (commit abcdef1)`);
    expect(app.raw_details).toBeUndefined();
  });

  it('puts a suggested replacement in raw_details, and keeps every field within GitHub limits', () => {
    const [a] = toAnnotations(
      buildReport([
        f({
          message: 'long '.repeat(30_000),
          suggestion: { path: 'src/app.py', startLine: 10, endLine: 10, replacement: 'def load_config():\n' },
        }),
      ]),
    );
    expect(a!.raw_details).toContain('Suggested replacement for lines 10-10 of src/app.py:\ndef load_config():');
    expect(a!.title.length).toBeLessThanOrEqual(255);
    expect(Buffer.byteLength(a!.message, 'utf8')).toBeLessThanOrEqual(64 * 1024);
  });

  it('normalises paths and drops ones that escape the repository', () => {
    const list = toAnnotations(buildReport([f({ path: './src/x.py' }), f({ path: '../secret', line: 2 })]));
    expect(list.map((a) => a.path)).toEqual(['src/x.py']);
  });
});
