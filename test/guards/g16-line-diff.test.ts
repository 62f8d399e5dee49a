import { describe, expect, it } from 'vitest';
import { lineSuggestion } from '../../src/core/line-suggestion.js';
import { changedLines } from '../../src/guards/g16-project-checks/line-diff.js';

describe('G16 line diff: which head lines a formatter changes', () => {
  it('rewritten lines are charged to themselves, inserted lines to the line before, deleted lines to themselves', () => {
    expect(changedLines('a\nb\nc\n', 'a\nb\nc\n')).toEqual([]);
    expect(changedLines('a\n  b\nc\n', 'a\n\tb\nc\n')).toEqual([2]);
    expect(changedLines('a\nb\nc\n', 'a\nb\n\nc\n')).toEqual([2]);
    expect(changedLines('a\n\n\nb\n', 'a\n\nb\n')).toEqual([3]);
    expect(changedLines('f(){ x }\n', 'f() {\n    x\n}\n')).toEqual([1]);
    expect(changedLines('x\na\ny\nb\nz\n', 'x\nA\ny\nB\nz\n')).toEqual([2, 4]);
  });

  it('the whole fix as one suggestion, anchored on a neighbouring line for a pure insertion; none past 40 lines', () => {
    expect(lineSuggestion('f', 'a\n  b\nc\n', 'a\n\tb\nc\n')).toEqual({ path: 'f', startLine: 2, endLine: 2, replacement: '\tb' });
    expect(lineSuggestion('f', 'a\nb\nc\n', 'a\nb\n\nc\n')).toEqual({ path: 'f', startLine: 2, endLine: 2, replacement: 'b\n' });
    const many = Array.from({ length: 50 }, (_, i) => `  l${i}`).join('\n');
    expect(lineSuggestion('f', `a\n${many}\nz\n`, `a\n${many.replace(/ {2}/g, '\t')}\nz\n`)).toBeNull();
    // a change of the final line break cannot be a suggestion
    expect(lineSuggestion('f', 'a\nb', 'a\nb\n')).toBeNull();
  });
});
