import type { Node } from 'web-tree-sitter';
import type { Collector, DefinitionSink } from './definition-sink.js';
import { field, named } from './tree-nodes.js';

/** Python: module-level def/async def/class (decorated too), also inside top-level if/try/with. */
const PY_SCOPE_BLOCKS = new Set([
  'if_statement',
  'elif_clause',
  'else_clause',
  'try_statement',
  'except_clause',
  'finally_clause',
  'with_statement',
  'block',
  'for_statement',
  'while_statement',
]);

const isPublicPy = (name: Node | null | undefined) => !!name && (!name.text.startsWith('_') || /^__\w+__$/.test(name.text));

export function pythonCollector(root: Node, sink: DefinitionSink): void {
  const visit = (node: Node) => {
    for (const child of named(node)) {
      switch (child.type) {
        case 'function_definition':
          sink.def(child, field(child, 'name'), 'function', undefined, isPublicPy(field(child, 'name')));
          break;
        case 'class_definition':
          sink.def(child, field(child, 'name'), 'class', undefined, isPublicPy(field(child, 'name')));
          break;
        case 'decorated_definition': {
          const inner = field(child, 'definition');
          if (inner)
            sink.def(
              child,
              field(inner, 'name'),
              inner.type === 'class_definition' ? 'class' : 'function',
              undefined,
              isPublicPy(field(inner, 'name')),
            );
          break;
        }
        case 'import_statement':
        case 'import_from_statement':
          bindPythonImports(child, sink);
          break;
        case 'expression_statement':
          for (const e of named(child)) {
            const left = e.type === 'assignment' ? field(e, 'left') : null;
            if (left?.type === 'identifier') sink.bind(left.text);
          }
          break;
        default:
          if (PY_SCOPE_BLOCKS.has(child.type)) visit(child);
      }
    }
  };
  visit(root);
}

function bindPythonImports(stmt: Node, sink: DefinitionSink): void {
  const moduleName = field(stmt, 'module_name');
  for (const n of named(stmt)) {
    if (n.startIndex === moduleName?.startIndex) continue;
    if (n.type === 'aliased_import') sink.bind(field(n, 'alias')?.text);
    else if (n.type === 'dotted_name') {
      const parts = named(n);
      // `import a.b` binds `a`; `from m import a` binds `a`
      sink.bind((stmt.type === 'import_statement' ? parts[0] : parts[parts.length - 1])?.text);
    }
  }
}

/** JavaScript/TypeScript: declarations, exported bindings, top-level function-valued consts. */
const FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);
const ANONYMOUS_DEFAULTS = new Set([...FUNCTION_VALUES, 'class']);

function jsStatement(node: Node, sink: DefinitionSink, exported: boolean, laterExports: ReadonlySet<string>): void {
  const pub = (name: Node | null) => exported || (!!name && laterExports.has(name.text));
  switch (node.type) {
    case 'export_statement': {
      const decl = field(node, 'declaration');
      if (decl) {
        jsStatement(decl, sink, true, laterExports);
        return;
      }
      for (const c of named(node)) {
        if (ANONYMOUS_DEFAULTS.has(c.type) && !field(c, 'name'))
          sink.def(c, 'default', c.type === 'class' ? 'class' : 'function', undefined, true);
        else if (c.type === 'function_declaration' || c.type === 'class_declaration') jsStatement(c, sink, true, laterExports);
        else if (c.type === 'export_clause' && field(node, 'source'))
          for (const s of named(c)) sink.bind((field(s, 'alias') ?? field(s, 'name'))?.text);
      }
      return;
    }
    case 'function_declaration':
    case 'generator_function_declaration': {
      sink.def(node, field(node, 'name'), 'function', undefined, pub(field(node, 'name')));
      return;
    }
    case 'class_declaration':
    case 'abstract_class_declaration': {
      sink.def(node, field(node, 'name'), 'class', undefined, pub(field(node, 'name')));
      return;
    }
    case 'interface_declaration':
    case 'type_alias_declaration':
    case 'enum_declaration': {
      sink.def(node, field(node, 'name'), 'type', undefined, pub(field(node, 'name')));
      return;
    }
    case 'ambient_declaration':
      for (const c of named(node)) jsStatement(c, sink, exported, laterExports);
      return;
    case 'lexical_declaration':
    case 'variable_declaration':
      for (const d of named(node)) {
        if (d.type !== 'variable_declarator') continue;
        const name = field(d, 'name');
        if (name?.type !== 'identifier') continue;
        const value = field(d, 'value');
        const isFunction = !!value && FUNCTION_VALUES.has(value.type);
        if (exported || isFunction || laterExports.has(name.text))
          sink.def(d, name, isFunction ? 'function' : 'constant', undefined, pub(name));
        else sink.bind(name.text);
      }
      return;
    case 'expression_statement': {
      const e = named(node)[0];
      const left = e?.type === 'assignment_expression' ? field(e, 'left') : null;
      // CommonJS: exports.x = … / module.exports.x = …
      if (left?.type === 'member_expression' && /^(module\.)?exports$/.test(field(left, 'object')?.text ?? ''))
        sink.def(node, field(left, 'property'), 'variable', undefined, true);
      return;
    }
    case 'import_statement':
      for (const clause of named(node)) {
        if (clause.type !== 'import_clause') continue;
        for (const c of named(clause)) {
          if (c.type === 'identifier') sink.bind(c.text);
          else if (c.type === 'namespace_import') sink.bind(named(c)[0]?.text);
          else if (c.type === 'named_imports') for (const s of named(c)) sink.bind((field(s, 'alias') ?? field(s, 'name'))?.text);
        }
      }
      return;
  }
}

/** Local names a module exports through a clause without a source (`export { a, b as c }`). */
function laterExportsOf(root: Node): Set<string> {
  const out = new Set<string>();
  for (const child of named(root)) {
    if (child.type !== 'export_statement' || field(child, 'source')) continue;
    for (const c of named(child))
      if (c.type === 'export_clause')
        for (const s of named(c)) {
          const name = field(s, 'name');
          if (name) out.add(name.text);
        }
  }
  return out;
}

export const jsCollector: Collector = (root, sink) => {
  const later = laterExportsOf(root);
  for (const child of named(root)) jsStatement(child, sink, false, later);
};
