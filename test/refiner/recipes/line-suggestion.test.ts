import { describe, expect, it } from 'vitest';
import type { Category } from '../../../src/core/categories.js';
import { makeFinding } from '../../../src/core/finding.js';
import { RECIPES } from '../../../src/refiner/recipes/index.js';
import { applySuggestion, lineSuggestion } from '../../../src/refiner/recipes/line-suggestion.js';

const roundTrip = (before: string, after: string) => {
  const s = lineSuggestion('f.txt', before, after);
  expect(s).not.toBeNull();
  expect(applySuggestion(before, s!)).toBe(after);
  return s!;
};

describe('lineSuggestion: one exact replacement of head lines', () => {
  it('replaces the changed lines only', () => {
    expect(roundTrip('a\nb\nc\nd\n', 'a\nB\nC\nd\n')).toEqual({ path: 'f.txt', startLine: 2, endLine: 3, replacement: 'B\nC' });
  });

  it('anchors an insertion on the line above it (a suggestion replaces at least one line)', () => {
    expect(roundTrip('a\nd\n', 'a\nb\nc\nd\n')).toEqual({ path: 'f.txt', startLine: 1, endLine: 1, replacement: 'a\nb\nc' });
  });

  it('anchors a deletion at the top of the file on the line below it', () => {
    expect(roundTrip('x\ny\na\nb\n', 'a\nb\n')).toEqual({ path: 'f.txt', startLine: 1, endLine: 3, replacement: 'a' });
  });

  it('spans from the first to the last changed line when two places change', () => {
    const s = roundTrip('1\n2\n3\n4\n5\n', '1\ntwo\n3\nfour\n5\n');
    expect(s).toEqual({ path: 'f.txt', startLine: 2, endLine: 4, replacement: 'two\n3\nfour' });
  });

  it('keeps CRLF line ends inside the replacement', () => {
    roundTrip('a\r\nb\r\nc\r\n', 'a\r\nB\r\nc\r\n');
  });

  it('gives no suggestion for no change, a change of the final line break or a rewrite of too many lines', () => {
    expect(lineSuggestion('f', 'a\n', 'a\n')).toBeNull();
    expect(lineSuggestion('f', 'a\nb', 'a\nb\n')).toBeNull();
    const many = Array.from({ length: 60 }, (_, i) => `l${i}`).join('\n') + '\n';
    expect(lineSuggestion('f', many, many.replace('l0', 'L0').replace('l59', 'L59'))).toBeNull();
  });
});

describe('RECIPES', () => {
  it('lists each recipe once, in the order G7, G1, G13, G13, G2, G14, G4, G16', () => {
    expect(RECIPES.map((r) => r.id)).toEqual([
      'g7-restore-definitions',
      'g1-revert-manifest',
      'g13-restore-blocks',
      'g13-literal-newlines',
      'g2-config-syntax',
      'g14-relink',
      'g4-remove-import',
      'g16-reformat',
    ]);
  });

  it('handles nothing without the evidence its fix needs (and G2 only TOML and strict JSON)', () => {
    const shapes: [string, Category, string][] = [
      ['G7', 'toplevel-dropped', 'app/db.py'],
      ['G1', 'manifest-edit', 'package.json'],
      ['G13', 'doc-destroyed', 'README.md'],
      ['G2', 'syntax-invalid', 'app/db.py'],
      ['G2', 'syntax-invalid', 'tsconfig.json'],
      ['G14', 'dead-link', 'README.md'],
      ['G4', 'ungrounded-import', 'app/db.py'],
      ['G16', 'lint-violation', 'calc/calc.go'],
    ];
    for (const [guard, category, path] of shapes) {
      const f = makeFinding({ guard, category, severity: 'fail', path, message: 'm', remediation: 'r' });
      expect(RECIPES.filter((r) => r.handles(f)).map((r) => r.id)).toEqual([]);
    }
    const toml = makeFinding({ guard: 'G2', category: 'syntax-invalid', severity: 'fail', path: 'a.toml', message: 'm', remediation: 'r' });
    expect(RECIPES.filter((r) => r.handles(toml)).map((r) => r.id)).toEqual(['g2-config-syntax']);
  });
});
