import type { Node } from 'web-tree-sitter';
import { withTree, type LangId } from '../../repo/languages.js';
import { field, named } from '../../repo/tree-nodes.js';

/** One test case of a file: a pytest/unittest function, a Go TestX, a Rust #[test] fn, a JS it/test block. */
export interface TestCase {
  name: string;
  /** 1-based lines of the whole test (decorators and attributes included). */
  line: number;
  endLine: number;
  /** The test's body, as written. */
  body: string;
  /** The body has no statement at all (Python `pass`, `...`, a docstring only; an empty block). */
  empty: boolean;
  /** Marked as expected to fail or skipped (`@pytest.mark.skip`, `#[ignore]`, `#[should_panic]`, `it.skip`). */
  exempt: boolean;
  /** Go: the name of the `*testing.T` parameter. */
  tParam?: string;
  /**
   * Try statements of the body that catch every exception and only print, log or pass: what they
   * wrap (`inside`), the rest of the body (`outside`), and the handler's first line (`handler`).
   */
  swallowed?: { inside: string; outside: string; handler: string };
}

/** Calls that only report: print, logging, console, traceback. */
const PY_REPORT =
  /^(?:print|logging\.\w+|(?:self\.)?_?(?:logger|log|LOG|LOGGER)\.\w+|traceback\.print_exc|traceback\.print_exception|sys\.std(?:err|out)\.write|warnings\.warn|click\.echo|rich\.print|console\.print)\s*\(/;
const JS_REPORT = /^(?:console\.\w+|(?:this\.)?_?(?:logger|log)\.\w+|process\.std(?:err|out)\.write)\s*\(/;
/** `except:`, `except Exception:`, `except (ValueError, Exception) as e:`, `except BaseException:`. */
const PY_CATCH_ALL = /^except\s*(?::|\*?\s*\(?[^:]*\b(?:Exception|BaseException)\b[^:]*:)/;

function onlyReports(block: Node | null | undefined, report: RegExp): boolean {
  if (!block) return true;
  return named(block)
    .filter((st) => st.type !== 'comment')
    .every((st) => {
      if (st.type === 'pass_statement' || st.type === 'continue_statement' || st.type === 'empty_statement') return true;
      if (st.type !== 'expression_statement') return false;
      const text = st.text.trim().replace(/;$/, '');
      return text === '...' || report.test(text.replace(/^await\s+/, ''));
    });
}

/** The try statements (top level of a test body) that swallow every failure, and what they wrap. */
function swallowedOf(body: Node, lang: 'python' | 'js'): TestCase['swallowed'] {
  const tries: { node: Node; inner: Node; handler: string }[] = [];
  for (const st of named(body)) {
    if (st.type !== 'try_statement') continue;
    const inner = field(st, 'body');
    if (!inner) continue;
    if (lang === 'python') {
      const clauses = named(st).filter((c) => c.type === 'except_clause' || c.type === 'except_group_clause');
      const catchAll = clauses.find((c) => PY_CATCH_ALL.test(c.text));
      if (
        !catchAll ||
        !clauses.every((c) =>
          onlyReports(
            named(c)
              .filter((n) => n.type === 'block')
              .at(-1),
            PY_REPORT,
          ),
        )
      )
        continue;
      tries.push({ node: st, inner, handler: catchAll.text.split('\n')[0]!.trim() });
    } else {
      const handler = field(st, 'handler');
      if (!handler || !onlyReports(field(handler, 'body'), JS_REPORT)) continue;
      tries.push({ node: st, inner, handler: handler.text.split('\n')[0]!.trim() });
    }
  }
  if (tries.length === 0) return undefined;
  let outside = body.text;
  // Cut from the end so earlier offsets stay valid.
  for (const t of [...tries].reverse()) {
    const from = t.inner.startIndex - body.startIndex;
    const to = t.inner.endIndex - body.startIndex;
    outside = outside.slice(0, from) + outside.slice(to);
  }
  return { inside: tries.map((t) => t.inner.text).join('\n'), outside, handler: tries[0]!.handler };
}

const PY_EXEMPT = /@(?:pytest\.mark\.(?:skip|skipif|xfail)|unittest\.(?:skip|expectedFailure)|skip)\b/;

function swallowedField(body: Node, lang: 'python' | 'js'): Pick<TestCase, 'swallowed'> {
  const swallowed = swallowedOf(body, lang);
  return swallowed ? { swallowed } : {};
}

function pythonTests(root: Node, out: TestCase[]): void {
  const visit = (container: Node, inClass: boolean) => {
    for (const child of named(container)) {
      const def = child.type === 'decorated_definition' ? field(child, 'definition') : child;
      if (!def) continue;
      if (def.type === 'class_definition' && !inClass) {
        const body = field(def, 'body');
        if (body) visit(body, true);
        continue;
      }
      if (def.type !== 'function_definition') continue;
      const name = field(def, 'name')?.text ?? '';
      if (!name.startsWith('test')) continue;
      const body = field(def, 'body');
      if (!body) continue;
      const statements = named(body).filter((s) => s.type !== 'comment');
      const trivial = statements.every(
        (s) =>
          s.type === 'pass_statement' ||
          (s.type === 'expression_statement' && /^(?:\.\.\.|(?:[rbuf]*)("""|'''|"|')[\s\S]*\1)$/.test(s.text.trim())),
      );
      const decorators =
        child.type === 'decorated_definition'
          ? named(child)
              .filter((c) => c.type === 'decorator')
              .map((c) => c.text)
              .join('\n')
          : '';
      out.push({
        name: inClass && container.parent ? `${field(container.parent, 'name')?.text ?? ''}.${name}` : name,
        line: child.startPosition.row + 1,
        endLine: child.endPosition.row + 1,
        body: body.text,
        empty: trivial,
        exempt: PY_EXEMPT.test(decorators),
        ...swallowedField(body, 'python'),
      });
    }
  };
  visit(root, false);
}

function goTests(root: Node, out: TestCase[]): void {
  for (const fn of named(root)) {
    if (fn.type !== 'function_declaration') continue;
    const name = field(fn, 'name')?.text ?? '';
    if (!/^Test(?:$|[^a-z])/.test(name)) continue;
    const params = field(fn, 'parameters');
    const tDecl = params && named(params).find((p) => /\*\s*testing\.T\b/.test(field(p, 'type')?.text ?? ''));
    if (!tDecl) continue;
    const tName = field(tDecl, 'name');
    const body = field(fn, 'body');
    if (!body) continue;
    out.push({
      name,
      line: fn.startPosition.row + 1,
      endLine: fn.endPosition.row + 1,
      body: body.text,
      empty: named(body).filter((s) => s.type !== 'comment').length === 0,
      exempt: /\.\s*Skip(?:f|Now)?\s*\(/.test(body.text),
      ...(tName ? { tParam: tName.text } : {}),
    });
  }
}

function rustTests(container: Node, out: TestCase[]): void {
  for (const item of named(container)) {
    if (item.type === 'mod_item') {
      const body = field(item, 'body');
      if (body) rustTests(body, out);
      continue;
    }
    if (item.type !== 'function_item') continue;
    const attrs: string[] = [];
    let first = item;
    for (let p = item.previousNamedSibling; p && (p.type === 'attribute_item' || p.type === 'line_comment'); p = p.previousNamedSibling) {
      if (p.type === 'attribute_item') attrs.push(p.text);
      first = p;
    }
    const attrText = attrs.join('\n');
    if (!/#\[\s*(?:[\w:]+::)?(?:test|rstest|test_case)\b/.test(attrText)) continue;
    const body = field(item, 'body');
    if (!body) continue;
    const returnsResult = /->\s*(?:[\w:]+::)?Result\b/.test(item.text.slice(0, body.startIndex - item.startIndex));
    out.push({
      name: field(item, 'name')?.text ?? '',
      line: first.startPosition.row + 1,
      endLine: item.endPosition.row + 1,
      body: returnsResult ? `${body.text} ?` : body.text,
      empty: named(body).filter((s) => s.type !== 'line_comment' && s.type !== 'block_comment').length === 0,
      exempt: /#\[\s*(?:ignore|should_panic)\b/.test(attrText),
    });
  }
}

const JS_TEST_CALLEE = /^(?:it|test)(?:\.(?:only|concurrent|each\s*\([\s\S]*\)|serial))?$/;
const JS_FUNCTIONS = new Set(['arrow_function', 'function_expression', 'function']);

function stringText(node: Node | undefined): string | null {
  if (!node) return null;
  if (node.type === 'string') return node.text.slice(1, -1);
  if (node.type === 'template_string') return node.text.slice(1, -1);
  return null;
}

function jsTests(root: Node, out: TestCase[]): void {
  const walk = (node: Node) => {
    if (node.type === 'call_expression') {
      const callee = field(node, 'function');
      const args = field(node, 'arguments');
      const list = args ? named(args) : [];
      const fn = list.find((a) => JS_FUNCTIONS.has(a.type));
      const name = stringText(list[0]);
      if (callee && JS_TEST_CALLEE.test(callee.text.replace(/\s+/g, '')) && fn && name !== null) {
        const body = field(fn, 'body');
        if (body) {
          const statements = body.type === 'statement_block' ? named(body).filter((s) => s.type !== 'comment') : [body];
          out.push({
            name,
            line: node.startPosition.row + 1,
            endLine: node.endPosition.row + 1,
            body: body.text,
            empty: statements.length === 0,
            exempt: false,
            ...(body.type === 'statement_block' ? swallowedField(body, 'js') : {}),
          });
        }
        return; // nested calls belong to this test
      }
    }
    for (const c of named(node)) walk(c);
  };
  walk(root);
}

/** The test cases of a source text (empty for languages without a test convention here). */
export async function testCases(lang: LangId, text: string): Promise<TestCase[]> {
  const out: TestCase[] = [];
  if (lang === 'java') return out;
  await withTree(lang, text, (tree) => {
    const root = tree.rootNode;
    if (lang === 'python') pythonTests(root, out);
    else if (lang === 'go') goTests(root, out);
    else if (lang === 'rust') rustTests(root, out);
    else jsTests(root, out);
  });
  return out;
}

const FUNCTION_NODES: Record<string, Set<string>> = {
  python: new Set(['function_definition']),
  js: new Set(['function_declaration', 'generator_function_declaration', 'method_definition', 'variable_declarator']),
  go: new Set(['function_declaration', 'method_declaration']),
  rust: new Set(['function_item']),
};

/** Every named function of a source text (any depth) with its body, for finding assert helpers. */
export async function namedFunctions(lang: LangId, text: string): Promise<Map<string, string>> {
  const family = lang === 'javascript' || lang === 'typescript' || lang === 'tsx' ? 'js' : lang;
  const kinds = FUNCTION_NODES[family];
  const out = new Map<string, string>();
  if (!kinds) return out;
  await withTree(lang, text, (tree) => {
    const walk = (node: Node) => {
      if (kinds.has(node.type)) {
        let body = field(node, 'body');
        if (node.type === 'variable_declarator') {
          const value = field(node, 'value');
          body = value && JS_FUNCTIONS.has(value.type) ? field(value, 'body') : null;
        }
        const name = field(node, 'name')?.text;
        if (name && body) out.set(name, (out.get(name) ?? '') + body.text);
      }
      for (const c of named(node)) walk(c);
    };
    walk(tree.rootNode);
  });
  return out;
}
