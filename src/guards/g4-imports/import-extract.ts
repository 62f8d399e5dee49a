import type { Node } from 'web-tree-sitter';
import { withTree, type LangId } from '../../repo/languages.js';

/** One import statement's target as written, with its 1-based line. */
export interface ImportRef {
  /**
   * Python: dotted module with leading dots for relative imports (`a.b`, `..pkg`, `.`);
   * JS/TS: the module specifier; Go: the import path; Rust: the `use` path (`serde::Serialize`,
   * `::foo::bar`) or the `extern crate` name.
   */
  spec: string;
  line: number;
  /** The source text of the statement's first line (for messages). */
  text: string;
  /** Python: the import sits under `if TYPE_CHECKING:` (read by type checkers, never run). */
  typeOnly?: true;
}

function lineText(node: Node): string {
  return node.text.split('\n')[0]!.trim().slice(0, 120);
}

function ref(spec: string, node: Node): ImportRef {
  return { spec, line: node.startPosition.row + 1, text: lineText(node) };
}

/** True when `node` sits inside a `try` body (Python `try:`, JS `try {}`): an optional import. */
function insideTry(node: Node): boolean {
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === 'try_statement') {
      const body = p.childForFieldName('body');
      if (body && node.startIndex >= body.startIndex && node.endIndex <= body.endIndex) return true;
    }
  }
  return false;
}

/** True when `node` sits in the body of `if TYPE_CHECKING:` / `if typing.TYPE_CHECKING:` (Python). */
function underTypeChecking(node: Node): boolean {
  for (let p = node.parent; p; p = p.parent) {
    if (p.type !== 'if_statement') continue;
    const cond = p.childForFieldName('condition')?.text.replace(/\s+/g, '');
    const body = p.childForFieldName('consequence');
    if (
      (cond === 'TYPE_CHECKING' || cond?.endsWith('.TYPE_CHECKING')) &&
      body &&
      node.startIndex >= body.startIndex &&
      node.endIndex <= body.endIndex
    )
      return true;
  }
  return false;
}

function pyRef(spec: string, node: Node): ImportRef {
  const r = ref(spec, node);
  return underTypeChecking(node) ? { ...r, typeOnly: true } : r;
}

/** `visit` returns false to skip a node's children; anything else (undefined too) walks into them. */
function walk(node: Node, visit: (n: Node) => boolean | undefined): void {
  if (visit(node) === false) return;
  for (const child of node.namedChildren) if (child) walk(child, visit);
}

function pythonImports(root: Node): ImportRef[] {
  const out: ImportRef[] = [];
  walk(root, (n) => {
    if (n.type === 'import_statement') {
      if (insideTry(n)) return false;
      for (const name of n.childrenForFieldName('name')) {
        const dotted = name?.type === 'aliased_import' ? name.childForFieldName('name') : name;
        if (dotted) out.push(pyRef(dotted.text, n));
      }
      return false;
    }
    if (n.type === 'import_from_statement') {
      if (insideTry(n)) return false;
      const module = n.childForFieldName('module_name');
      if (module) out.push(pyRef(module.text.replace(/\s+/g, ''), n));
      return false;
    }
    return undefined;
  });
  return out;
}

function stringValue(node: Node | null | undefined): string | null {
  if (node?.type !== 'string') return null;
  const fragment = node.namedChildren.find((c) => c?.type === 'string_fragment');
  return fragment ? fragment.text : node.text.length <= 2 ? '' : null;
}

function jsImports(root: Node): ImportRef[] {
  const out: ImportRef[] = [];
  walk(root, (n) => {
    if (n.type === 'import_statement' || n.type === 'export_statement') {
      let source = stringValue(n.childForFieldName('source'));
      const requireClause = n.namedChildren.find((c) => c?.type === 'import_require_clause');
      if (source === null && requireClause) source = stringValue(requireClause.childForFieldName('source'));
      if (source !== null) out.push(ref(source, n));
      return n.type === 'export_statement' ? undefined : false;
    }
    if (n.type === 'call_expression') {
      const fn = n.childForFieldName('function');
      const isRequire = fn?.type === 'identifier' && fn.text === 'require';
      if ((isRequire || fn?.type === 'import') && !insideTry(n)) {
        const args = n.childForFieldName('arguments');
        const first = args?.namedChildren[0];
        const source = stringValue(first);
        if (source !== null && args?.namedChildren.length === 1) out.push(ref(source, n));
      }
    }
    return undefined;
  });
  return out;
}

function goImports(root: Node): ImportRef[] {
  const out: ImportRef[] = [];
  walk(root, (n) => {
    if (n.type === 'import_spec') {
      const path = n.childForFieldName('path');
      if (path) out.push(ref(path.text.replace(/^["`]|["`]$/g, ''), n));
      return false;
    }
    // Imports only appear at the top of a file.
    return n.type === 'source_file' || n.type === 'import_declaration' || n.type === 'import_spec_list' ? undefined : false;
  });
  return out;
}

/** The paths a Rust `use` argument brings in, flattened: `a::{b, c::d}` → `a::b`, `a::c::d`. */
function rustUsePaths(arg: Node, prefix: string, into: string[]): void {
  switch (arg.type) {
    case 'use_as_clause': {
      const path = arg.childForFieldName('path');
      if (path) rustUsePaths(path, prefix, into);
      return;
    }
    case 'use_wildcard': {
      const path = arg.namedChildren[0];
      into.push(path ? `${prefix}${path.text}::*` : `${prefix}*`);
      return;
    }
    case 'scoped_use_list': {
      const path = arg.childForFieldName('path');
      const list = arg.childForFieldName('list');
      const base = path ? `${prefix}${path.text}::` : `${prefix}::`;
      for (const item of list?.namedChildren ?? []) if (item) rustUsePaths(item, base, into);
      return;
    }
    case 'use_list':
      for (const item of arg.namedChildren) if (item) rustUsePaths(item, prefix, into);
      return;
    default:
      into.push(`${prefix}${arg.text.replace(/\s+/g, '')}`);
  }
}

function rustImports(root: Node): ImportRef[] {
  const out: ImportRef[] = [];
  walk(root, (n) => {
    if (n.type === 'use_declaration') {
      const arg = n.childForFieldName('argument');
      const paths: string[] = [];
      if (arg) rustUsePaths(arg, '', paths);
      for (const p of paths) out.push(ref(p, n));
      return false;
    }
    if (n.type === 'extern_crate_declaration') {
      const name = n.childForFieldName('name');
      if (name) out.push(ref(name.text, n));
      return false;
    }
    return undefined;
  });
  return out;
}

/** Every import/require/use of a source file, in document order. Empty for other languages. */
export async function extractImports(lang: LangId, text: string): Promise<ImportRef[]> {
  switch (lang) {
    case 'python':
      return withTree(lang, text, (t) => pythonImports(t.rootNode));
    case 'javascript':
    case 'typescript':
    case 'tsx':
      return withTree(lang, text, (t) => jsImports(t.rootNode));
    case 'go':
      return withTree(lang, text, (t) => goImports(t.rootNode));
    case 'rust':
      return withTree(lang, text, (t) => rustImports(t.rootNode));
    default:
      return [];
  }
}
