import { describe, expect, it } from 'vitest';
import { checkFileFence } from '../../src/guards/g4-imports/file-fence.js';

describe('G4 file fence (refiner scope-creep)', () => {
  it('passes a refiner patch that only touches the files of its findings', () => {
    expect(checkFileFence(['src/a.py', 'README.md'], ['src/a.py', 'README.md'])).toEqual([]);
  });

  it('fails a refiner patch that invents an __init__.py next to the file it was asked to fix', () => {
    const findings = checkFileFence(['app/db.py', 'app/__init__.py'], ['app/db.py']);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ category: 'scope-creep', severity: 'fail', path: 'app/__init__.py' });
    expect(findings[0]!.message).toContain('allowed: app/db.py');
  });

  it('normalises ./ prefixes, duplicate slashes and backslashes before comparing', () => {
    expect(checkFileFence(['./src//a.py', 'src\\b.py'], ['src/a.py', './src/b.py'])).toEqual([]);
  });

  it('admits a whole folder when the allowed entry ends with a slash, but not a sibling with the same prefix', () => {
    const findings = checkFileFence(['docs/guide.md', 'docs-old/guide.md'], ['docs/']);
    expect(findings.map((f) => f.path)).toEqual(['docs-old/guide.md']);
  });

  it('never allows a path that escapes the repository, even if listed', () => {
    const findings = checkFileFence(['../outside.txt'], ['../outside.txt']);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.path).toBe('../outside.txt');
  });

  it('reports each stray path once even when it appears twice', () => {
    expect(checkFileFence(['x.py', './x.py'], [])).toHaveLength(1);
  });

  it('says "nothing" is allowed when the refiner had no files', () => {
    expect(checkFileFence(['a.py'], [])[0]!.message).toContain('allowed: nothing');
  });

  it('flags every stray file of a large patch and keeps the allowed list short in the message', () => {
    const allowed = Array.from({ length: 12 }, (_, i) => `f${i}.py`);
    const findings = checkFileFence(['f0.py', 'g1.py', 'g2.py', 'main.py'], allowed);
    expect(findings.map((f) => f.path)).toEqual(['g1.py', 'g2.py', 'main.py']);
    expect(findings[0]!.message).toContain(', …');
    expect((findings[0]!.evidence?.allowed as string[]).length).toBe(12);
  });

  it('is case-sensitive like git paths: README.md does not admit readme.md', () => {
    expect(checkFileFence(['readme.md'], ['README.md'])).toHaveLength(1);
  });

  it('gives a remediation naming the stray file so two strays stay separate findings', () => {
    const [a, b] = checkFileFence(['a.py', 'b.py'], ['c.py']);
    expect(a!.remediation).toContain("'a.py'");
    expect(b!.remediation).toContain("'b.py'");
  });
});
