import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChangedFile } from '../../src/core/patch-set.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo } from '../helpers/git-repo.js';

// Γ belongs to the grounding guards; here it is pinned per path so the worked values can be replayed.
const gammas = new Map<string, number>();
vi.mock('../../src/guards/psi/gamma.js', () => ({
  gammaOf: async (file: ChangedFile) => {
    const g = gammas.get(file.path);
    return g === undefined ? { gamma: 1, evidence: [] } : { gamma: g, evidence: [`pinned Γ ${g}`] };
  },
}));

const { psi } = await import('../../src/guards/psi/index.js');

async function score(base: Record<string, string>, head: Record<string, string | null>, threshold?: number) {
  const report = await gate(prRepo(base, head), [psi], threshold === undefined ? {} : { config: { psi: { threshold } } });
  return { findings: findingsOf(report, 'psi'), section: report.sections.psi! };
}

describe('Ψ-lite guard', () => {
  beforeEach(() => gammas.clear());

  it('a clean doc edit scores 1.0 and the psi section says so', async () => {
    const { findings, section } = await score(
      { 'README.md': '# Tool\n\nIntro.\n' },
      { 'README.md': '# Tool\n\nIntro, reworded.\n\n```bash\nmake\n```\n' },
    );
    expect(findings).toEqual([]);
    expect(section).toMatchObject({ score: 1, weakestFile: 'README.md', files: [{ path: 'README.md', psi: 1, gamma: 1, omega: 0 }] });
  });

  it('b2v PR #27 shape: React claim (Γ 0) plus a fenced line with two literal \\n → Ψ −0.2, low-psi fail with Γ, Ω and components', async () => {
    gammas.set('README.md', 0);
    const { findings, section } = await score(
      { 'README.md': '# b2v\n\nA Rust CLI.\n' },
      { 'README.md': '# b2v\n\nA Rust CLI with a React front end.\n\n```bash\ncargo build\\ncargo test\\n\n```\n' },
    );
    expect(section.score).toBe(-0.2);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.category).toBe('low-psi');
    expect(f.severity).toBe('fail');
    expect(f.line).toBe(6);
    expect(f.message).toContain('is -0.20, below the threshold 0.50');
    expect(f.message).toContain('Grounding Γ = 0.00 (pinned Γ 0)');
    expect(f.message).toContain('written-out \\n on code-block lines 0.20 (line 6)');
    expect(f.evidence).toMatchObject({ gamma: 0, omega: 0.2, components: { literalNewlines: 0.2 } });
  });

  it('"Built on Clap. Also uses React." (Γ 0.5) passes at threshold 0.5; at 0.9 it is a risk, never a fail (no slop)', async () => {
    gammas.set('docs/stack.md', 0.5);
    const base = { 'docs/stack.md': 'Stack.\n' };
    const head = { 'docs/stack.md': 'Built on Clap. Also uses React.\n' };
    expect((await score(base, head)).findings).toEqual([]);
    const strict = await score(base, head, 0.9);
    expect(strict.section.score).toBe(0.5);
    expect(strict.findings).toHaveLength(1);
    expect(strict.findings[0]!.severity).toBe('risk');
    expect(strict.findings[0]!.message).toContain('only grounding is low');
  });

  it('an ungrounded name with only minor slop (trailing whitespace) is a risk; with two ungrounded names it fails', async () => {
    gammas.set('docs/a.md', 0);
    const base = { 'docs/a.md': 'A.\n', 'docs/b.md': 'B.\n' };
    const one = await score(base, { 'docs/a.md': 'A uses Django. \nMore.\n' });
    expect(one.findings.map((f) => f.severity)).toEqual(['risk']);
    const { psiSeverity } = await import('../../src/guards/psi/index.js');
    const om = {
      omega: 0.1,
      components: { literalNewlines: 0, blankRuns: 0, trailingWhitespace: 0.1, fencedSource: 0, nearEmpty: 0 },
      lines: { literalNewlines: [], blankRuns: [], trailingWhitespace: [1] },
    };
    const w = { alpha: 1, lambda: 1, threshold: 0.5 };
    expect(psiSeverity(om, 1, w).severity).toBe('risk');
    expect(psiSeverity(om, 2, w).severity).toBe('fail');
    expect(psiSeverity({ ...om, omega: 0 }, 5, w).severity).toBe('risk');
    expect(psiSeverity({ ...om, omega: 0.6 }, 0, w).severity).toBe('fail');
  });

  it('a .py the LLM wrapped in a ```python fence scores 0.4 and fails, pointing at line 1', async () => {
    const { findings, section } = await score(
      { 'app/main.py': 'print("hi")\n' },
      { 'app/main.py': '```python\nprint("hi")\nprint("bye")\n```\n' },
    );
    expect(section.files[0]).toMatchObject({ psi: 0.4, omega: 0.6, components: { fencedSource: 0.6 } });
    expect(findings).toHaveLength(1);
    expect(findings[0]!.line).toBe(1);
    expect(findings[0]!.message).toContain('source file wrapped in a Markdown fence 0.60');
  });

  it('a .py reduced to "x" scores 0.6 and passes the default threshold (spec worked value)', async () => {
    const { findings, section } = await score({ 'app/x.py': 'def f():\n    return 1\n' }, { 'app/x.py': 'x\n' });
    expect(section.files[0]).toMatchObject({ psi: 0.6, components: { nearEmpty: 0.4 } });
    expect(findings).toEqual([]);
  });

  it('near-miss: trailing whitespace and blank-line runs already in the base do not count against an unrelated edit', async () => {
    const base = Array.from({ length: 10 }, (_, i) => `line ${i} \t`).join('\n') + '\n\n\n\n\nend\n';
    const { section } = await score({ 'notes.txt': base }, { 'notes.txt': base.replace('end\n', 'the end\n') });
    expect(section.files[0]!.omega).toBe(0);
  });

  it('the weakest file sets the score; every file is listed', async () => {
    const { section, findings } = await score(
      { 'a.md': 'a\n', 'b.py': 'b = 1\n' },
      { 'a.md': 'a, edited\n', 'b.py': '```\nb = 1\n```\n', 'c.go': 'package c\n' },
    );
    expect(section.weakestFile).toBe('b.py');
    expect(section.score).toBe(0.4);
    expect(section.files.map((f) => f.path).sort()).toEqual(['a.md', 'b.py', 'c.go']);
    expect(findings.map((f) => f.path)).toEqual(['b.py']);
  });

  it('a PR that only deletes files scores 1.0 with no files', async () => {
    const { section, findings } = await score({ 'old.md': 'bye\n', 'keep.md': 'hi\n' }, { 'old.md': null });
    expect(section).toMatchObject({ score: 1, weakestFile: null, files: [] });
    expect(findings).toEqual([]);
  });

  it('λ from config weighs slop: three blank-line runs pass at λ 1 and fail at λ 10', async () => {
    const head = { 'doc.md': 'a\n\n\n\nb\n\n\n\nc\n\n\n\nd\n' };
    expect((await score({ 'doc.md': 'a\n' }, head)).findings).toEqual([]);
    const report = await gate(prRepo({ 'doc.md': 'a\n' }, head), [psi], { config: { psi: { lambda: 10 } } });
    expect(findingsOf(report, 'psi')).toHaveLength(1);
    expect(report.sections.psi!.score).toBe(-0.5);
  });
});
