import { goCollector, javaCollector, rustCollector } from './definitions-go-rust-java.js';
import { jsCollector, pythonCollector } from './definitions-python-js.js';
import type { Collector, DefinitionKind, DefinitionSink } from './definition-sink.js';
import { withTree, type LangId } from './languages.js';

export type { DefinitionKind } from './definition-sink.js';

/** One top-level definition of a source file. */
export interface Definition {
  /** Qualified name: `f`, `Class.method` (Python/JS/Java/Go), `Type::method`, `tests::case` (Rust). */
  name: string;
  /** The unqualified name. */
  simpleName: string;
  /** Qualified name of the enclosing class/type/module for members, else undefined. */
  container?: string;
  kind: DefinitionKind;
  /** 1-based first line of the definition (decorators and attributes included). */
  line: number;
  endLine: number;
  /** The definition's text with its own name replaced and whitespace collapsed (rename detection). */
  shape: string;
  /**
   * Visible outside its module: Python names without a leading `_` (dunders count), exported JS/TS
   * bindings, capitalised Go names, `pub` Rust items, `public`/`protected` Java members.
   */
  isPublic: boolean;
}

export interface DefinitionIndex {
  definitions: Definition[];
  /**
   * Other top-level names the file binds: imports (`from m import f`, `import { f } from`, `use a::f`),
   * re-exports, and module-level assignments. A definition replaced by one of these still resolves.
   */
  bound: Set<string>;
  /** The parser had to recover from a syntax error; some definitions may be missing from the list. */
  hasError: boolean;
}

const COLLECTORS: Record<LangId, Collector> = {
  python: pythonCollector,
  javascript: jsCollector,
  typescript: jsCollector,
  tsx: jsCollector,
  go: goCollector,
  rust: rustCollector,
  java: javaCollector,
};

/** The separator of qualified names in a language. */
export function qualifier(lang: LangId): string {
  return lang === 'rust' ? '::' : '.';
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Text with every whole-word occurrence of `name` replaced by a placeholder and whitespace collapsed. */
export function shapeOf(text: string, name: string): string {
  const re = new RegExp(`(?<![\\w$])${escapeRe(name)}(?![\\w$])`, 'g');
  return text.replace(re, '\u00a7').replace(/\s+/g, ' ').trim();
}

/** Languages whose definitions can move into each other's files (JS and TS interoperate). */
export function languageFamily(lang: LangId): string {
  return lang === 'javascript' || lang === 'typescript' || lang === 'tsx' ? 'js' : lang;
}

/** Collects the top-level definitions (and other top-level bindings) of one source text. */
export async function topLevelDefinitions(lang: LangId, text: string): Promise<DefinitionIndex> {
  const collect = COLLECTORS[lang];
  const sep = qualifier(lang);
  return withTree(lang, text, (tree) => {
    const definitions: Definition[] = [];
    const bound = new Set<string>();
    const sink: DefinitionSink = {
      def(span, nameNode, kind, container, isPublic) {
        const simpleName = typeof nameNode === 'string' ? nameNode : nameNode?.text;
        if (!simpleName) return;
        definitions.push({
          name: container ? `${container}${sep}${simpleName}` : simpleName,
          simpleName,
          ...(container ? { container } : {}),
          kind,
          line: span.startPosition.row + 1,
          endLine: span.endPosition.row + 1,
          shape: shapeOf(span.text, simpleName),
          isPublic,
        });
      },
      bind(name) {
        if (name) bound.add(name);
      },
    };
    collect(tree.rootNode, sink);
    return { definitions, bound, hasError: tree.rootNode.hasError };
  });
}
