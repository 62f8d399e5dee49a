import type { Node } from 'web-tree-sitter';
import { withTree, type LangId } from '../../repo/languages.js';
import { field, named } from '../../repo/tree-nodes.js';

/**
 * The tests and test groups of one source text, with what disables them and what they assert, for
 * comparing an existing test file at base and head (`test-weakening.ts`). One tree-sitter walk per
 * language: pytest/unittest functions and classes, Go `TestX` functions and Ginkgo specs, Rust
 * `#[test]` functions, JUnit methods and classes, JS/TS `describe`/`it`/`test` blocks.
 */

/** Something written on a test that keeps it from running (or from failing). */
export interface SkipMarker {
  /** What kind of skip, independent of its condition or reason (`pytest.mark.skipif`, `t.Skip`, `XIt`). */
  kind: string;
  /** Its first line as written, shortened. */
  text: string;
  /** 1-based line. */
  line: number;
  /** Only on some platforms, versions or modes (`sys.platform`, `runtime.GOOS`, `@EnabledOnOs`, `cfg_attr`). */
  conditional: boolean;
}

/** One assertion of a test body: its normalised text and 1-based line. */
export interface AssertionLine {
  text: string;
  line: number;
}

export interface TestUnit {
  /** Identity across base and head: the groups' names and the test's, with skip prefixes and suffixes removed. */
  key: string;
  /** `test` (a leaf that runs) or `group` (a class, a describe block: its skip disables every test in it). */
  kind: 'test' | 'group';
  /** 1-based lines of the whole unit (decorators and attributes included). */
  line: number;
  endLine: number;
  /** Keys of the groups around it, outermost first. */
  parents: string[];
  /** Skip markers written on this unit itself (not inherited from its groups). */
  markers: SkipMarker[];
  /** Assertions in its own body (tests only). */
  asserts: AssertionLine[];
}

const PLATFORM =
  /\bsys\.platform\b|\bsys\.version_info\b|\bplatform\.\w+\s*\(|\bos\.name\b|\bsys\.implementation\b|\bIS_(?:WINDOWS|MAC|LINUX|PYPY)\b|\bruntime\.(?:GOOS|GOARCH|Version)\b|\bprocess\.(?:platform|arch|version)\b|\bos\.platform\s*\(|\btesting\.Short\s*\(|\bcfg\s*\(|\btarget_os\b/;

const COMMENT_LINE = /^\s*(?:#|\/\/|\/\*|\*)/;

/** Lines of `node` (1-based) with comment-only lines left out. */
function linesOf(node: Node): { text: string; line: number }[] {
  return node.text
    .split('\n')
    .map((text, i) => ({ text, line: node.startPosition.row + 1 + i }))
    .filter((l) => !COMMENT_LINE.test(l.text));
}

const short = (s: string) => {
  const first = s.trim().split('\n')[0]!.trim();
  return first.length > 120 ? `${first.slice(0, 117)}…` : first;
};
const norm = (s: string) => s.trim().replace(/\s+/g, ' ');

/** Every match of `re` (global) on each line of `node`: assertions or skip calls in a body. */
function scan(node: Node, re: RegExp): { match: string; text: string; line: number; prev: string }[] {
  const out: { match: string; text: string; line: number; prev: string }[] = [];
  const lines = linesOf(node);
  lines.forEach((l, i) => {
    for (const m of l.text.matchAll(re)) out.push({ match: m[1] ?? m[0], text: l.text, line: l.line, prev: lines[i - 1]?.text ?? '' });
  });
  return out;
}

function assertions(body: Node, re: RegExp): AssertionLine[] {
  return scan(body, re).map((m) => ({ text: norm(m.text), line: m.line }));
}

/** A skip call in a body is conditional when its line or the line above names a platform, a version or a mode. */
function callMarkers(body: Node, re: RegExp, kindOf: (m: string) => string): SkipMarker[] {
  return scan(body, re).map((m) => ({
    kind: kindOf(m.match),
    text: short(m.text),
    line: m.line,
    conditional: PLATFORM.test(m.text) || PLATFORM.test(m.prev),
  }));
}

// --- Python -------------------------------------------------------------------------------------

const PY_ASSERT =
  /^\s*assert\b|\bself\.(?:assert\w*|fail\w*)\s*\(|\bpytest\.(?:raises|warns|fail)\s*\(|\.assert_\w+\s*\(|\braise\s+AssertionError\b|(?<![\w$.])_*(?:assert|check|verify|expect|ensure)\w*\s*\(/g;
const PY_SKIP_CALL = /\b(pytest\.skip|pytest\.xfail|self\.skipTest)\s*\(/g;
const PY_SKIP_DECORATOR = /^@\s*(?:pytest\.)?mark\.(skip|skipif|xfail)\b|^@\s*(?:unittest\.)?(skip|skipIf|skipUnless|expectedFailure)\b/;

function pyDecoratorMarkers(decorated: Node): SkipMarker[] {
  if (decorated.type !== 'decorated_definition') return [];
  const out: SkipMarker[] = [];
  for (const d of named(decorated).filter((c) => c.type === 'decorator')) {
    const m = PY_SKIP_DECORATOR.exec(d.text);
    if (!m) continue;
    const kind = m[1] ? `pytest.mark.${m[1]}` : `unittest.${m[2]!}`;
    const conditional = /skipif|skipIf|skipUnless/.test(kind) && PLATFORM.test(d.text);
    out.push({ kind, text: short(d.text), line: d.startPosition.row + 1, conditional });
  }
  return out;
}

/** `pytestmark = pytest.mark.skip(...)` (or a list of marks) at module level: every test of the file. */
function pyModuleMarkers(root: Node): SkipMarker[] {
  const out: SkipMarker[] = [];
  for (const st of named(root)) {
    const assign = st.type === 'expression_statement' ? named(st)[0] : null;
    if (assign?.type !== 'assignment' || field(assign, 'left')?.text !== 'pytestmark') continue;
    const value = field(assign, 'right')?.text ?? '';
    for (const m of value.matchAll(/\bmark\.(skip|skipif|xfail)\b/g))
      out.push({
        kind: `pytest.mark.${m[1]!}`,
        text: short(st.text),
        line: st.startPosition.row + 1,
        conditional: m[1] === 'skipif' && PLATFORM.test(value),
      });
  }
  return out;
}

/** The key of the module-level group (`pytestmark`). */
export const PY_MODULE = '<module>';

function pythonUnits(root: Node, out: TestUnit[]): void {
  out.push({
    key: PY_MODULE,
    kind: 'group',
    line: 1,
    endLine: root.endPosition.row + 1,
    parents: [],
    markers: pyModuleMarkers(root),
    asserts: [],
  });
  const visit = (container: Node, parents: string[]) => {
    for (const child of named(container)) {
      const def = child.type === 'decorated_definition' ? field(child, 'definition') : child;
      if (!def) continue;
      const name = field(def, 'name')?.text ?? '';
      const body = field(def, 'body');
      if (!body) continue;
      const unit = { line: child.startPosition.row + 1, endLine: child.endPosition.row + 1, parents };
      if (def.type === 'class_definition' && parents.length === 1) {
        const key = name;
        out.push({ ...unit, key, kind: 'group', markers: pyDecoratorMarkers(child), asserts: [] });
        visit(body, [...parents, key]);
      } else if (def.type === 'function_definition' && name.startsWith('test')) {
        out.push({
          ...unit,
          key: [...parents.slice(1), name].join('.'),
          kind: 'test',
          markers: [...pyDecoratorMarkers(child), ...callMarkers(body, PY_SKIP_CALL, (m) => m)],
          asserts: assertions(body, PY_ASSERT),
        });
      }
    }
  };
  visit(root, [PY_MODULE]);
}

// --- Go -----------------------------------------------------------------------------------------

const GO_ASSERT =
  /\.(?:Errorf?|Fatalf?)\s*\(\s*[^)\s]|\.(?:Fail|FailNow)\s*\(\s*\)|\b(?:assert|require)\.\w+\s*\(|(?<![\w.])(?:Expect|Ω|Eventually|Consistently|Fail)\s*\(|(?<![\w$.])_*(?:assert|check|verify|expect|ensure)\w*\s*\(/gi;
const GINKGO = /^([XPF]?)(It|Specify|Describe|Context|When|DescribeTable|Entry|DescribeTableSubtree)$/;
const GINKGO_GROUPS = new Set(['Describe', 'Context', 'When', 'DescribeTable', 'DescribeTableSubtree']);
const GINKGO_SKIP = /(?<![\w.])(Skip)\s*\(/g;

function goUnits(root: Node, out: TestUnit[]): void {
  for (const fn of named(root)) {
    if (fn.type !== 'function_declaration') continue;
    const name = field(fn, 'name')?.text ?? '';
    const body = field(fn, 'body');
    if (!body || !/^Test(?:$|[^a-z])/.test(name)) continue;
    const params = field(fn, 'parameters');
    const t = params && named(params).find((p) => /\*\s*testing\.T\b/.test(field(p, 'type')?.text ?? ''));
    const tName = t && field(t, 'name')?.text;
    if (!tName) continue;
    const skip = new RegExp(`\\b(${tName}\\.Skip(?:f|Now)?)\\s*\\(`, 'g');
    out.push({
      key: name,
      kind: 'test',
      line: fn.startPosition.row + 1,
      endLine: fn.endPosition.row + 1,
      parents: [],
      markers: callMarkers(body, skip, (m) => m.replace(/^\w+\./, 't.')),
      asserts: assertions(body, GO_ASSERT),
    });
  }
  ginkgoUnits(root, [], out);
}

const GINKGO_SETUP = /^(?:BeforeEach|JustBeforeEach|BeforeAll)$/;

/** Bodies of the setup nodes written directly in a Ginkgo container's body. */
function ginkgoSetups(body: Node): Node[] {
  const out: Node[] = [];
  const statements = named(body).flatMap((n) => (n.type === 'statement_list' ? named(n) : [n]));
  for (const st of statements) {
    const call = st.type === 'expression_statement' ? named(st)[0] : st;
    if (call?.type !== 'call_expression' || !GINKGO_SETUP.test(field(call, 'function')?.text ?? '')) continue;
    const args = field(call, 'arguments');
    const fn = args && named(args).find((a) => a.type === 'func_literal');
    const fnBody = fn && field(fn, 'body');
    if (fnBody) out.push(fnBody);
  }
  return out;
}

/** Ginkgo specs anywhere in the file (inside `var _ = Describe(...)` and the like). */
function ginkgoUnits(node: Node, parents: string[], out: TestUnit[]): void {
  if (node.type === 'call_expression') {
    const callee = field(node, 'function');
    const m = callee?.type === 'identifier' ? GINKGO.exec(callee.text) : null;
    const args = field(node, 'arguments');
    const first = args ? named(args)[0] : undefined;
    if (m && args && first && (first.type === 'interpreted_string_literal' || first.type === 'raw_string_literal')) {
      const kindName = m[2]!;
      const key = [...parents, `${kindName} ${first.text.slice(1, -1)}`].join(' > ');
      const group = GINKGO_GROUPS.has(kindName);
      const fn = named(args).find((a) => a.type === 'func_literal');
      const body = fn ? field(fn, 'body') : null;
      const markers: SkipMarker[] = [];
      if (m[1] === 'X' || m[1] === 'P')
        markers.push({ kind: `${m[1]}${kindName}`, text: short(node.text), line: node.startPosition.row + 1, conditional: false });
      if (named(args).some((a) => a.type === 'identifier' && a.text === 'Pending'))
        markers.push({ kind: 'Pending', text: short(node.text), line: node.startPosition.row + 1, conditional: false });
      if (body && !group) markers.push(...callMarkers(body, GINKGO_SKIP, () => 'Skip'));
      // A Skip(...) in the container's BeforeEach/JustBeforeEach/BeforeAll skips every spec in it.
      if (body && group) for (const setup of ginkgoSetups(body)) markers.push(...callMarkers(setup, GINKGO_SKIP, () => 'Skip'));
      out.push({
        key,
        kind: group ? 'group' : 'test',
        line: node.startPosition.row + 1,
        endLine: node.endPosition.row + 1,
        parents,
        markers,
        asserts: body && !group ? assertions(body, GO_ASSERT) : [],
      });
      if (group && body) for (const c of named(body)) ginkgoUnits(c, [...parents, key], out);
      return;
    }
  }
  for (const c of named(node)) ginkgoUnits(c, parents, out);
}

// --- Rust ---------------------------------------------------------------------------------------

const RUST_ASSERT = /\b\w*assert\w*!\s*[([{]|\bpanic!\s*[([{]/g;

function rustUnits(container: Node, parents: string[], out: TestUnit[]): void {
  for (const item of named(container)) {
    if (item.type === 'mod_item') {
      const body = field(item, 'body');
      if (body) rustUnits(body, [...parents, field(item, 'name')?.text ?? ''], out);
      continue;
    }
    if (item.type !== 'function_item') continue;
    const attrs: Node[] = [];
    let first = item;
    for (let p = item.previousNamedSibling; p && (p.type === 'attribute_item' || p.type === 'line_comment'); p = p.previousNamedSibling) {
      if (p.type === 'attribute_item') attrs.push(p);
      first = p;
    }
    if (!attrs.some((a) => /^#\[\s*(?:[\w:]+::)?(?:test|rstest|test_case)\b/.test(a.text))) continue;
    const body = field(item, 'body');
    if (!body) continue;
    const markers: SkipMarker[] = attrs
      .filter((a) => /^#\[\s*ignore\b|^#\[\s*cfg_attr\s*\([\s\S]*\bignore\b/.test(a.text))
      .map((a) => ({
        kind: 'ignore',
        text: short(a.text),
        line: a.startPosition.row + 1,
        conditional: a.text.includes('cfg_attr'),
      }));
    out.push({
      key: [...parents, field(item, 'name')?.text ?? ''].join('::'),
      kind: 'test',
      line: first.startPosition.row + 1,
      endLine: item.endPosition.row + 1,
      parents: [],
      markers,
      asserts: assertions(body, RUST_ASSERT),
    });
  }
}

// --- Java (JUnit) -------------------------------------------------------------------------------

const JAVA_ASSERT = /\bassert\w*\s*\(|\bverify\s*\(|(?<![\w.])fail\s*\(|(?<![\w$.])_*(?:check|expect|ensure)\w*\s*\(/g;
const JAVA_TEST = /@(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\b/;
const JAVA_SKIP = /@(Disabled|Ignore)(?![\w.])|@((?:Disabled|Enabled)(?:On|If|For|In)\w*)/g;

function javaMarkers(modifiers: Node | undefined): SkipMarker[] {
  if (!modifiers) return [];
  const out: SkipMarker[] = [];
  for (const a of named(modifiers)) {
    if (a.type !== 'marker_annotation' && a.type !== 'annotation') continue;
    for (const m of a.text.matchAll(JAVA_SKIP))
      out.push({ kind: `@${m[1] ?? m[2]!}`, text: short(a.text), line: a.startPosition.row + 1, conditional: !m[1] });
  }
  return out;
}

function javaUnits(node: Node, parents: string[], out: TestUnit[]): void {
  for (const child of named(node)) {
    if (child.type === 'class_declaration') {
      const key = [...parents, field(child, 'name')?.text ?? ''].join('.');
      const modifiers = named(child).find((c) => c.type === 'modifiers');
      out.push({
        key,
        kind: 'group',
        line: child.startPosition.row + 1,
        endLine: child.endPosition.row + 1,
        parents,
        markers: javaMarkers(modifiers),
        asserts: [],
      });
      const body = field(child, 'body');
      if (body) javaUnits(body, [...parents, key], out);
    } else if (child.type === 'method_declaration') {
      const modifiers = named(child).find((c) => c.type === 'modifiers');
      const body = field(child, 'body');
      if (!modifiers || !body || !JAVA_TEST.test(modifiers.text)) continue;
      out.push({
        key: `${parents.at(-1) ?? ''}#${field(child, 'name')?.text ?? ''}`,
        kind: 'test',
        line: child.startPosition.row + 1,
        endLine: child.endPosition.row + 1,
        parents,
        markers: javaMarkers(modifiers),
        asserts: assertions(body, JAVA_ASSERT),
      });
    }
  }
}

// --- JavaScript / TypeScript --------------------------------------------------------------------

const JS_ASSERT =
  /\bexpect\w*\s*[(.<]|\bassert(?:\.\w+)*\s*\(|\.should\b|\bt\.(?:is|not|true|false|truthy|falsy|deepEqual|notDeepEqual|like|throws\w*|notThrows\w*|regex|snapshot|pass|fail|assert)\s*\(|\bsinon\.assert\b|(?<![\w$.])_*(?:check|verify|ensure)\w*\s*\(/g;
const JS_BASES = /^([xf]?)(it|test|describe|context|suite|specify)$/;
const JS_GROUPS = new Set(['describe', 'context', 'suite']);
const JS_SKIP_CALL = /\b((?:this|ctx|context)\.skip)\s*\(/g;

interface JsCallee {
  base: string;
  prefix: string;
  mods: { name: string; args: string }[];
}

/** `it`, `it.skip`, `xit`, `describe.each(table)`, `test.skipIf(cond)` → the base name, its x/f prefix and modifiers. */
function jsCallee(node: Node): JsCallee | null {
  const mods: { name: string; args: string }[] = [];
  let n: Node | null = node;
  let pendingArgs = '';
  while (n) {
    if (n.type === 'identifier') {
      const m = JS_BASES.exec(n.text);
      return m ? { base: m[2]!, prefix: m[1]!, mods: mods.reverse() } : null;
    }
    if (n.type === 'member_expression') {
      mods.push({ name: field(n, 'property')?.text ?? '', args: pendingArgs });
      pendingArgs = '';
      n = field(n, 'object');
    } else if (n.type === 'call_expression') {
      pendingArgs = field(n, 'arguments')?.text ?? '';
      n = field(n, 'function');
    } else return null;
  }
  return null;
}

function jsStringArg(node: Node | undefined): string | null {
  if (!node || (node.type !== 'string' && node.type !== 'template_string')) return null;
  return node.text.slice(1, -1);
}

function jsUnits(node: Node, parents: string[], out: TestUnit[]): void {
  if (node.type === 'call_expression') {
    const callee = field(node, 'function');
    const c = callee ? jsCallee(callee) : null;
    const args = field(node, 'arguments');
    const list = args ? named(args) : [];
    const name = jsStringArg(list[0]);
    if (c && name !== null) {
      const key = [...parents, name].join(' > ');
      // Playwright's `test.describe(...)` is a group too.
      const group = JS_GROUPS.has(c.base) || c.mods.some((m) => m.name === 'describe');
      const fn = list.find((a) => a.type === 'arrow_function' || a.type === 'function_expression' || a.type === 'function');
      const body = fn ? field(fn, 'body') : null;
      const line = node.startPosition.row + 1;
      const markers: SkipMarker[] = [];
      if (c.prefix === 'x') markers.push({ kind: `x${c.base}`, text: short(node.text), line, conditional: false });
      for (const m of c.mods) {
        if (m.name === 'skip' || m.name === 'todo' || m.name === 'fails')
          markers.push({ kind: `.${m.name}`, text: short(node.text), line, conditional: false });
        if (m.name === 'skipIf' || m.name === 'runIf')
          markers.push({ kind: `.${m.name}`, text: short(node.text), line, conditional: PLATFORM.test(m.args) });
      }
      if (body && !group) markers.push(...callMarkers(body, JS_SKIP_CALL, (m) => m.replace(/^\w+/, 'this')));
      out.push({
        key,
        kind: group ? 'group' : 'test',
        line,
        endLine: node.endPosition.row + 1,
        parents,
        markers,
        asserts: body && !group ? assertions(body, JS_ASSERT) : [],
      });
      if (group && body) for (const ch of named(body)) jsUnits(ch, [...parents, key], out);
      return;
    }
  }
  for (const ch of named(node)) jsUnits(ch, parents, out);
}

/** The tests and test groups of `text` (empty when the language has none here or the text does not parse). */
export async function testUnits(lang: LangId, text: string): Promise<TestUnit[]> {
  const out: TestUnit[] = [];
  await withTree(lang, text, (tree) => {
    const root = tree.rootNode;
    if (lang === 'python') pythonUnits(root, out);
    else if (lang === 'go') goUnits(root, out);
    else if (lang === 'rust') rustUnits(root, [], out);
    else if (lang === 'java') javaUnits(root, [], out);
    else jsUnits(root, [], out);
  });
  return out;
}
