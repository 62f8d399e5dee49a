import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Language, Parser, type Node, type Tree } from 'web-tree-sitter';

/**
 * Code languages slopgate parses with tree-sitter. The WASM grammars come from `@vscode/tree-sitter-wasm`
 * (the grammars VS Code ships, rebuilt from each grammar's current release, ABI 15), loaded by
 * `web-tree-sitter`.
 */
export type LangId = 'python' | 'javascript' | 'typescript' | 'tsx' | 'go' | 'rust' | 'java';

const EXTENSIONS: Record<string, LangId> = {
  '.py': 'python',
  '.pyi': 'python',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
};

export function languageOf(path: string): LangId | null {
  const lower = path.toLowerCase();
  if (lower.endsWith('.d.ts')) return 'typescript';
  const dot = lower.lastIndexOf('.');
  if (dot < 0 || dot < lower.lastIndexOf('/')) return null;
  return EXTENSIONS[lower.slice(dot)] ?? null;
}

const require = createRequire(import.meta.url);
const wasmDir = join(dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm');

const languages = new Map<LangId, Promise<Language>>();
const parsers = new Map<LangId, Parser>();
/** Grammar loads are chained: web-tree-sitter cannot instantiate two WASM modules at once. */
let loadChain: Promise<unknown> | null = null;

function loadLanguage(lang: LangId): Promise<Language> {
  let p = languages.get(lang);
  if (!p) {
    const previous: Promise<unknown> = loadChain ?? Parser.init();
    p = previous.catch(() => undefined).then(() => Language.load(join(wasmDir, `tree-sitter-${lang}.wasm`)));
    loadChain = p;
    languages.set(lang, p);
  }
  return p;
}

async function parserFor(lang: LangId): Promise<Parser> {
  const language = await loadLanguage(lang);
  let parser = parsers.get(lang);
  if (!parser) {
    parser = new Parser();
    parser.setLanguage(language);
    parsers.set(lang, parser);
  }
  return parser;
}

/** A Rust frontmatter block (cargo script): a fence of 3+ dashes, optional infostring, closed by the same fence. */
const RUST_FRONTMATTER = /^((?:#!(?!\[)[^\n]*\n)?(?:[ \t]*\r?\n)*)(-{3,})([^\n]*\n(?:[\s\S]*?\n)?)\2[ \t]*(?=\r?\n|$)/;

/** Same length, every character but line breaks turned into a space: positions stay where they were. */
export const blankOut = (s: string): string => s.replace(/[^\r\n]/g, ' ');

/**
 * What the grammar is given instead of `text`: the same length and line structure, with the few
 * valid constructs the grammars do not know rewritten into ones they do:
 * - NUL characters (valid inside Java/Rust/JS string literals) end the input for tree-sitter → space;
 * - Rust: `str![...]` (snapbox's macro) lexes `str` as the primitive type → a plain macro name;
 * - Rust: a cargo-script frontmatter block at the top of the file → blank lines.
 */
export function grammarInput(lang: LangId, text: string): string {
  let out = text.includes('\0') ? text.replace(/\0/g, ' ') : text;
  if (lang === 'rust') {
    out = out.replace(/(?<![\w#$])str!(?=\s*[[({])/g, 'st_!');
    out = out.replace(RUST_FRONTMATTER, (_all, lead: string, fence: string, body: string) => lead + blankOut(fence + body + fence));
  }
  return out;
}

/**
 * Parses `text` and hands the tree to `fn`; the tree is freed afterwards (WASM memory is not
 * garbage-collected), so never keep nodes beyond the callback.
 */
export async function withTree<T>(lang: LangId, text: string, fn: (tree: Tree) => T): Promise<T> {
  const parser = await parserFor(lang);
  const tree = parser.parse(grammarInput(lang, text));
  if (!tree) throw new Error(`tree-sitter could not parse ${lang} source`);
  try {
    return fn(tree);
  } finally {
    tree.delete();
  }
}

export interface SyntaxErrorLocation {
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  message: string;
}

/** The first syntax error in document order (an ERROR node or a node the parser had to invent). */
export function firstSyntaxError(tree: Tree): SyntaxErrorLocation | null {
  const root = tree.rootNode;
  if (!root.hasError) return null;
  let found: Node | null = null;
  const visit = (node: Node): boolean => {
    if (node.isError || node.isMissing) {
      found = node;
      return true;
    }
    if (!node.hasError) return false;
    for (const child of node.children) {
      if (child && visit(child)) return true;
    }
    return false;
  };
  visit(root);
  const node = found as Node | null; // cast: assigned inside the visitor closure, which flow analysis does not follow
  if (!node) return { line: 1, column: 1, message: 'the parser reported an error' };
  const line = node.startPosition.row + 1;
  const column = node.startPosition.column + 1;
  if (node.isMissing) return { line, column, message: `missing ${JSON.stringify(node.type)}` };
  const snippet = node.text.split('\n')[0]!.slice(0, 40);
  return { line, column, message: snippet ? `unexpected ${JSON.stringify(snippet)}` : 'unexpected input' };
}
