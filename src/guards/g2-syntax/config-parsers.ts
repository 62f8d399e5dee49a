import * as jsonc from 'jsonc-parser';
import { parse as parseToml, TomlError } from 'smol-toml';
import { parseAllDocuments } from 'yaml';
import type { ConfigKind } from './file-kinds.js';

/** The first syntax error of a file: 1-based position and the parser's explanation in plain words. */
export interface SyntaxProblem {
  line: number;
  column: number;
  message: string;
  /** A replacement for line `line` when the fix is certain (e.g. quoting a bare TOML string). */
  fixedLine?: string;
}

function lineColOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

function lineAt(text: string, line: number): string {
  return text.split(/\r?\n/)[line - 1] ?? '';
}

const TOML_KEYWORDS = new Set(['true', 'false', 'inf', 'nan']);

function checkToml(text: string): SyntaxProblem | null {
  try {
    parseToml(text);
    return null;
  } catch (err) {
    if (!(err instanceof TomlError)) throw err;
    const reason = err.message.split('\n')[0]!.replace(/^Invalid TOML document:\s*/, '');
    const source = lineAt(text, err.line);
    const bare = /^(\s*)([A-Za-z0-9_.-]+|"[^"]*")\s*=\s*([A-Za-z_][A-Za-z0-9_.\-/:@+]*)\s*(#.*)?$/.exec(source);
    if (bare && !TOML_KEYWORDS.has(bare[3]!.toLowerCase())) {
      const comment = bare[4] ? ` ${bare[4]}` : '';
      return {
        line: err.line,
        column: err.column,
        message: `the value \`${bare[3]}\` is not quoted; TOML strings need double quotes (\`${bare[2]} = "${bare[3]}"\`)`,
        fixedLine: `${bare[1]}${bare[2]} = "${bare[3]}"${comment}`,
      };
    }
    return { line: err.line, column: err.column, message: reason };
  }
}

const JSON_ERROR_WORDS: Partial<Record<jsonc.ParseErrorCode, string>> = {
  [jsonc.ParseErrorCode.InvalidSymbol]: 'unexpected character (JSON needs double-quoted strings and keys, and no NaN/undefined)',
  [jsonc.ParseErrorCode.InvalidNumberFormat]: 'malformed number',
  [jsonc.ParseErrorCode.PropertyNameExpected]: 'expected a property name in double quotes',
  [jsonc.ParseErrorCode.ValueExpected]: 'expected a value',
  [jsonc.ParseErrorCode.ColonExpected]: 'expected `:` after the property name',
  [jsonc.ParseErrorCode.CommaExpected]: 'expected `,` between items',
  [jsonc.ParseErrorCode.CloseBraceExpected]: 'an object is not closed (expected `}`)',
  [jsonc.ParseErrorCode.CloseBracketExpected]: 'an array is not closed (expected `]`)',
  [jsonc.ParseErrorCode.EndOfFileExpected]: 'unexpected content after the end of the document',
  [jsonc.ParseErrorCode.InvalidCommentToken]: 'comments are not allowed in plain JSON',
  [jsonc.ParseErrorCode.UnexpectedEndOfComment]: 'a `/*` comment is never closed',
  [jsonc.ParseErrorCode.UnexpectedEndOfString]: 'a string is never closed',
  [jsonc.ParseErrorCode.UnexpectedEndOfNumber]: 'a number is cut off',
  [jsonc.ParseErrorCode.InvalidUnicode]: 'invalid \\u escape',
  [jsonc.ParseErrorCode.InvalidEscapeCharacter]: 'invalid escape sequence in a string',
  [jsonc.ParseErrorCode.InvalidCharacter]: 'a control character (such as a raw tab or newline) inside a string',
};

/** A `,` right before `}` or `]` (only whitespace between): the trailing-comma mistake. */
function trailingComma(text: string, offset: number): number | null {
  const ch = text[offset];
  if (ch !== '}' && ch !== ']') return null;
  let i = offset - 1;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  return text[i] === ',' ? i : null;
}

function checkJson(text: string, comments: boolean): SyntaxProblem | null {
  if (!comments) {
    try {
      JSON.parse(text);
      return null;
    } catch {
      // locate the error below
    }
  } else if (text.trim() === '') return null;
  const errors: jsonc.ParseError[] = [];
  jsonc.parse(text, errors, { allowTrailingComma: comments, disallowComments: !comments, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return comments ? null : { line: 1, column: 1, message: 'not valid JSON' };
  const comma = trailingComma(text, first.offset);
  if (comma !== null && !comments) {
    const at = lineColOf(text, comma);
    const source = lineAt(text, at.line);
    const fix = source.slice(at.column).trim() === '' ? source.slice(0, at.column - 1) : undefined;
    return {
      ...at,
      message: `trailing comma before \`${text[first.offset]}\`: JSON does not allow a comma after the last item`,
      ...(fix !== undefined ? { fixedLine: fix } : {}),
    };
  }
  const words = JSON_ERROR_WORDS[first.error] ?? jsonc.printParseErrorCode(first.error);
  const hint =
    first.error === jsonc.ParseErrorCode.InvalidCommentToken
      ? ' (this file is read as strict JSON; only known comment-tolerant files such as tsconfig.json may have comments)'
      : '';
  return { ...lineColOf(text, first.offset), message: `${words}${hint}` };
}

/** " (line 6 is indented by 3 spaces, line 5 by 4: …)" when the error line's indentation differs from the line above. */
function indentHint(text: string, line: number): string {
  const lines = text.split(/\r?\n/);
  const indent = (s: string) => s.length - s.replace(/^ +/, '').length;
  const here = lines[line - 1];
  if (here === undefined || here.trim() === '') return '';
  let above = line - 1;
  while (above >= 1 && (lines[above - 1] ?? '').trim() === '') above--;
  if (above < 1) return '';
  const a = indent(lines[above - 1]!);
  const h = indent(here);
  if (a === h) return '';
  return ` (line ${line} is indented by ${h} space${h === 1 ? '' : 's'}, line ${above} by ${a}: check the indentation)`;
}

function checkYaml(text: string): SyntaxProblem | null {
  for (const doc of parseAllDocuments(text, { merge: true })) {
    const err = doc.errors[0];
    if (!err) continue;
    const pos = err.linePos?.[0] ?? lineColOf(text, err.pos[0]);
    const col = 'col' in pos ? pos.col : pos.column;
    const reason = err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    return { line: pos.line, column: col, message: `${reason}${indentHint(text, pos.line)}` };
  }
  return null;
}

/** A YAML file that is a text template (Helm, gomplate): lines starting with `{{`. Not YAML until rendered. */
export function isTemplatedYaml(text: string): boolean {
  return /^\s*\{\{/m.test(text);
}

/** Parses a config file; null when it parses. */
export function checkConfig(kind: ConfigKind, text: string): SyntaxProblem | null {
  switch (kind) {
    case 'toml':
      return checkToml(text);
    case 'json':
      return checkJson(text, false);
    case 'jsonc':
      return checkJson(text, true);
    case 'yaml':
      return checkYaml(text);
    case 'json-or-yaml':
      return /^\s*[{[]/.test(text) ? checkJson(text, true) : checkYaml(text);
  }
}
