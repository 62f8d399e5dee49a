import { describe, expect, it } from 'vitest';
import { firstSyntaxError, languageOf, withTree, type LangId } from '../../src/repo/languages.js';

describe('tree-sitter languages', () => {
  it('maps file extensions to grammars', () => {
    expect(languageOf('src/a.py')).toBe('python');
    expect(languageOf('web/App.tsx')).toBe('tsx');
    expect(languageOf('types/index.d.ts')).toBe('typescript');
    expect(languageOf('lib/x.cjs')).toBe('javascript');
    expect(languageOf('README.md')).toBeNull();
    expect(languageOf('dir.py/file')).toBeNull();
  });

  it('loads every grammar concurrently without clashing', async () => {
    const samples: Record<LangId, string> = {
      python: 'def f():\n    return 1\n',
      javascript: 'export const x = () => <div/>;\n',
      typescript: 'export function f(a: number): number { return a; }\n',
      tsx: 'export const C = (p: { a: string }) => <b>{p.a}</b>;\n',
      go: 'package p\n\nfunc F() int { return 1 }\n',
      rust: 'pub fn f() -> i32 { 1 }\n',
      java: 'class A { int f() { return 1; } }\n',
    };
    const results = await Promise.all(Object.entries(samples).map(([lang, src]) => withTree(lang as LangId, src, (t) => firstSyntaxError(t))));
    expect(results).toEqual(Object.keys(samples).map(() => null));
  });

  it('locates the first syntax error', async () => {
    const err = await withTree('python', 'def ok():\n    pass\n\ndef broken(\n    pass\n', (t) => firstSyntaxError(t));
    expect(err).not.toBeNull();
    expect(err!.line).toBeGreaterThanOrEqual(4);
  });
});
