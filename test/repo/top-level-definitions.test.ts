import { describe, expect, it } from 'vitest';
import { topLevelDefinitions } from '../../src/repo/top-level-definitions.js';

const names = async (lang: Parameters<typeof topLevelDefinitions>[0], text: string) => {
  const idx = await topLevelDefinitions(lang, text);
  return { defs: idx.definitions.map((d) => d.name), bound: [...idx.bound], hasError: idx.hasError };
};

describe('top-level definitions per language', () => {
  it('Python: module-level def/async def/class, decorated, inside top-level if/try; not methods; imports and assignments bind', async () => {
    const r = await names(
      'python',
      'from a import b as c, d\nimport os.path\n@fixture\ndef f():\n  pass\nasync def g(): pass\nclass C:\n  def m(self): pass\ntry:\n  def h(): pass\nexcept ImportError:\n  pass\nY = 1\n',
    );
    expect(r.defs).toEqual(['f', 'g', 'C', 'h']);
    expect(r.bound.sort()).toEqual(['Y', 'c', 'd', 'os']);
  });

  it('JS/TS: declarations, exported consts, const arrows, default exports, CommonJS exports; plain consts and imports bind', async () => {
    const r = await names(
      'typescript',
      "import x, { y as z } from 'm';\nexport const A = 1;\nconst arrow = () => 1;\nlet plain = 2;\nexport default function main() {}\nclass K {}\ninterface I {}\ntype T = 1;\nenum E { A }\nexports.q = 1;\nexport { r } from './r';\n",
    );
    expect(r.defs).toEqual(['A', 'arrow', 'main', 'K', 'I', 'T', 'E', 'q']);
    expect(r.bound.sort()).toEqual(['plain', 'r', 'x', 'z']);
  });

  it('Go: funcs, Receiver.Method (pointer and generic receivers), types; vars/consts bind', async () => {
    const r = await names('go', 'package p\nfunc F() {}\nfunc (s *Store[T]) Add() {}\ntype Store[T any] struct{}\nvar V = 1\n');
    expect(r.defs).toEqual(['F', 'Store.Add', 'Store']);
    expect(r.bound).toEqual(['V']);
  });

  it('Rust: items, trait fns, inherent impl fns as Type::fn, inline mods; trait impls left out; use binds', async () => {
    const r = await names(
      'rust',
      'use std::fmt::{self, Display as D};\nfn f() {}\nstruct S;\nimpl<T> S<T> { fn y() {} }\nimpl D for S { fn fmt() {} }\ntrait T { fn t(); }\nmod tests { fn case() {} }\nmod ext;\n',
    );
    expect(r.defs).toEqual(['f', 'S', 'S::y', 'T', 'T::t', 'tests', 'tests::case']);
    expect(r.bound).toContain('D');
  });

  it('Java: types (nested too) and their methods as Class.method', async () => {
    const r = await names(
      'java',
      'import a.B;\nclass A { void m() {} static class In { void n() {} } }\nenum E { X; void e() {} }\ninterface I { void q(); }\n',
    );
    expect(r.defs).toEqual(['A', 'A.m', 'A.In', 'A.In.n', 'E', 'E.e', 'I', 'I.q']);
    expect(r.bound).toEqual(['B']);
  });

  it('says when the parser had to recover from a syntax error', async () => {
    expect((await names('python', 'def f(:\n  pass\n')).hasError).toBe(true);
    expect((await names('python', 'def f():\n  pass\n')).hasError).toBe(false);
  });
});
