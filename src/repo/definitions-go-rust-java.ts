import type { Node } from 'web-tree-sitter';
import type { Collector, DefinitionSink } from './top-level-definitions.js';
import { field, named } from './tree-nodes.js';

/** The base type name of a receiver/impl type: `*Recv[T]` → Recv, `Foo<T>` → Foo, `a::B` → B. */
function baseTypeName(node: Node | null): string | null {
  if (!node) return null;
  if (node.type === 'type_identifier' || node.type === 'identifier') return node.text;
  const inner = field(node, 'type') ?? field(node, 'name');
  if (inner) return baseTypeName(inner);
  for (const c of named(node)) {
    const n = baseTypeName(c);
    if (n) return n;
  }
  return null;
}

/** Go: funcs, methods (Receiver.Method), types; package-level vars/consts are bindings. */
export const goCollector: Collector = (root, sink) => {
  for (const child of named(root)) {
    switch (child.type) {
      case 'function_declaration':
        sink.def(child, field(child, 'name'), 'function');
        break;
      case 'method_declaration': {
        const receiver = named(field(child, 'receiver') ?? child).find((p) => p.type === 'parameter_declaration');
        const recv = baseTypeName(receiver ? field(receiver, 'type') : null);
        sink.def(child, field(child, 'name'), 'method', recv ?? undefined);
        break;
      }
      case 'type_declaration':
        for (const spec of named(child)) if (spec.type === 'type_spec' || spec.type === 'type_alias') sink.def(spec, field(spec, 'name'), 'type');
        break;
      case 'const_declaration':
      case 'var_declaration':
        for (const n of child.descendantsOfType(['const_spec', 'var_spec'])) {
          if (!n) continue;
          for (const id of n.childrenForFieldName('name')) if (id?.type === 'identifier') sink.bind(id.text);
        }
        break;
    }
  }
};

/** Rust: fn/struct/enum/union/trait(+its fns)/type/const/static/macro_rules, inline mods, inherent impl fns. */
function rustItems(container: Node, sink: DefinitionSink, prefix: string | undefined): void {
  const q = (name: string) => (prefix ? `${prefix}::${name}` : name);
  for (const item of named(container)) {
    const name = field(item, 'name');
    switch (item.type) {
      case 'function_item':
        sink.def(item, name, 'function', prefix);
        break;
      case 'struct_item':
      case 'enum_item':
      case 'union_item':
      case 'type_item':
        sink.def(item, name, 'type', prefix);
        break;
      case 'const_item':
      case 'static_item':
        sink.def(item, name, 'constant', prefix);
        break;
      case 'macro_definition':
        sink.def(item, name, 'macro', prefix);
        break;
      case 'trait_item': {
        sink.def(item, name, 'type', prefix);
        const body = field(item, 'body');
        if (name && body)
          for (const m of named(body)) if (m.type === 'function_item' || m.type === 'function_signature_item') sink.def(m, field(m, 'name'), 'method', q(name.text));
        break;
      }
      case 'mod_item': {
        const body = field(item, 'body');
        if (!name || !body) break; // `mod x;` lives in another file
        sink.def(item, name, 'module', prefix);
        rustItems(body, sink, q(name.text));
        break;
      }
      case 'impl_item': {
        // trait impls (`impl Display for S`) are left out: swapping one for a derive is a legitimate refactor
        if (field(item, 'trait')) break;
        const type = baseTypeName(field(item, 'type'));
        const body = field(item, 'body');
        if (type && body) for (const m of named(body)) if (m.type === 'function_item') sink.def(m, field(m, 'name'), 'method', q(type));
        break;
      }
      case 'use_declaration':
        bindRustUse(field(item, 'argument'), sink);
        break;
    }
  }
}

function bindRustUse(node: Node | null, sink: DefinitionSink): void {
  if (!node) return;
  switch (node.type) {
    case 'identifier':
      return sink.bind(node.text);
    case 'scoped_identifier':
      return sink.bind(field(node, 'name')?.text);
    case 'use_as_clause':
      return sink.bind(field(node, 'alias')?.text);
    case 'scoped_use_list':
      return bindRustUse(field(node, 'list'), sink);
    case 'use_list':
      for (const c of named(node)) bindRustUse(c, sink);
      return;
  }
}

export const rustCollector: Collector = (root, sink) => rustItems(root, sink, undefined);

/** Java: classes, interfaces, enums, records, annotation types (nested too) and their methods. */
const JAVA_TYPES = new Set(['class_declaration', 'interface_declaration', 'enum_declaration', 'record_declaration', 'annotation_type_declaration']);

function javaTypes(container: Node, sink: DefinitionSink, prefix: string | undefined): void {
  for (const member of named(container)) {
    if (member.type === 'enum_body_declarations') {
      javaTypes(member, sink, prefix);
      continue;
    }
    if (member.type === 'method_declaration' && prefix) {
      sink.def(member, field(member, 'name'), 'method', prefix);
      continue;
    }
    if (!JAVA_TYPES.has(member.type)) continue;
    const name = field(member, 'name');
    if (!name) continue;
    sink.def(member, name, member.type === 'class_declaration' || member.type === 'record_declaration' ? 'class' : 'type', prefix);
    const body = field(member, 'body');
    if (body) javaTypes(body, sink, prefix ? `${prefix}.${name.text}` : name.text);
  }
}

export const javaCollector: Collector = (root, sink) => {
  for (const child of named(root)) {
    if (child.type !== 'import_declaration' || /\*\s*;/.test(child.text)) continue;
    const path = named(child).find((c) => c.type === 'scoped_identifier' || c.type === 'identifier');
    sink.bind(path?.type === 'scoped_identifier' ? field(path, 'name')?.text : path?.text);
  }
  javaTypes(root, sink, undefined);
};
