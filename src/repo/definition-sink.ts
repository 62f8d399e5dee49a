import type { Node } from 'web-tree-sitter';

/** What the per-language collectors of top-level definitions report to (see top-level-definitions.ts). */

export type DefinitionKind = 'function' | 'class' | 'method' | 'type' | 'constant' | 'variable' | 'module' | 'macro';

/** What a collector reports while walking the tree. */
export interface DefinitionSink {
  /**
   * `span` covers the whole definition (decorators included); `name` is its name node or text.
   * `isPublic` is the collector's verdict on visibility (see `Definition.isPublic` in top-level-definitions.ts).
   */
  def(span: Node, name: Node | string | null, kind: DefinitionKind, container: string | undefined, isPublic: boolean): void;
  bind(name: string | null | undefined): void;
}

export type Collector = (root: Node, sink: DefinitionSink) => void;
