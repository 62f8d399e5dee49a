import type { Revision } from '../core/revision.js';
import type { TestOutcome } from '../core/suite-result.js';

export interface TestLocation {
  path: string;
  line?: number;
}

function lineOf(text: string, re: RegExp): number | undefined {
  const m = re.exec(text);
  if (!m) return undefined;
  return text.slice(0, m.index).split('\n').length + (m[0].startsWith('\n') ? 1 : 0);
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The test's name as it appears in source, and a pattern for its definition. */
function definitionPattern(t: TestOutcome): { name: string; re: RegExp } | null {
  if (t.id.startsWith('py:')) {
    const name = lastPart(t.id, '::').replace(/\[.*$/, '');
    return { name, re: new RegExp(`^[ \\t]*(?:async[ \\t]+)?def[ \\t]+${esc(name)}[ \\t]*\\(`, 'm') };
  }
  if (t.id.startsWith('go:')) {
    const name = t.id.slice(t.unit.length + 1).split('/')[0]!;
    return { name, re: new RegExp(`^func[ \\t]+${esc(name)}[ \\t]*\\(`, 'm') };
  }
  if (t.id.startsWith('rust:') && !t.id.startsWith('rust:doc:')) {
    const name = lastPart(t.id, '::');
    return { name, re: new RegExp(`\\bfn[ \\t]+${esc(name)}[ \\t]*(?:<[^>]*>)?\\(`) };
  }
  if (t.id.startsWith('java:')) {
    // `java:[module:]pkg.Class#method`, `#method(int)[1]` for a parameterised one.
    const name = /^[\p{L}_$][\p{L}\p{N}_$]*/u.exec(t.id.slice(t.id.indexOf('#') + 1))?.[0];
    if (!name) return null;
    return { name, re: new RegExp(`\\b(?:void|fun)[ \\t]+${esc(name)}[ \\t]*\\(|\\bdef[ \\t]+(?:void[ \\t]+)?${esc(name)}[ \\t]*\\(`) };
  }
  if (t.id.startsWith('js:')) {
    const name = lastPart(t.id, ' > ');
    return { name, re: new RegExp(`\\b(?:it|test|specify)(?:\\.\\w+)*[ \\t]*\\([ \\t]*(['"\`])${esc(name)}\\1`) };
  }
  return null;
}

/**
 * Where a test is defined in a tree: its file and the line of its definition (`def test_x`,
 * `func TestX`, `fn x`, `void x(`, `test('x'`), searched in the file the runner named (for Go: the package's
 * `_test.go` files; for Rust: the target file, then other `.rs` files beside it). Falls back to the
 * runner's line, or to the file alone.
 */
export async function locateTest(rev: Revision, outcome: TestOutcome): Promise<TestLocation | null> {
  const t = withoutPackage(outcome);
  const pattern = definitionPattern(t);
  const paths = await rev.paths();
  let candidates: string[] = [];
  if (t.id.startsWith('go:') && t.file) {
    const dir = t.file === '.' ? '' : `${t.file}/`;
    candidates = paths.filter((p) => p.startsWith(dir) && p.endsWith('_test.go') && !p.slice(dir.length).includes('/'));
  } else if (t.file && t.id.startsWith('rust:')) {
    const top = t.file.includes('/') ? t.file.slice(0, t.file.indexOf('/') + 1) : '';
    candidates = [t.file, ...paths.filter((p) => p !== t.file && p.endsWith('.rs') && p.startsWith(top))];
  } else if (t.file) candidates = [t.file];
  else if (t.id.startsWith('java:')) {
    // No file from the runner (a source dir other than src/test/<lang>): the outer class's file in the module.
    const cls = t.id.slice(0, t.id.indexOf('#')).split(/[:.]/).at(-1)?.split('$')[0];
    const dir = t.unit.startsWith('maven:') && t.unit !== 'maven:.' ? `${t.unit.slice('maven:'.length)}/` : '';
    if (cls) candidates = paths.filter((p) => p.startsWith(dir) && new RegExp(`(^|/)${esc(cls)}\\.(java|kt|groovy|scala)$`).test(p));
  }
  candidates = candidates.filter((p) => paths.includes(p));
  if (pattern) {
    for (const path of candidates.slice(0, 200)) {
      const text = await rev.readText(path);
      const line = text ? lineOf(text, pattern.re) : undefined;
      if (line) return { path, line };
    }
  }
  const first = candidates[0];
  if (!first) return null;
  return t.line && first === t.file ? { path: first, line: t.line } : { path: first };
}

/** The text after the last `sep` (all of `id` when there is none). */
function lastPart(id: string, sep: string): string {
  return id.split(sep).at(-1) ?? id;
}

/** A workspace package's folder in front of an id (`packages/b: js:…`, see workspaces/package-runner.ts). */
const PACKAGE_PREFIX = /^[^\s:]+: (?=[\w-]+:)/;

/** The outcome with its ids as the runner wrote them (its file stays repository-relative). */
function withoutPackage(t: TestOutcome): TestOutcome {
  const m = PACKAGE_PREFIX.exec(t.id);
  if (!m) return t;
  return { ...t, id: t.id.slice(m[0].length), unit: t.unit.startsWith(m[0]) ? t.unit.slice(m[0].length) : t.unit };
}
