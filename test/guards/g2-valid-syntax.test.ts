import { describe, expect, it } from 'vitest';
import { checkCode } from '../../src/guards/g2-syntax/code-errors.js';
import { g2 } from '../../src/guards/g2-syntax/index.js';
import type { FileContent } from '../helpers/git-repo.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo } from '../helpers/git-repo.js';

/**
 * Valid code that older grammars rejected, each shape taken from a real repository (vue, vitest,
 * prometheus, cargo, tokio, pydantic, commons-lang). G2 must pass every one of them.
 */
async function g2Run(pr: Record<string, FileContent>, base: Record<string, FileContent> = { 'README.md': 'x\n' }) {
  const report = await gate(prRepo(base, pr), [g2]);
  return { report, findings: findingsOf(report, 'G2'), files: report.guards.find((g) => g.id === 'G2')!.files };
}

const VALID_TS: Record<string, string> = {
  'src/export-type-star.ts': "export type * as Types from './types';\nexport type * from './more';\n",
  'src/import-type-query.ts':
    "type Statement = import('@babel/types').Statement;\nexport let mod: typeof import('./m');\nexport type { Statement };\n",
  'src/regex-html-comment.ts':
    "const comment = /<!--[\\s\\S]*?-->/g;\nexport const strip = (s: string): string => s.replace(comment, '');\n",
  'src/accessor.ts':
    "export class Box {\n  accessor value = 1;\n  static accessor label: string = '';\n  @tracked accessor count!: number;\n}\n",
  'src/keyword-like-props.ts': 'export interface FilterAttrs {\n  in?: string;\n  in2?: number | string;\n}\n',
  'src/satisfies-using.ts':
    'const table = { a: 1 } satisfies Record<string, number>;\nexport function pick<const T extends readonly unknown[]>(xs: T): T {\n  using lock = acquire();\n  return xs;\n}\n',
  'web/Navbar.tsx': "export const About = () => <a href='#'>Runtime & Build Information</a>;\n",
  'lib/regex.js': "const comment = /<!--[\\s\\S]*?-->/g;\nexport const strip = (s) => s.replace(comment, '');\n",
};

const VALID_OTHERS: Record<string, string> = {
  // rust-lang/cargo tests: snapbox's str![] in expression position (`str` is also the primitive type).
  'tests/snap.rs':
    'fn t() {\n    let cases = &[("1.43.0", str!["1.43.0"])];\n    p.with_stderr_data(str![[r#"\n[UPDATING] index\n"#]]);\n}\n',
  'src/async_closure.rs':
    'async fn t(opt: Option<u8>) {\n    let f = async |x: u32| x + 1;\n    let g = async move || 1;\n    let Some(y) = opt else { return };\n}\n',
  // A cargo script: frontmatter between `---` fences, after a shebang.
  'scripts/tool.rs': '#!/usr/bin/env cargo\n---\n[dependencies]\nclap = "4"\n---\n\nfn main() {}\n',
  // pydantic's mypy output files: a comment at column 0 between a decorator and its def.
  'tests/mypy/frozen.py':
    'class Child(Parent):\n    a: int = 1\n\n    @property\n# MYPY: error: read-only property\n    def a(self) -> int:\n        return 1\n',
  'src/pep695.py':
    'type Pair[T] = tuple[T, T]\n\n\ndef first[T](p: Pair[T]) -> T:\n    return p[0]\n\n\nd = {\'k\': 1}\nprint(f"{d["k"]}")\n',
  'src/main/java/Shapes.java':
    'sealed interface Shape permits Circle {}\nrecord Circle(double r) implements Shape {}\nclass Area {\n    String of(Object o) {\n        return switch (o) {\n            case Circle c when c.r() > 1 -> "big";\n            default -> """\n                small\n                """;\n        };\n    }\n}\n',
  'pkg/sum.go': 'package pkg\n\nfunc Sum[T int | float64](xs ...T) (s T) {\n\tfor i := range 10 {\n\t\t_ = i\n\t}\n\treturn\n}\n',
};

describe('G2 accepts valid code that old grammars rejected', () => {
  it('passes current JavaScript, TypeScript and TSX (checked by the TypeScript compiler)', async () => {
    const { findings, files } = await g2Run(VALID_TS);
    expect(findings).toEqual([]);
    expect(files).toBe(Object.keys(VALID_TS).length);
  });

  it('passes Rust, Python, Java and Go shapes from real repositories', async () => {
    const { findings, files } = await g2Run(VALID_OTHERS);
    expect(findings).toEqual([]);
    expect(files).toBe(Object.keys(VALID_OTHERS).length);
  });
});

describe('G2 still fails real syntax errors, with line and column', () => {
  it('TypeScript: an unclosed call names the line of its opening parenthesis', async () => {
    const { findings } = await g2Run({ 'src/f.ts': 'export function f(x: number) {\n  if (x) {\n    g(1, 2;\n  }\n}\n' });
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: 'fail', line: 3 });
    expect(findings[0]!.message).toContain('TypeScript (line 3, column 11): missing `)` to close the `(` opened on line 3');
  });

  it('JavaScript: a type annotation in a .js file is TypeScript-only syntax', async () => {
    const { findings } = await g2Run({ 'lib/a.js': 'export const a = 1;\nexport function f(x: number) {\n  return x;\n}\n' });
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toContain(
      'JavaScript (line 2, column 22): Type annotations can only be used in TypeScript files (TS8010)',
    );
  });

  it('TSX: a JSX element that is never closed', async () => {
    const { findings } = await g2Run({ 'ui/A.tsx': 'export const A = () => (\n  <div>\n    <span>hi</span>\n);\n' });
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toMatch(/TypeScript \(TSX\) \(line \d+, column \d+\): .*div/);
  });

  it('Rust: a str![] macro left open is still an error', async () => {
    const { findings } = await g2Run({ 'tests/t.rs': 'fn t() {\n    let v = str!["x";\n}\n' });
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toMatch(/no longer parses as Rust \(line [23], column \d+\)/);
  });

  it('Python: a missing colon is found even when own-line comments are around it', async () => {
    const { findings } = await g2Run({ 'app/m.py': 'class A:\n    # helper\n    def f(self)\n        return 1\n' });
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toContain('Python (line 3, column 16): the `def` line does not end with `:`');
  });

  it('Java: NUL characters inside a string literal are valid, a missing semicolon after them is not', async () => {
    // The gate treats a file with NUL bytes as binary; the parser must still not stop at the NUL.
    expect(await checkCode('java', 'class A {\n    String s = "a\u0000\u0000b";\n}\n')).toBeNull();
    const problem = await checkCode('java', 'class A {\n    String s = "a\u0000b";\n    int x = 1\n}\n');
    expect(problem).toMatchObject({ line: 3, message: 'missing `;`' });
  });

  it('a TypeScript file already broken at base stays risk', async () => {
    const broken = 'export const a = (1;\n';
    const { findings, report } = await g2Run({ 'src/a.ts': `${broken}export const b = 2;\n` }, { 'src/a.ts': broken });
    expect(findings).toHaveLength(1);
    expect(findings[0]!.severity).toBe('risk');
    expect(findings[0]!.message).toContain('already failed to parse before this PR (base: line 1');
    expect(report.decision.blocking).toBe(0);
  });
});
