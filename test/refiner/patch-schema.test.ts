import { describe, expect, it } from 'vitest';
import { refinerReplySchema, unsafePathReason } from '../../src/refiner/patch-schema.js';
import { compare, newFindings } from '../../src/refiner/verdict.js';
import { makeFinding, type Finding } from '../../src/core/finding.js';
import type { Report } from '../../src/core/report.js';

describe('the refiner reply schema', () => {
  const schema = refinerReplySchema(new Set(['app/db.py', 'docs/guide.md']));

  it('accepts full files inside the fence', () => {
    expect(schema.safeParse({ files: [{ path: 'app/db.py', content: 'x = 1\n' }], summary: 'ok' }).success).toBe(true);
  });

  it.each([
    ['../etc/passwd', "'..' segment"],
    ['app/../app/db.py', "'..' segment"],
    ['/etc/passwd', 'absolute'],
    ['C:/x.py', 'absolute'],
    ['app\\db.py', 'backslash'],
    ['./app/db.py', "'.' segment"],
    ['package.json', 'manifest'],
    ['sub/Cargo.toml', 'manifest'],
    ['package-lock.json', 'lockfile'],
    ['.git/config', '.git'],
    ['app/other.py', 'outside the fence'],
  ])('refuses %s (%s)', (path, why) => {
    const r = schema.safeParse({ files: [{ path, content: '' }] });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain(why);
  });

  it('refuses extra keys, duplicate paths and long summaries', () => {
    expect(schema.safeParse({ files: [], extra: 1 }).success).toBe(false);
    expect(schema.safeParse({ files: [{ path: 'app/db.py', content: '', mode: '755' }] }).success).toBe(false);
    expect(
      schema.safeParse({
        files: [
          { path: 'app/db.py', content: 'a' },
          { path: 'app/db.py', content: 'b' },
        ],
      }).success,
    ).toBe(false);
    expect(schema.safeParse({ files: [], summary: 'x'.repeat(201) }).success).toBe(false);
  });

  it('says why a path is unsafe, and null for a plain one', () => {
    expect(unsafePathReason('src/a.ts')).toBeNull();
    expect(unsafePathReason('requirements-dev.txt')).toContain('manifest');
  });
});

const f = (guard: string, category: Finding['category'], path: string, line: number, severity: Finding['severity'] = 'fail') =>
  makeFinding({
    guard,
    category,
    severity,
    path,
    line,
    message: `${category} at ${line}`,
    remediation: `fix ${category} in ${path} at line ${line}`,
  });

function report(findings: Finding[]): Report {
  const ids = [...new Set(findings.map((x) => x.guard))];
  const guards = ids.map((id) => ({ id, name: id, status: 'fail' as const, files: 1, findings: 1, ms: 1 }));
  return { findings, guards } as unknown as Report; // only findings and guards are read by compare()
}

describe('the keep rule', () => {
  const syntax = f('G2', 'syntax-invalid', 'a.py', 3);
  const dropped = f('G7', 'toplevel-dropped', 'a.py', 9);

  it('a finding that only moved lines is not new', () => {
    expect(newFindings([syntax], [f('G2', 'syntax-invalid', 'a.py', 7)])).toEqual([]);
  });

  it('fixing one finding while adding another is not an improvement', () => {
    const c = compare([syntax, dropped], report([dropped, f('G4', 'ungrounded-import', 'a.py', 1)]), false);
    expect(c.improved).toBe(false);
    expect(c.reason).toMatch(/^G4 failed/);
    expect(c.fixed.map((x) => x.id)).toEqual([syntax.id]);
  });

  it('fewer blocking findings and nothing new is kept; the same count is not', () => {
    expect(compare([syntax, dropped], report([dropped]), false).improved).toBe(true);
    const same = compare([syntax], report([syntax]), false);
    expect(same.improved).toBe(false);
    expect(same.reason).toContain('no strict improvement');
  });

  it('removing only a risk finding does not count when not strict', () => {
    const risk = f('psi', 'low-psi', 'a.py', 1, 'risk');
    expect(compare([syntax, risk], report([syntax]), false).improved).toBe(false);
    expect(compare([syntax, risk], report([syntax]), true).improved).toBe(true);
  });
});
