import { describe, expect, it } from 'vitest';
import { readRefine, refineMarkdown, refineSection, refineTextLines } from '../../src/report/refine-section.js';

const attempt = (n: number, outcome: string, reason?: string) => ({
  n,
  source: 'model:m',
  outcome,
  paths: ['a.py'],
  ...(reason ? { reason } : {}),
  tokens: { prompt: 10, completion: 5 },
});

describe('the refine report section', () => {
  it('is absent without attempts and keeps at most the last 10 rows', () => {
    expect(refineSection([])).toBeUndefined();
    const s = refineSection(Array.from({ length: 14 }, (_, i) => attempt(i + 1, i === 13 ? 'kept' : 'reverted', 'G7 failed')))!;
    expect(s.attempts.map((a) => a.n)).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
    expect(s).toMatchObject({ kept: 1, reverted: 13, tokens: 210 });
  });

  it('renders hostile reasons inert: no terminal escapes, no table breaks or mentions in Markdown', () => {
    const s = refineSection([attempt(1, 'reverted', 'G2 failed: \u001b[31mred\u001b[0m | @admin <img src=x>\nsecond line')]);
    const text = refineTextLines(s).join('\n');
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('second line');
    const md = refineMarkdown(s);
    expect(md).toContain('\\| ');
    expect(md).not.toContain('@admin');
    expect(md).not.toMatch(/[^\\]<img/);
  });

  it('reads what it recognises and ignores junk', () => {
    expect(readRefine({ attempts: [{ nope: 1 }] })).toBeNull();
    expect(readRefine('x')).toBeNull();
    expect(readRefine({ attempts: [{ n: 1, source: 's', outcome: 'kept', paths: [3, 'b.py'] }] })?.attempts[0]?.paths).toEqual(['b.py']);
  });
});
