import type { Node } from 'web-tree-sitter';

/** Named children without the nulls the binding may return. */
export function named(node: Node): Node[] {
  return node.namedChildren.filter((c): c is Node => c !== null);
}

/** A child by field name. */
export const field = (node: Node, name: string): Node | null => node.childForFieldName(name);
