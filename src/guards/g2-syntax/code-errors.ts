import type { Node, Tree } from 'web-tree-sitter';
import { blankOut, withTree, type LangId } from '../../repo/languages.js';
import type { SyntaxProblem } from './config-parsers.js';
import { checkScript, isScriptLang } from './typescript-errors.js';

const OPENER: Record<string, string> = { '}': '{', ')': '(', ']': '[' };

/** Python statements that must end their header line with `:`. */
const PY_BLOCK_HEADER = /^\s*(?:async\s+)?(def|class|if|elif|else|for|while|with|try|except|finally|match|case)\b/;

function firstBroken(node: Node): Node | null {
  if (node.isError || node.isMissing) return node;
  if (!node.hasError) return null;
  for (const child of node.children) {
    const hit = child ? firstBroken(child) : null;
    if (hit) return hit;
  }
  return null;
}

function balanced(code: string): boolean {
  let depth = 0;
  for (const ch of code) {
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
  }
  return depth === 0;
}

/** Python: the first block header (def/class/if/…) in the broken region that lacks its colon. */
function pythonMissingColon(lines: string[], from: number, to: number): SyntaxProblem | null {
  for (let n = from; n <= Math.min(to, lines.length); n++) {
    const source = lines[n - 1] ?? '';
    const code = source.replace(/\s+#.*$/, '').trimEnd();
    const header = PY_BLOCK_HEADER.exec(code);
    if (!header || code.endsWith(':') || code.endsWith('\\') || !balanced(code)) continue;
    return {
      line: n,
      column: code.length + 1,
      message: `the \`${header[1]}\` line does not end with \`:\``,
      fixedLine: `${code}:${source.slice(code.length)}`,
    };
  }
  return null;
}

const QUOTE_TOKENS = new Set(['"', "'", '`', 'string_start']);

/**
 * A single-quoted string that spans lines right before the error: the usual effect of a missing
 * closing quote (the string swallows code up to the next quote). Points at where the string opens.
 */
function runawayString(node: Node, lines: string[]): SyntaxProblem | null {
  let prev: Node | null = node.previousSibling;
  for (let up = node.parent; !prev && up; up = up.parent) prev = up.previousSibling;
  if (!prev || !prev.type.includes('string') || prev.startPosition.row === prev.endPosition.row) return null;
  const text = prev.text;
  if (!/^["']/.test(text) || /^("""|''')/.test(text)) return null;
  const at = clamp(lines, prev.startPosition.row + 1, prev.startPosition.column + 1);
  return {
    ...at,
    message: `the string opened here with ${text[0]} runs on to line ${prev.endPosition.row + 1}; its closing ${text[0]} is probably missing`,
  };
}

function clamp(lines: string[], line: number, column: number): { line: number; column: number } {
  if (line <= lines.length) return { line, column };
  const last = Math.max(1, lines.length);
  return { line: last, column: (lines[last - 1]?.length ?? 0) + 1 };
}

function describe(node: Node, lang: LangId, lines: string[]): SyntaxProblem {
  const at = clamp(lines, node.startPosition.row + 1, node.startPosition.column + 1);
  const runaway = runawayString(node, lines);
  if (runaway) return runaway;
  if (node.isMissing) {
    const opener = OPENER[node.type];
    const open = opener ? node.parent?.children.find((c) => c?.type === opener) : undefined;
    const where = open ? ` to close the \`${opener}\` opened on line ${open.startPosition.row + 1}` : '';
    return { ...at, message: `missing \`${node.type}\`${where}` };
  }
  if (lang === 'python') {
    const colon = pythonMissingColon(lines, node.startPosition.row + 1, node.endPosition.row + 1);
    if (colon) return colon;
  }
  const opener = node.firstChild?.type;
  if (node.isError && opener && QUOTE_TOKENS.has(opener)) {
    const quote = node.firstChild.text.slice(-1);
    return {
      ...at,
      message: `the ${quote === "'" && lang === 'rust' ? 'character' : 'string'} literal opened here with ${quote} is never closed`,
    };
  }
  const snippet = node.text.split('\n')[0]!.trim().slice(0, 40);
  if (!snippet) return { ...at, message: 'the code here does not fit the grammar' };
  return { ...at, message: `the parser cannot make sense of \`${snippet}\` here` };
}

function locate(tree: Tree, lang: LangId, text: string): SyntaxProblem | null {
  if (!tree.rootNode.hasError) return null;
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  const node = firstBroken(tree.rootNode);
  if (!node) return { line: 1, column: 1, message: 'the parser reported an error' };
  return describe(node, lang, lines);
}

/**
 * Python: the offsets of comments that sit alone on their line. tree-sitter-python's indentation
 * scanner trips over such a comment at a shallower indent than the block around it (valid Python:
 * comments do not take part in indentation), e.g. a `# note` at column 0 between a decorator and its
 * `def` inside a class.
 */
function ownLineComments(tree: Tree, text: string): [number, number][] {
  const spans: [number, number][] = [];
  const visit = (node: Node): void => {
    if (node.type === 'comment') {
      const lineStart = text.lastIndexOf('\n', node.startIndex - 1) + 1;
      if (/^[ \t\f]*$/.test(text.slice(lineStart, node.startIndex))) spans.push([node.startIndex, node.endIndex]);
      return;
    }
    for (const child of node.children) if (child) visit(child);
  };
  visit(tree.rootNode);
  return spans;
}

function withoutSpans(text: string, spans: [number, number][]): string {
  let out = '';
  let at = 0;
  for (const [from, to] of spans) {
    out += text.slice(at, from) + blankOut(text.slice(from, to));
    at = to;
  }
  return out + text.slice(at);
}

async function checkTreeSitter(lang: LangId, text: string): Promise<SyntaxProblem | null> {
  const first = await withTree(lang, text, (tree) => ({
    problem: locate(tree, lang, text),
    comments: lang === 'python' && tree.rootNode.hasError ? ownLineComments(tree, text) : [],
  }));
  if (!first.problem || first.comments.length === 0) return first.problem;
  // Python only: parse again with own-line comments blanked (same offsets). If that parses, the
  // error was the grammar's, not the file's.
  const blanked = withoutSpans(text, first.comments);
  const second = await withTree(lang, blanked, (tree) => locate(tree, lang, blanked));
  return second ? first.problem : null;
}

/**
 * Parses source code; null when it parses cleanly. JavaScript and TypeScript go through the
 * TypeScript compiler's parser, the other languages through their tree-sitter grammar.
 */
export function checkCode(lang: LangId, text: string): Promise<SyntaxProblem | null> {
  return isScriptLang(lang) ? checkScript(lang, text) : checkTreeSitter(lang, text);
}
