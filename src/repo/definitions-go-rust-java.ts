import type { Node } from 'web-tree-sitter';
import type { Collector, DefinitionSink } from './definition-sink.js';
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

const isExportedGo = (name: string | null | undefined) => !!name && /^\p{Lu}/u.test(name);

/** Go: funcs, methods (Receiver.Method), types; package-level vars/consts are bindings. */
export const goCollector: Collector = (root, sink) => {
  for (const child of named(root)) {
    switch (child.type) {
      case 'function_declaration':
        sink.def(child, field(child, 'name'), 'function', undefined, isExportedGo(field(child, 'name')?.text));
        break;
      case 'method_declaration': {
        const receiver = named(field(child, 'receiver') ?? child).find((p) => p.type === 'parameter_declaration');
        const recv = baseTypeName(receiver ? field(receiver, 'type') : null);
        sink.def(child, field(child, 'name'), 'method', recv ?? undefined, isExportedGo(recv) && isExportedGo(field(child, 'name')?.text));
        break;
      }
      case 'type_declaration':
        for (const spec of named(child))
          if (spec.type === 'type_spec' || spec.type === 'type_alias')
            sink.def(spec, field(spec, 'name'), 'type', undefined, isExportedGo(field(spec, 'name')?.text));
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
/** `pub` without a restriction (`pub(crate)` and `pub(super)` stay inside the crate). */
const isPubRust = (item: Node) => named(item).some((c) => c.type === 'visibility_modifier' && c.text === 'pub');

/** `#[macro_export]` right above a `macro_rules!`: exported from the crate. */
function macroExported(item: Node): boolean {
  for (let p = item.previousNamedSibling; p?.type === 'attribute_item'; p = p.previousNamedSibling)
    if (p.text.includes('macro_export')) return true;
  return false;
}

function rustItems(container: Node, sink: DefinitionSink, prefix: string | undefined, publicScope: boolean): void {
  const q = (name: string) => (prefix ? `${prefix}::${name}` : name);
  for (const item of named(container)) {
    const name = field(item, 'name');
    const pub = publicScope && isPubRust(item);
    switch (item.type) {
      case 'function_item':
        sink.def(item, name, 'function', prefix, pub);
        break;
      case 'struct_item':
      case 'enum_item':
      case 'union_item':
      case 'type_item':
        sink.def(item, name, 'type', prefix, pub);
        break;
      case 'const_item':
      case 'static_item':
        sink.def(item, name, 'constant', prefix, pub);
        break;
      case 'macro_definition':
        sink.def(item, name, 'macro', prefix, macroExported(item));
        break;
      case 'trait_item': {
        sink.def(item, name, 'type', prefix, pub);
        const body = field(item, 'body');
        if (name && body)
          for (const m of named(body))
            if (m.type === 'function_item' || m.type === 'function_signature_item')
              sink.def(m, field(m, 'name'), 'method', q(name.text), pub);
        break;
      }
      case 'mod_item': {
        const body = field(item, 'body');
        if (!name || !body) break; // `mod x;` lives in another file
        sink.def(item, name, 'module', prefix, pub);
        rustItems(body, sink, q(name.text), pub);
        break;
      }
      case 'impl_item': {
        // trait impls (`impl Display for S`) are left out: swapping one for a derive is a legitimate refactor
        if (field(item, 'trait')) break;
        const type = baseTypeName(field(item, 'type'));
        const body = field(item, 'body');
        if (type && body)
          for (const m of named(body))
            if (m.type === 'function_item') sink.def(m, field(m, 'name'), 'method', q(type), publicScope && isPubRust(m));
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
    case 'identifier': {
      sink.bind(node.text);
      return;
    }
    case 'scoped_identifier': {
      sink.bind(field(node, 'name')?.text);
      return;
    }
    case 'use_as_clause': {
      sink.bind(field(node, 'alias')?.text);
      return;
    }
    case 'scoped_use_list': {
      bindRustUse(field(node, 'list'), sink);
      return;
    }
    case 'use_list':
      for (const c of named(node)) bindRustUse(c, sink);
      return;
  }
}

export const rustCollector: Collector = (root, sink) => rustItems(root, sink, undefined, true);

/** Java: classes, interfaces, enums, records, annotation types (nested too) and their methods. */
const JAVA_TYPES = new Set([
  'class_declaration',
  'interface_declaration',
  'enum_declaration',
  'record_declaration',
  'annotation_type_declaration',
]);

/** `public` or `protected` among a declaration's modifiers (interface members are public by default). */
function javaVisible(member: Node, inInterface: boolean): boolean {
  const mods = named(member).find((c) => c.type === 'modifiers')?.text ?? '';
  if (/\bprivate\b/.test(mods)) return false;
  return inInterface || /\b(public|protected)\b/.test(mods);
}

function javaTypes(container: Node, sink: DefinitionSink, prefix: string | undefined, visible: boolean, inInterface: boolean): void {
  for (const member of named(container)) {
    if (member.type === 'enum_body_declarations') {
      javaTypes(member, sink, prefix, visible, false);
      continue;
    }
    if (member.type === 'method_declaration' && prefix) {
      sink.def(member, field(member, 'name'), 'method', prefix, visible && javaVisible(member, inInterface));
      continue;
    }
    if (!JAVA_TYPES.has(member.type)) continue;
    const name = field(member, 'name');
    if (!name) continue;
    const pub = visible && javaVisible(member, inInterface);
    sink.def(member, name, member.type === 'class_declaration' || member.type === 'record_declaration' ? 'class' : 'type', prefix, pub);
    const body = field(member, 'body');
    const isInterface = member.type === 'interface_declaration' || member.type === 'annotation_type_declaration';
    if (body) javaTypes(body, sink, prefix ? `${prefix}.${name.text}` : name.text, pub, isInterface);
  }
}

export const javaCollector: Collector = (root, sink) => {
  for (const child of named(root)) {
    if (child.type !== 'import_declaration' || /\*\s*;/.test(child.text)) continue;
    const path = named(child).find((c) => c.type === 'scoped_identifier' || c.type === 'identifier');
    sink.bind(path?.type === 'scoped_identifier' ? field(path, 'name')?.text : path?.text);
  }
  javaTypes(root, sink, undefined, true, false);
};
