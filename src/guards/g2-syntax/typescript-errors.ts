import type * as TS from 'typescript';
import type { LangId } from '../../repo/languages.js';
import type { SyntaxProblem } from './config-parsers.js';

type ScriptLang = Extract<LangId, 'javascript' | 'typescript' | 'tsx'>;

/**
 * The TypeScript compiler is large: it is loaded on the first JS/TS file G2 sees, once. Imported from ESM, its
 * CommonJS build hangs everything off `default`.
 */
const importCompiler = () => import('typescript');
type Compiler = Awaited<ReturnType<typeof importCompiler>>['default'];
let compiler: Promise<Compiler> | null = null;
function loadCompiler(): Promise<Compiler> {
  compiler ??= importCompiler().then((m) => m.default);
  return compiler;
}

/** File names only choose the script kind; nothing is read from or written to disk. */
const FILE_NAME: Record<ScriptLang, string> = { javascript: 'input.js', typescript: 'input.ts', tsx: 'input.tsx' };

export const isScriptLang = (lang: LangId): lang is ScriptLang => lang === 'javascript' || lang === 'typescript' || lang === 'tsx';

/**
 * Syntactic diagnostics of one file, the way `tsc` reports them: the parser's errors, plus for
 * JavaScript the TypeScript-only syntax a `.js` file may not contain (type annotations, `enum`, …).
 * A one-file program without lib or module resolution: no type checking happens.
 */
function syntacticDiagnostics(
  ts: Compiler,
  lang: ScriptLang,
  text: string,
): { file: TS.SourceFile; diagnostics: readonly TS.Diagnostic[] } {
  const fileName = FILE_NAME[lang];
  const kind = lang === 'javascript' ? ts.ScriptKind.JS : lang === 'tsx' ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, kind);
  const host: TS.CompilerHost = {
    getSourceFile: (name) => (name === fileName ? file : undefined),
    getDefaultLibFileName: () => 'lib.d.ts',
    writeFile: () => undefined,
    getCurrentDirectory: () => '/',
    getCanonicalFileName: (name) => name,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (name) => name === fileName,
    readFile: () => undefined,
  };
  const program = ts.createProgram({ rootNames: [fileName], options: { allowJs: true, noLib: true, noResolve: true, types: [] }, host });
  return { file, diagnostics: program.getSyntacticDiagnostics(file) };
}

/** The last opening bracket before `offset` whose node has no closing bracket after it. */
function unclosedOpener(file: TS.SourceFile, offset: number, open: TS.SyntaxKind, close: TS.SyntaxKind): TS.Node | null {
  let found: TS.Node | null = null;
  const visit = (node: TS.Node): void => {
    if (node.pos > offset) return;
    const children = node.getChildren(file);
    const at = children.findIndex((c) => c.kind === open);
    const opener = at >= 0 ? children[at]! : null;
    if (opener && opener.pos <= offset && !children.slice(at + 1).some((c) => c.kind === close)) {
      if (!found || opener.pos >= found.pos) found = opener;
    }
    for (const child of children) visit(child);
  };
  visit(file);
  return found;
}

const BRACKETS: Record<
  string,
  [string, 'OpenBraceToken' | 'OpenParenToken' | 'OpenBracketToken', 'CloseBraceToken' | 'CloseParenToken' | 'CloseBracketToken']
> = {
  '}': ['{', 'OpenBraceToken', 'CloseBraceToken'],
  ')': ['(', 'OpenParenToken', 'CloseParenToken'],
  ']': ['[', 'OpenBracketToken', 'CloseBracketToken'],
};

/** `'}' expected` → "missing `}` to close the `{` opened on line N" (the compiler's note, or the unclosed token). */
function missingCloser(ts: Compiler, d: TS.Diagnostic, message: string, file: TS.SourceFile): string | null {
  const expected = /^'([)\]}])' expected\.$/.exec(message);
  if (!expected) return null;
  const closer = expected[1]!;
  const [opener, openKind, closeKind] = BRACKETS[closer]!;
  const note = d.relatedInformation?.find((r) => r.start !== undefined && r.file === file);
  const openAt =
    note?.start ?? unclosedOpener(file, d.start ?? file.text.length, ts.SyntaxKind[openKind], ts.SyntaxKind[closeKind])?.getStart(file);
  if (openAt === undefined) return `missing \`${closer}\``;
  const line = file.getLineAndCharacterOfPosition(openAt).line + 1;
  return `missing \`${closer}\` to close the \`${opener}\` opened on line ${line}`;
}

/** A position past the last line (errors at end of file) is reported at the end of the last line. */
function position(file: TS.SourceFile, offset: number): { line: number; column: number } {
  const lines = file.getLineStarts();
  let { line, character } = file.getLineAndCharacterOfPosition(offset);
  if (line > 0 && line === lines.length - 1 && offset >= file.text.length && file.text.length === lines[line]) {
    line -= 1;
    character = file.text.slice(lines[line], lines[line + 1]).replace(/\r?\n$/, '').length;
  }
  return { line: line + 1, column: character + 1 };
}

/**
 * JavaScript, TypeScript and TSX are checked with the TypeScript compiler's parser, the reference for
 * this syntax (tree-sitter's grammars lag behind it). Null when the file parses cleanly.
 */
export async function checkScript(lang: ScriptLang, text: string): Promise<SyntaxProblem | null> {
  const ts = await loadCompiler();
  const { file, diagnostics } = syntacticDiagnostics(ts, lang, text);
  const located = diagnostics.flatMap((d) => (d.start === undefined ? [] : [{ d, start: d.start }]));
  const earliest = located.sort((a, b) => a.start - b.start)[0];
  if (!earliest)
    return diagnostics.length ? { line: 1, column: 1, message: ts.flattenDiagnosticMessageText(diagnostics[0]!.messageText, ' ') } : null;
  const first = earliest.d;
  const raw = ts.flattenDiagnosticMessageText(first.messageText, ' ');
  const message = missingCloser(ts, first, raw, file) ?? `${raw.replace(/\.$/, '')} (TS${first.code})`;
  return { ...position(file, earliest.start), message };
}
