import { describe, expect, it } from 'vitest';
import { firstSyntaxError, grammarInput, languageOf, withTree, type LangId } from '../../src/repo/languages.js';

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
    const results = await Promise.all(
      Object.entries(samples).map(([lang, src]) => withTree(lang as LangId, src, (t) => firstSyntaxError(t))),
    );
    expect(results).toEqual(Object.keys(samples).map(() => null));
  });

  it('locates the first syntax error', async () => {
    const err = await withTree('python', 'def ok():\n    pass\n\ndef broken(\n    pass\n', (t) => firstSyntaxError(t));
    expect(err).not.toBeNull();
    expect(err!.line).toBeGreaterThanOrEqual(4);
  });

  it('rewrites what the grammars misread without moving any position', async () => {
    const rust = '#!/usr/bin/env cargo\n---cargo\n[dependencies]\n---\nfn t() { let s = str!["a"]; let n = "x\u0000"; }\n';
    const input = grammarInput('rust', rust);
    expect(input).toHaveLength(rust.length);
    expect(input.split('\n').map((l) => l.length)).toEqual(rust.split('\n').map((l) => l.length));
    expect(input).not.toContain('---');
    expect(input).not.toContain('str!');
    expect(input).not.toContain('\u0000');
    expect(input.startsWith('#!/usr/bin/env cargo\n')).toBe(true);
    // An unclosed fence is not a frontmatter: left for the parser to reject.
    expect(grammarInput('rust', '---\nfn main() {}\n')).toBe('---\nfn main() {}\n');
    // Only Rust gets the Rust rewrites.
    expect(grammarInput('python', 'x = "str![1]"\n')).toBe('x = "str![1]"\n');
    const error = await withTree('rust', rust, (t) => firstSyntaxError(t));
    expect(error).toBeNull();
  });
});
