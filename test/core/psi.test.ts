import { describe, expect, it } from 'vitest';
import { omegaOf, psiOf } from '../../src/core/psi.js';

const W = { alpha: 1, lambda: 1 };
const allAdded = () => true;
const fresh = (path: string, text: string) => omegaOf({ path, text, baseText: null, isAdded: allAdded });

describe('Ψ-lite scoring (spec §14 worked values)', () => {
  it('a grounded clean doc scores 1.0', () => {
    const om = fresh('README.md', '# Tool\n\nBuilt on Clap.\n\n```bash\ncargo run\n```\n');
    expect(om.omega).toBe(0);
    expect(psiOf(1, om.omega, W)).toBe(1);
  });

  it('"Built on Clap. Also uses React." at Γ 0.5 scores 0.5: passes a 0.5 threshold (strict <), fails 0.9', () => {
    const score = psiOf(0.5, fresh('docs/a.md', 'Built on Clap. Also uses React.\n').omega, W);
    expect(score).toBe(0.5);
    expect(score < 0.5).toBe(false);
    expect(score < 0.9).toBe(true);
  });

  it('PR #27 shape: Γ 0 and a code-block line with two literal \\n → Ω 0.2, Ψ −0.2', () => {
    const om = fresh('README.md', 'Uses React.\n\n```bash\ncargo build\\ncargo test\\n\n```\n');
    expect(om.components.literalNewlines).toBe(0.2);
    expect(om.lines.literalNewlines).toEqual([4]);
    expect(om.omega).toBe(0.2);
    expect(psiOf(0, om.omega, W)).toBe(-0.2);
  });

  it('a .py wrapped in a Markdown fence → Ω 0.6, Ψ 0.4 (fails 0.5)', () => {
    const om = fresh('app/main.py', '```python\nprint("hi")\n```\n');
    expect(om.components.fencedSource).toBe(0.6);
    expect(om.omega).toBe(0.6);
    expect(psiOf(1, om.omega, W)).toBe(0.4);
  });

  it('a .py containing only "x" → Ω 0.4, Ψ 0.6 (passes 0.5, as in the original)', () => {
    const om = fresh('app/x.py', 'x\n');
    expect(om.components.nearEmpty).toBe(0.4);
    expect(psiOf(1, om.omega, W)).toBe(0.6);
  });

  it('3+ blank-line runs add 0.05 each (cap 0.3) and trailing whitespace adds its share of lines (cap 0.2)', () => {
    const om = fresh('notes.txt', 'a\n\n\n\nb\n\n\n\n\nc \nd\t\n');
    expect(om.components.blankRuns).toBe(0.1);
    expect(om.lines.blankRuns).toEqual([2, 6]);
    expect(om.components.trailingWhitespace).toBeCloseTo(2 / 11, 5); // 2 of 11 newline-terminated lines
    expect(om.lines.trailingWhitespace).toEqual([10, 11]);
    expect(fresh('notes.txt', 'a \nb \n').components.trailingWhitespace).toBe(0.2); // 2 of 2, capped
  });

  it('better than the original: only lines the PR added count; base slop in untouched lines scores 0', () => {
    const text = 'Intro  \nmore\n\n\n\n\n```sh\nprintf a\\nb\\nc\\n\n```\n';
    const om = omegaOf({ path: 'docs/x.txt', text, baseText: text, isAdded: (l) => l === 2 });
    expect(om.omega).toBe(0);
  });

  it('better than the original: \\n inside quoted strings, Markdown hard breaks and an empty __init__.py are not slop', () => {
    expect(fresh('README.md', '```bash\nprintf "a\\nb\\nc\\n"\n```\n').omega).toBe(0);
    expect(fresh('README.md', 'first line  \nsecond line\n').omega).toBe(0);
    expect(fresh('pkg/__init__.py', '').omega).toBe(0);
  });

  it('Ω is clamped to 1 and Ψ can go negative', () => {
    const lines = Array.from({ length: 12 }, () => 'a\\nb\\nc\\nd\\ne\\nf').join('\n');
    const om = fresh('main.go', `\`\`\`go\n${lines}\n\`\`\`\n`);
    expect(om.omega).toBe(1);
    expect(psiOf(1, om.omega, { alpha: 1, lambda: 2 })).toBe(-1);
  });
});
