import type { SyntaxProblem } from './config-parsers.js';

/**
 * A strict reader of `go.mod` and `go.work`, following the grammar of https://go.dev/ref/mod#go-mod-file-grammar
 * and the checks of the go command's own parser (golang.org/x/mod/modfile, `parseToFile` with
 * strict = true and `ParseWork`): the lexer (`//` comments only, `"…"` and `` `…` `` strings on one
 * line, blocks `verb (` … `)`), then per directive the argument count and form — module paths,
 * canonical semantic versions matching the path's major version (`/v2` needs v2.x.y), `go 1.23.0`,
 * `toolchain go1.23.0`, `godebug key=value`, replacements, retractions. The first error wins, as
 * `go` reports it. Nothing runs and nothing is fetched.
 */
type Kind = 'ident' | 'string' | 'punct' | 'eol' | 'eof';

interface Token {
  kind: Kind;
  text: string;
  line: number;
  column: number;
}

class ModSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    message: string,
  ) {
    super(message);
  }
}

const PUNCT = new Set(['(', ')', '[', ']', '{', '}', ',']);

function isIdentChar(c: string): boolean {
  return !PUNCT.has(c) && !/\s/.test(c) && c >= ' ' && c !== '\u007f';
}

/** Tokens of the file; comments dropped, end-of-line (`eol`) kept, as the go command's lexer does. */
function lex(text: string): Token[] {
  const out: Token[] = [];
  let line = 1;
  let col = 1;
  let i = 0;
  const at = () => ({ line, column: col });
  const advance = (n = 1) => {
    for (let k = 0; k < n; k++) {
      if (text[i] === '\n') {
        line++;
        col = 1;
      } else col++;
      i++;
    }
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\r') {
      advance();
      continue;
    }
    if (text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n') advance();
      continue;
    }
    if (text.startsWith('/*', i)) throw new ModSyntaxError(line, col, 'mod files must use // comments (not /* */ comments)');
    const start = at();
    if (c === '\n') {
      out.push({ kind: 'eol', text: '\n', ...start });
      advance();
      continue;
    }
    if (PUNCT.has(c)) {
      out.push({ kind: 'punct', text: c, ...start });
      advance();
      continue;
    }
    if (c === '"' || c === '`') {
      let j = i + 1;
      for (;;) {
        if (j >= text.length) throw new ModSyntaxError(start.line, start.column, 'unexpected EOF in string');
        if (text[j] === '\n') throw new ModSyntaxError(start.line, start.column, 'unexpected newline in string');
        if (text[j] === c) break;
        if (text[j] === '\\' && c === '"') j++;
        j++;
      }
      const s = text.slice(i, j + 1);
      out.push({ kind: 'string', text: s, ...start });
      advance(s.length);
      continue;
    }
    if (!isIdentChar(c)) throw new ModSyntaxError(line, col, `unexpected input character ${JSON.stringify(c)}`);
    let j = i;
    while (j < text.length && isIdentChar(text[j]!) && !text.startsWith('//', j)) {
      if (text.startsWith('/*', j)) throw new ModSyntaxError(line, col + (j - i), 'mod files must use // comments (not /* */ comments)');
      j++;
    }
    out.push({ kind: 'ident', text: text.slice(i, j), ...start });
    advance(j - i);
  }
  out.push({ kind: 'eof', text: '', line, column: col });
  return out;
}

interface Line {
  tokens: Token[];
}

interface Block {
  verb: Token[];
  lines: Line[];
}

type Stmt = Line | Block;

const isBlock = (s: Stmt): s is Block => 'verb' in s;
const isEol = (t: Token) => t.kind === 'eol' || t.kind === 'eof';

/** Statements: lines of tokens, and `verb (` … `)` blocks of lines. */
function parse(tokens: Token[]): Stmt[] {
  const out: Stmt[] = [];
  let i = 0;
  const peek = () => tokens[i]!;
  while (peek().kind !== 'eof') {
    if (peek().kind === 'eol') {
      i++;
      continue;
    }
    const line: Token[] = [tokens[i++]!];
    for (;;) {
      const t = tokens[i++]!;
      if (isEol(t)) {
        out.push({ tokens: line });
        if (t.kind === 'eof') i--;
        break;
      }
      if (t.kind === 'punct' && t.text === '(') {
        const next = peek();
        if (isEol(next)) {
          out.push(parseBlock(line, t));
          break;
        }
        if (next.kind === 'punct' && next.text === ')') {
          i++;
          if (isEol(peek())) {
            // An empty block.
            if (peek().kind === 'eol') i++;
            out.push({ verb: line, lines: [] });
            break;
          }
          line.push(t, next);
          continue;
        }
      }
      line.push(t);
    }
  }
  return out;

  function parseBlock(verb: Token[], lparen: Token): Block {
    const block: Block = { verb, lines: [] };
    for (;;) {
      const t = peek();
      if (t.kind === 'eol') {
        i++;
        continue;
      }
      if (t.kind === 'eof') {
        throw new ModSyntaxError(
          t.line,
          t.column,
          `syntax error (unterminated block started at line ${verb[0]!.line}, column ${lparen.column})`,
        );
      }
      if (t.kind === 'punct' && t.text === ')') {
        i++;
        if (!isEol(peek())) throw new ModSyntaxError(peek().line, peek().column, 'syntax error (expected newline after closing paren)');
        if (peek().kind === 'eol') i++;
        return block;
      }
      const line: Token[] = [];
      while (!isEol(peek())) line.push(tokens[i++]!);
      block.lines.push({ tokens: line });
    }
  }
}

/** semver.IsValid of golang.org/x/mod: `v1`, `v1.2`, `v1.2.3`, with prerelease and build on the full form. */
const NUM = '(?:0|[1-9][0-9]*)';
const PRE_ID = `(?:${NUM}|[0-9]*[A-Za-z-][0-9A-Za-z-]*)`;
const SEMVER = new RegExp(
  `^v${NUM}(?:\\.${NUM}(?:\\.${NUM}(?:-${PRE_ID}(?:\\.${PRE_ID})*)?(?:\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?)?)?$`,
);
const GO_VERSION = /^([1-9][0-9]*)\.(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?([a-z]+[0-9]+)?$/;
const TOOLCHAIN = /^default$|^go1($|\.)/;
const GO_STRING = /^"(?:[^"\\\n]|\\(?:[abfnrtv\\"']|x[0-9a-fA-F]{2}|[0-7]{3}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}))*"$/;

class DirectiveError extends Error {}

/** parseString: a `"…"` Go string, or an unquoted token without quote characters. */
function str(tok: string): string {
  if (tok.startsWith('"')) {
    if (!GO_STRING.test(tok)) throw new DirectiveError(`invalid quoted string: ${tok}`);
    // Go's escapes JSON lacks become a space; what is left is a JSON string literal.
    const value: unknown = JSON.parse(tok.replace(/\\([abfv'])|\\x([0-9a-fA-F]{2})|\\([0-7]{3})|\\U([0-9a-fA-F]{8})/g, ' '));
    if (typeof value !== 'string') throw new DirectiveError(`invalid quoted string: ${tok}`);
    return value;
  }
  if (/["'`]/.test(tok)) throw new DirectiveError('invalid quoted string: unquoted string cannot contain quote');
  return tok;
}

function version(verb: string, path: string, tok: string): string {
  const v = str(tok);
  if (!SEMVER.test(v))
    throw new DirectiveError(`${[verb, path].filter(Boolean).join(' ')}: version "${v}" invalid: must be of the form v1.2.3`);
  return v;
}

/** module.SplitPathVersion: the `/vN` (or gopkg.in `.vN`) suffix, or an error for `/v0`, `/v1`, `/v01`. */
function pathMajor(path: string): string {
  if (path.startsWith('gopkg.in/')) {
    const m = /\.v(\d+)(-unstable)?$/.exec(path);
    if (!m || (m[1]!.startsWith('0') && m[1] !== '0')) throw new DirectiveError(`${path}: invalid module path`);
    return `.v${m[1]}${m[2] ?? ''}`;
  }
  const m = /\/v([0-9.]+)$/.exec(path);
  if (!m) return '';
  const digits = m[1]!;
  if (digits.includes('.') || digits.startsWith('0') || digits === '1') throw new DirectiveError(`${path}: invalid module path`);
  return `/v${digits}`;
}

function checkPathMajor(verb: string, path: string, v: string, major: string): void {
  let want = major.startsWith('.v') && major.endsWith('-unstable') ? major.slice(0, -'-unstable'.length) : major;
  if (v.startsWith('v0.0.0-') && want === '.v1') return;
  const m = /^v(\d+)/.exec(v)?.[0] ?? '';
  if (want === '') {
    if (m === 'v0' || m === 'v1' || v.endsWith('+incompatible')) return;
    want = 'v0 or v1';
  } else {
    if (m === want.slice(1)) return;
    want = want.slice(1);
  }
  throw new DirectiveError(`${verb} ${path}: version "${v}" invalid: should be ${want}, not ${m}`);
}

const isDirectoryPath = (ns: string) => ns === '.' || ns === '..' || /^(?:\.\.?[/\\]|[/\\]|[A-Za-z]:)/.test(ns);

function replace(verb: string, args: string[]): void {
  const arrow = args.length >= 2 && args[1] === '=>' ? 1 : 2;
  if (args.length < arrow + 2 || args.length > arrow + 3 || args[arrow] !== '=>')
    throw new DirectiveError(
      `usage: ${verb} module/path [v1.2.3] => other/module v1.4 or ${verb} module/path [v1.2.3] => ../local/directory`,
    );
  const s = str(args[0]!);
  const major = pathMajor(s);
  if (arrow === 2) checkPathMajor(verb, s, version(verb, s, args[1]!), major);
  const ns = str(args[arrow + 1]!);
  if (args.length === arrow + 2) {
    if (!isDirectoryPath(ns)) {
      if (ns.includes('@')) throw new DirectiveError("replacement module must match format 'path version', not 'path@version'");
      throw new DirectiveError('replacement module without version must be directory path (rooted or starting with . or ..)');
    }
    if (ns.includes('\\')) throw new DirectiveError('replacement directory appears to be Windows path (on a non-windows system)');
  } else {
    version(verb, ns, args[arrow + 2]!);
    if (isDirectoryPath(ns)) throw new DirectiveError(`replacement module directory path "${ns}" cannot have version`);
  }
}

function retract(args: string[]): void {
  let rest = args;
  if (rest.length === 0 || rest[0] === '(') throw new DirectiveError("expected '[' or version");
  if (rest[0] !== '[') {
    version('retract', '', rest[0]!);
    rest = rest.slice(1);
  } else {
    if (rest.length < 2) throw new DirectiveError("expected version after '['");
    version('retract', '', rest[1]!);
    if (rest[2] !== ',') throw new DirectiveError("expected ',' after version");
    if (rest.length < 4) throw new DirectiveError("expected version after ','");
    version('retract', '', rest[3]!);
    if (rest[4] !== ']') throw new DirectiveError("expected ']' after version");
    rest = rest.slice(5);
  }
  if (rest.length > 0) throw new DirectiveError(`unexpected token after version: ${JSON.stringify(rest[0])}`);
}

type FileKind = 'go.mod' | 'go.work';

const BLOCK_VERBS: Record<FileKind, Set<string>> = {
  'go.mod': new Set(['module', 'godebug', 'require', 'exclude', 'replace', 'retract', 'tool', 'ignore']),
  'go.work': new Set(['godebug', 'use', 'replace']),
};

interface State {
  kind: FileKind;
  seen: Set<string>;
  retracts: number;
}

function directive(state: State, verb: string, args: string[]): void {
  const once = (name: string) => {
    if (state.seen.has(name)) throw new DirectiveError(`repeated ${name} statement`);
    state.seen.add(name);
  };
  const one = (usage: string) => {
    if (args.length !== 1) throw new DirectiveError(usage);
    return str(args[0]!);
  };
  switch (verb) {
    case 'go':
      once('go');
      if (args.length !== 1) throw new DirectiveError('go directive expects exactly one argument');
      if (!GO_VERSION.test(args[0]!)) throw new DirectiveError(`invalid go version '${args[0]}': must match format 1.23.0`);
      return;
    case 'toolchain':
      once('toolchain');
      if (args.length !== 1) throw new DirectiveError('toolchain directive expects exactly one argument');
      if (!TOOLCHAIN.test(args[0]!))
        throw new DirectiveError(`invalid toolchain version '${args[0]}': must match format go1.23.0 or default`);
      return;
    case 'godebug':
      if (args.length !== 1 || /["`',]/.test(args[0]!) || !args[0]!.includes('=')) throw new DirectiveError('usage: godebug key=value');
      return;
    case 'replace':
      replace(verb, args);
      return;
  }
  if (state.kind === 'go.work') {
    if (verb === 'use') {
      one('usage: use local/dir');
      return;
    }
    throw new DirectiveError(`unknown directive: ${verb}`);
  }
  switch (verb) {
    case 'module':
      once('module');
      one('usage: module module/path');
      return;
    case 'require':
    case 'exclude': {
      if (args.length !== 2) throw new DirectiveError(`usage: ${verb} module/path v1.2.3`);
      const s = str(args[0]!);
      const v = version(verb, s, args[1]!);
      checkPathMajor(verb, s, v, pathMajor(s));
      return;
    }
    case 'retract':
      retract(args);
      state.retracts++;
      return;
    case 'tool':
      one('tool directive expects exactly one argument');
      return;
    case 'ignore':
      one('ignore directive expects exactly one argument');
      return;
    default:
      throw new DirectiveError(`unknown directive: ${verb}`);
  }
}

/** The first error of a go.mod (`kind` 'go.mod') or go.work file, as the go command reports it; null when it reads. */
export function checkGoMod(text: string, kind: FileKind): SyntaxProblem | null {
  let stmts: Stmt[];
  try {
    stmts = parse(lex(text));
  } catch (err) {
    if (err instanceof ModSyntaxError) return { line: err.line, column: err.column, message: err.message };
    throw err;
  }
  const state: State = { kind, seen: new Set(), retracts: 0 };
  let firstRetract: Token | null = null;
  const run = (at: Token, verb: string, args: string[]): SyntaxProblem | null => {
    try {
      directive(state, verb, args);
      if (verb === 'retract') firstRetract ??= at;
      return null;
    } catch (err) {
      if (err instanceof DirectiveError) return { line: at.line, column: at.column, message: err.message };
      throw err;
    }
  };
  for (const s of stmts) {
    if (isBlock(s)) {
      const head = s.verb[0]!;
      if (s.verb.length > 1 || !BLOCK_VERBS[kind].has(head.text)) {
        return { line: head.line, column: head.column, message: `unknown block type: ${s.verb.map((t) => t.text).join(' ')}` };
      }
      for (const l of s.lines) {
        const problem = run(
          l.tokens[0]!,
          head.text,
          l.tokens.map((t) => t.text),
        );
        if (problem) return problem;
      }
    } else {
      const [verb, ...rest] = s.tokens;
      if (!verb) continue; // a statement always has its first token
      const problem = run(
        verb,
        verb.text,
        rest.map((t) => t.text),
      );
      if (problem) return problem;
    }
  }
  // The go command checks retractions against the module path, which may come after them.
  const retracted = firstRetract as Token | null; // cast: assigned inside the closure above, which flow analysis does not follow
  if (kind === 'go.mod' && retracted && !state.seen.has('module'))
    return { line: retracted.line, column: retracted.column, message: 'no module directive found, so retract cannot be used' };
  return null;
}
