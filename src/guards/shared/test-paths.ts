import { posix } from 'node:path';
import type { Definition } from '../../repo/top-level-definitions.js';

/**
 * Test code as G7 sees it. A removed or renamed test is G8's `tests-removed` (risk), not a broken
 * caller; definitions in test files are nobody's API.
 */

/** Paths of test files and test folders in the usual layouts of Python, JS/TS, Go, Rust and Java. */
export function isTestPath(path: string): boolean {
  const lower = path.toLowerCase();
  const base = posix.basename(lower);
  if (/(^|\/)(tests?|__tests__|spec|specs|testdata|e2e)\//.test(lower)) return true;
  if (/(^|\/)src\/test\//.test(lower)) return true;
  if (/(?:Test|Tests|IT)\.java$/.test(posix.basename(path))) return true;
  return /^test_.*\.py$|_test\.py$|^conftest\.py$|_test\.go$|\.(test|spec)\.[cm]?[jt]sx?$/.test(base);
}

/** Rust attributes that make a fn a test (`#[test]`, `#[tokio::test]`, `#[rstest]`, `#[test_case(..)]`). */
const RUST_TEST_ATTR = /#\[\s*(?:[\w:]+::)?(?:test|rstest|test_case|quickcheck|proptest)\b/;
const JAVA_TEST_ANNOTATION = /@(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate|Property)\b/;

/** The attribute lines written right above a definition (Rust keeps them outside the item's node). */
function attributesAbove(baseText: string, line: number): string {
  const lines = baseText.split('\n');
  const out: string[] = [];
  for (let i = line - 2; i >= 0; i--) {
    const t = lines[i]!.trim();
    if (t.startsWith('#[') || t.startsWith('///') || t.startsWith('//') || t.endsWith(')]') || t.endsWith(']')) out.push(t);
    else break;
  }
  return out.join('\n');
}

/** True when the definition is a test function, a test class or a test module. */
export function isTestDefinition(def: Definition, path: string, family: string, baseText: string): boolean {
  switch (family) {
    case 'python':
      return (def.kind === 'function' && def.simpleName.startsWith('test')) || (def.kind === 'class' && def.simpleName.startsWith('Test'));
    case 'go':
      return path.endsWith('_test.go') && /^(Test|Benchmark|Example|Fuzz)/.test(def.simpleName);
    case 'rust':
      if (def.kind === 'module' && /^tests?$/.test(def.simpleName)) return true;
      if (def.container && /(^|::)tests?(::|$)/.test(def.container)) return true;
      return def.kind === 'function' && RUST_TEST_ATTR.test(attributesAbove(baseText, def.line));
    case 'java':
      if (def.kind === 'method') return JAVA_TEST_ANNOTATION.test(def.shape);
      return isTestPath(path) && /(Test|Tests|IT)$/.test(def.simpleName);
    default:
      return false;
  }
}
