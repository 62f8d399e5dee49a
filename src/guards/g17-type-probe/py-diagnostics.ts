import { isAddedLine, type ChangedFile } from '../../core/patch-set.js';
import type { PyrightDiagnostic } from './pyright-run.js';

/**
 * Which of pyright's errors are invented APIs (a member or a call that does not exist), what they are
 * about, how sure the probe is, and where the finding goes. Unresolved imports, Optional access and
 * type mismatches are never kept: the first only means a dependency is not installed, the others are
 * questions of narrowing and annotations, not of a member that is not there.
 */

/** The rules kept: a member that does not exist, a call that cannot work, an attribute a function does not have. */
export const PROBED_RULES = new Set(['reportAttributeAccessIssue', 'reportCallIssue', 'reportFunctionMemberAccess']);

/** Classes of builtin values whose members no code can extend (`dict`, `list[int]`, `Literal['x']`). */
const BUILTINS = new Set(['dict', 'list', 'str', 'int', 'float', 'bool', 'bytes', 'bytearray', 'tuple', 'set', 'frozenset', 'complex']);

/** A kept error: what it says, what it is about, and the class pyright names. */
export interface PyProbeError extends PyrightDiagnostic {
  kind: 'attribute' | 'module-attribute' | 'call' | 'function-attribute';
  /** The name the error is about: the receiver of the member, or the callee (its last identifier); null when not a plain name. */
  subject: string | null;
  /** The class pyright names for the receiver (`dict`, `Merger`), without type arguments; null when none. */
  className: string | null;
  /** The member that does not exist (attribute kinds). */
  member: string | null;
}

/** pyright's message on one line, its indentation (non-breaking spaces) removed. */
export const oneLine = (message: string) =>
  message
    .split('\n')
    .map((l) => l.replace(/^[\s\u00a0]+/, ''))
    .filter(Boolean)
    .join('; ');

/** `Literal['x']` → str; `dict[str, int]` → dict; `type[Foo]` → Foo. */
function baseClass(name: string): string {
  const lit = /^Literal\[(.*)\]$/.exec(name);
  if (lit) {
    const v = lit[1]!.trim();
    if (/^b['"]/.test(v)) return 'bytes';
    if (/^['"]/.test(v)) return 'str';
    if (/^(?:True|False)\b/.test(v)) return 'bool';
    if (/^-?\d/.test(v)) return 'int';
    return name;
  }
  const type = /^type\[(.*)\]$/.exec(name);
  return (type ? type[1]! : name).replace(/\[.*$/, '').trim();
}

/** The last identifier of the dotted name right before `column` on `line` (`self.merger.` → `merger`). */
function receiverBefore(lineText: string, column: number): string | null {
  const m = /([A-Za-z_][\w.]*?)\s*\.\s*$/.exec(lineText.slice(0, column));
  return m ? (m[1]!.split('.').pop() ?? null) : null;
}

/** The callee of the call the range at (line, column) belongs to: the name before the unmatched `(` (or at the range). */
function calleeAt(lines: readonly string[], line: number, column: number): string | null {
  const at = /^([A-Za-z_][\w.]*)\s*\(/.exec((lines[line - 1] ?? '').slice(column));
  if (at) return at[1]!.split('.').pop() ?? null;
  let depth = 0;
  for (let l = line; l >= Math.max(1, line - 30); l--) {
    const text = lines[l - 1] ?? '';
    for (let c = (l === line ? column : text.length) - 1; c >= 0; c--) {
      const ch = text[c];
      if (ch === ')' || ch === ']' || ch === '}') depth++;
      else if (ch === '[' || ch === '{') depth--;
      else if (ch === '(') {
        if (depth === 0) {
          const m = /([A-Za-z_][\w.]*)\s*$/.exec(text.slice(0, c));
          return m ? (m[1]!.split('.').pop() ?? null) : null;
        }
        depth--;
      }
    }
  }
  return null;
}

/** Whether the attribute at (line, column) is assigned or deleted rather than read (legal at run time on most objects). */
function isWrite(lineText: string, column: number, member: string): boolean {
  const after = lineText.slice(column + member.length);
  return /^\s*(?:[-+*/%&|^@]|\/\/|\*\*|<<|>>)?=(?!=)/.test(after) || /^\s*del\b/.test(lineText);
}

/**
 * Whether the file asks at run time whether `subject` has `member` (`hasattr(stream, "buffer")`): the
 * code then expects values with and without it, and pyright's view of one of them is no invented API.
 */
function checksFor(text: string, subject: string, member: string): boolean {
  return new RegExp(`hasattr\\(\\s*(?:[\\w.]*\\.)?${subject}\\s*,\\s*['"]${member}['"]`).test(text);
}

/**
 * The errors of the probed kinds in `diagnostics` whose subject is clear, with their subject. `texts`
 * are the head texts of the checked files; `treeModule` says whether a dotted module is the tree's own.
 */
export function probedErrors(
  diagnostics: readonly PyrightDiagnostic[],
  texts: ReadonlyMap<string, string>,
  treeModule: (module: string) => boolean,
): PyProbeError[] {
  const out: PyProbeError[] = [];
  for (const d of diagnostics) {
    if (!PROBED_RULES.has(d.rule)) continue;
    const text = texts.get(d.path);
    if (text === undefined) continue;
    const lines = text.split('\n');
    const lineText = lines[d.line - 1] ?? '';
    const first = d.message.split('\n')[0]!;
    const access = /^Cannot access attribute "(\w+)" for class "(.+)"$/.exec(first);
    const moduleAttr = /^"(\w+)" is not a known attribute of module "([\w.]+)"$/.exec(first);
    if (d.rule === 'reportCallIssue') {
      out.push({ ...d, kind: 'call', subject: calleeAt(lines, d.line, d.column), className: null, member: null });
    } else if (access) {
      const member = access[1]!;
      if (isWrite(lineText, d.column, member)) continue;
      const subject = receiverBefore(lineText, d.column);
      if (subject && checksFor(text, subject, member)) continue;
      const kind = d.rule === 'reportFunctionMemberAccess' ? 'function-attribute' : 'attribute';
      const cls = baseClass(access[2]!);
      out.push({ ...d, kind, subject, className: /^[\w.]+$/.test(cls) ? cls : null, member });
    } else if (moduleAttr && treeModule(moduleAttr[2]!)) {
      // a module of the tree: a third-party one may be known only from bundled stubs that lag behind the package
      out.push({ ...d, kind: 'module-attribute', subject: receiverBefore(lineText, d.column), className: null, member: moduleAttr[1]! });
    }
  }
  return out;
}

/** One declaration of `name` in a file: its first line and its last (the block or statement it opens). */
export interface PyDeclaration {
  path: string;
  line: number;
  endLine: number;
  /** The declaring line's text. */
  text: string;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const indentOf = (s: string) => s.length - s.trimStart().length;

/** The lines of the statement or block starting at `line`: deeper-indented, blank or closing-bracket lines after it. */
function blockEnd(lines: readonly string[], line: number): number {
  const indent = indentOf(lines[line - 1] ?? '');
  let end = line;
  for (let l = line + 1; l <= lines.length; l++) {
    const t = lines[l - 1]!;
    if (t.trim() === '') continue;
    if (indentOf(t) > indent || /^\s*[)\]}]/.test(t)) end = l;
    else break;
  }
  return end;
}

/** Every declaration of `name` in `text`: `def name(`, `class name`, `name = …`, `self.name = …` (annotated or not). */
export function declarationsOf(name: string, path: string, text: string): PyDeclaration[] {
  const n = escape(name);
  const re = new RegExp(`^\\s*(?:(?:async\\s+)?def\\s+${n}\\s*[([]|class\\s+${n}\\b|(?:self\\.)?${n}\\s*(?::[^=\\n]+)?=(?!=))`);
  const lines = text.split('\n');
  const out: PyDeclaration[] = [];
  lines.forEach((t, i) => {
    if (re.test(t)) out.push({ path, line: i + 1, endLine: blockEnd(lines, i + 1), text: t });
  });
  return out;
}

/** The first line of `decl` the pull request added, or null. */
export function addedLineIn(file: ChangedFile, decl: PyDeclaration): number | null {
  for (let l = decl.line; l <= decl.endLine; l++) if (isAddedLine(file, l)) return l;
  return null;
}

/** A value literal of a builtin class on the right of `=` (`{…}` is a dict or a set, `[…]` a list, quotes a str). */
function literalClass(declText: string): string | null {
  const rhs = /=\s*(.*)$/.exec(declText)?.[1]?.trim() ?? '';
  if (rhs.startsWith('{')) return 'dict|set';
  if (rhs.startsWith('[')) return 'list';
  if (/^[rRuUfF]?['"]/.test(rhs)) return 'str';
  if (/^[bB][rR]?['"]/.test(rhs)) return 'bytes';
  if (/^(?:True|False)\b/.test(rhs)) return 'bool';
  if (/^-?\d+(?:\s|$|#)/.test(rhs)) return 'int';
  const call = /^(dict|list|set|frozenset|tuple|str|int|float|bytes|bytearray)\(/.exec(rhs);
  return call ? call[1]! : null;
}

/**
 * Whether the receiver is certainly of the class pyright names, so that the member cannot exist at run
 * time: its only assignment in its file makes a builtin literal of that class (`x = {…}` for a dict),
 * or an instance of a class the tree declares once (`x = Merger(…)`); or it is that class itself.
 * `classes` counts the tree's `class X` declarations by name. Anything else (a parameter, a union, a
 * value from a call) is a risk: pyright may know the declared type and the code a narrower one.
 */
export function isCertain(
  e: PyProbeError,
  decls: readonly PyDeclaration[],
  classes: ReadonlyMap<string, number>,
  dynamic: boolean,
): boolean {
  if (e.kind !== 'attribute' || !e.className || !e.subject) return false;
  const cls = e.className;
  if (!BUILTINS.has(cls) && (classes.get(cls) !== 1 || dynamic)) return false;
  if (e.subject === cls) return !BUILTINS.has(cls);
  if (decls.length !== 1) return false;
  const decl = decls[0]!.text;
  if (BUILTINS.has(cls)) {
    return literalClass(decl)?.split('|').includes(cls) ?? false;
  }
  return new RegExp(`=\\s*${escape(cls)}\\s*\\(`).test(decl);
}
