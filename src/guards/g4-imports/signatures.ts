import type { Node } from 'web-tree-sitter';
import { withTree, type LangId } from '../../repo/languages.js';

/** One parameter as written (whitespace collapsed) and whether callers may leave it out. */
export interface Param {
  text: string;
  optional: boolean;
}

/** The parameter list of one public function or method. */
export interface PublicSignature {
  /** `f`, `Class.method`, `Type::method` (Rust), `Recv.Method` (Go). */
  key: string;
  params: Param[];
  /** 1-based line of the declaration. */
  line: number;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').replace(/\(\s+/g, '(').replace(/\s+\)/g, ')').trim();

const OPTIONAL_TYPES: Partial<Record<LangId, Set<string>>> = {
  python: new Set([
    'default_parameter',
    'typed_default_parameter',
    'list_splat_pattern',
    'dictionary_splat_pattern',
    'keyword_separator',
    'positional_separator',
  ]),
  javascript: new Set(['assignment_pattern', 'rest_pattern', 'optional_parameter']),
  typescript: new Set(['optional_parameter']),
  tsx: new Set(['optional_parameter']),
};

function paramsOf(lang: LangId, list: Node | null): Param[] {
  if (!list) return [];
  const optionalTypes = OPTIONAL_TYPES[lang] ?? new Set<string>();
  return list.namedChildren
    .filter((c): c is Node => !!c && c.type !== 'comment')
    .map((c) => {
      const ts = lang === 'typescript' || lang === 'tsx' || lang === 'javascript';
      const hasDefault =
        ts &&
        c.type === 'required_parameter' &&
        (!!c.childForFieldName('value') || c.namedChildren.some((n) => n?.type === 'rest_pattern'));
      return { text: squash(c.text), optional: optionalTypes.has(c.type) || hasDefault };
    });
}

function add(into: Map<string, PublicSignature>, key: string, lang: LangId, node: Node): void {
  const sig = { key, params: paramsOf(lang, node.childForFieldName('parameters')), line: node.startPosition.row + 1 };
  const prev = into.get(key);
  // Overloads share a key: keep them as one combined list so any change shows.
  if (prev) prev.params = [...prev.params, { text: '|', optional: false }, ...sig.params];
  else into.set(key, sig);
}

// ---- Python ---------------------------------------------------------------------------------

const isPublicPy = (name: string) => !name.startsWith('_') || /^__\w+__$/.test(name);

function unwrapDecorated(n: Node): Node {
  return n.type === 'decorated_definition' ? (n.childForFieldName('definition') ?? n) : n;
}

/**
 * Decorators whose functions are not call signatures callers depend on: `@overload` stubs (the
 * implementation carries the contract) and property accessors (`@property`, `@x.setter`, …).
 */
const NOT_A_CALL_SIGNATURE =
  /^@\s*(?:(?:typing|typing_extensions|t)\.)?overload\b|^@\s*(?:\w+\.)*(?:cached_)?property\b|^@\s*[\w.]+\.(?:setter|getter|deleter)\b/;

function skipped(n: Node): boolean {
  if (n.type !== 'decorated_definition') return false;
  return n.namedChildren.some((c) => c?.type === 'decorator' && NOT_A_CALL_SIGNATURE.test(c.text));
}

/** pytest/unittest test functions and test classes: nobody calls them with arguments. */
const isTestName = (name: string) => name.startsWith('test') || name.startsWith('Test');

function pythonSignatures(root: Node, out: Map<string, PublicSignature>): void {
  for (const top of root.namedChildren) {
    const def = top && unwrapDecorated(top);
    if (!def || skipped(top)) continue;
    const name = def.childForFieldName('name')?.text ?? '';
    if (isTestName(name)) continue;
    if (def.type === 'function_definition' && !name.startsWith('_')) add(out, name, 'python', def);
    if (def.type === 'class_definition' && !name.startsWith('_')) {
      for (const member of def.childForFieldName('body')?.namedChildren ?? []) {
        const m = member && unwrapDecorated(member);
        if (!member || !m) continue;
        const mName = m.childForFieldName('name')?.text ?? '';
        if (m.type === 'function_definition' && isPublicPy(mName) && !skipped(member) && !isTestName(mName))
          add(out, `${name}.${mName}`, 'python', m);
      }
    }
  }
}

// ---- JavaScript / TypeScript ----------------------------------------------------------------

const JS_FUNCTIONS = new Set(['function_declaration', 'generator_function_declaration']);
const JS_CLASSES = new Set(['class_declaration', 'abstract_class_declaration', 'class']);

function jsDeclaration(lang: LangId, decl: Node, out: Map<string, PublicSignature>, exportedName?: string): void {
  const name = exportedName ?? decl.childForFieldName('name')?.text ?? 'default';
  if (JS_FUNCTIONS.has(decl.type)) add(out, name, lang, decl);
  else if (decl.type === 'lexical_declaration' || decl.type === 'variable_declaration') {
    for (const v of decl.namedChildren) {
      if (v?.type !== 'variable_declarator') continue;
      const value = v.childForFieldName('value');
      if (value && /^(arrow_function|function_expression|function|generator_function)$/.test(value.type)) {
        add(out, v.childForFieldName('name')?.text ?? name, lang, value);
      }
    }
  } else if (JS_CLASSES.has(decl.type)) {
    for (const member of decl.childForFieldName('body')?.namedChildren ?? []) {
      if (member?.type !== 'method_definition') continue;
      const mName = member.childForFieldName('name');
      const hidden = member.namedChildren.some((c) => c?.type === 'accessibility_modifier' && c.text !== 'public');
      // `get x()` / `set x(v)` are property accessors, not call signatures
      const accessor = member.children.some((c) => c?.type === 'get' || c?.type === 'set');
      if (!mName || hidden || accessor || mName.type === 'private_property_identifier') continue;
      add(out, `${name}.${mName.text}`, lang, member);
    }
  }
}

function jsSignatures(lang: LangId, root: Node, out: Map<string, PublicSignature>): void {
  const topByName = new Map<string, Node>();
  const exportedLater: [string, string][] = [];
  for (const top of root.namedChildren) {
    if (!top) continue;
    if (top.type === 'export_statement') {
      const decl = top.childForFieldName('declaration') ?? top.childForFieldName('value');
      if (decl) jsDeclaration(lang, decl, out);
      const clause = top.namedChildren.find((c) => c?.type === 'export_clause');
      if (clause && !top.childForFieldName('source')) {
        for (const spec of clause.namedChildren) {
          const local = spec?.childForFieldName('name')?.text;
          if (local) exportedLater.push([local, spec.childForFieldName('alias')?.text ?? local]);
        }
      }
    } else {
      const name = top.childForFieldName('name')?.text;
      if (name) topByName.set(name, top);
      if (top.type === 'lexical_declaration') {
        for (const v of top.namedChildren) {
          const vName = v?.type === 'variable_declarator' ? v.childForFieldName('name')?.text : undefined;
          if (vName) topByName.set(vName, top);
        }
      }
    }
  }
  for (const [local, exported] of exportedLater) {
    const decl = topByName.get(local);
    if (decl) jsDeclaration(lang, decl, out, decl.type === 'lexical_declaration' ? undefined : exported);
  }
}

// ---- Go -------------------------------------------------------------------------------------

const isExportedGo = (name: string) => /^\p{Lu}/u.test(name);

function goSignatures(root: Node, out: Map<string, PublicSignature>): void {
  for (const top of root.namedChildren) {
    const name = top?.childForFieldName('name')?.text ?? '';
    if (!top || !isExportedGo(name)) continue;
    if (top.type === 'function_declaration') add(out, name, 'go', top);
    if (top.type === 'method_declaration') {
      const recvType = top.childForFieldName('receiver')?.namedChildren[0]?.childForFieldName('type')?.text ?? '';
      const recv = recvType.replace(/^\*/, '').replace(/\[.*$/, '');
      if (isExportedGo(recv)) add(out, `${recv}.${name}`, 'go', top);
    }
  }
}

// ---- Rust -----------------------------------------------------------------------------------

const isPubRust = (fn: Node) => fn.namedChildren.some((c) => c?.type === 'visibility_modifier' && c.text === 'pub');

function rustSignatures(root: Node, out: Map<string, PublicSignature>): void {
  for (const top of root.namedChildren) {
    if (!top) continue;
    if (top.type === 'function_item' && isPubRust(top)) add(out, top.childForFieldName('name')?.text ?? '', 'rust', top);
    if (top.type === 'impl_item' && !top.childForFieldName('trait')) {
      const type = (top.childForFieldName('type')?.text ?? '').replace(/<.*$/s, '');
      for (const item of top.childForFieldName('body')?.namedChildren ?? []) {
        if (item?.type === 'function_item' && isPubRust(item))
          add(out, `${type}::${item.childForFieldName('name')?.text ?? ''}`, 'rust', item);
      }
    }
  }
}

/** The public top-level functions and methods of a file with their parameter lists. */
export async function publicSignatures(lang: LangId, text: string): Promise<Map<string, PublicSignature>> {
  const out = new Map<string, PublicSignature>();
  await withTree(lang, text, (tree) => {
    const root = tree.rootNode;
    if (lang === 'python') pythonSignatures(root, out);
    else if (lang === 'javascript' || lang === 'typescript' || lang === 'tsx') jsSignatures(lang, root, out);
    else if (lang === 'go') goSignatures(root, out);
    else if (lang === 'rust') rustSignatures(root, out);
  });
  return out;
}

/** `(a, b=1)` for messages. */
export function renderParams(params: Param[]): string {
  return `(${params
    .map((p) => p.text)
    .join(', ')
    .replace(/, \|, /g, ') | (')})`;
}
