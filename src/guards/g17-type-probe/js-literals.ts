import type * as TS from 'typescript';
import type { CheckBudget, ProbeError } from './diagnostics.js';
import { treePath, type Compiler } from './program.js';

/**
 * Members read from a JavaScript object literal that does not have them. The compiler treats an object
 * literal in a `.js` file as open (more members may be assigned later), so `merger.merge()` on
 * `const merger = { combine }` is no error there. This pass reports it when the program shows that nothing
 * can add the member: the value is one `const` initialised by an object literal that lists every key
 * (no spread, getter, `__proto__`, computed key or `this`), and every use of it in the program's tree
 * files is a plain member read (never written, deleted, passed, returned, destructured or re-exported as a
 * value).
 */

const JAVASCRIPT = /\.[cm]?jsx?$/;

/** What every object has through Object.prototype: reading it is never an invented API. */
const OBJECT_PROTOTYPE: ReadonlySet<string> = new Set([
  'constructor',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  'toString',
  'valueOf',
  '__proto__',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);

/** Distinct literals whose uses are scanned per program (each scan reads every tree file of the program once). */
const MAX_LITERALS = 20;

/** The compiler code these findings stand in for: a property that does not exist. */
export const JS_LITERAL_CODE = 2339;

/** The evidence's `compilerCode` for these findings: the compiler itself reports nothing here. */
export const JS_LITERAL_EVIDENCE_CODE = 'js-object-literal';

/** The key G17 compares base and head on: no line numbers, the declared name and the member. */
export const jsLiteralText = (declaredName: string, member: string) =>
  `Property '${member}' does not exist on the object literal that '${declaredName}' is declared with.`;

interface Literal {
  decl: TS.VariableDeclaration;
  name: string;
  keys: ReadonlySet<string>;
}

/** The object literal `symbol` is, when it is one closed `const` of a JavaScript file of the tree; else null. */
function closedLiteral(ts: Compiler, symbol: TS.Symbol): Literal | null {
  const decls = symbol.declarations ?? [];
  if (decls.length !== 1) return null;
  const decl = decls[0]!;
  if (!ts.isVariableDeclaration(decl) || !ts.isIdentifier(decl.name) || decl.type || !decl.initializer) return null;
  if (!ts.isVariableDeclarationList(decl.parent) || !(decl.parent.flags & ts.NodeFlags.Const)) return null;
  const file = decl.getSourceFile();
  const path = treePath(file.fileName);
  if (path === null || !JAVASCRIPT.test(path) || ts.getJSDocType(decl)) return null;
  const init = decl.initializer;
  if (!ts.isObjectLiteralExpression(init)) return null;
  const keys = new Set<string>();
  for (const p of init.properties) {
    if (!ts.isPropertyAssignment(p) && !ts.isShorthandPropertyAssignment(p) && !ts.isMethodDeclaration(p)) return null;
    const n = p.name;
    if (!ts.isIdentifier(n) && !ts.isStringLiteral(n) && !ts.isNumericLiteral(n) && !ts.isNoSubstitutionTemplateLiteral(n)) return null;
    if (n.text === '__proto__') return null;
    keys.add(n.text);
  }
  // A method that assigns to `this` can add members when it is called: leave any literal that uses `this`.
  const usesThis = (node: TS.Node): boolean => node.kind === ts.SyntaxKind.ThisKeyword || !!ts.forEachChild(node, usesThis);
  return usesThis(init) ? null : { decl, name: decl.name.text, keys };
}

/** True when the member access `access` is written (assigned, updated, deleted or a destructuring target). */
function written(ts: Compiler, access: TS.Expression): boolean {
  const parent = access.parent;
  if (ts.isDeleteExpression(parent)) return true;
  if (ts.isPrefixUnaryExpression(parent) || ts.isPostfixUnaryExpression(parent))
    return parent.operator === ts.SyntaxKind.PlusPlusToken || parent.operator === ts.SyntaxKind.MinusMinusToken;
  // climb through a destructuring pattern (`[x.a] = …`, `({ k: x.a } = …)`) to what it is the target of
  let n: TS.Node = access;
  while (
    ts.isArrayLiteralExpression(n.parent) ||
    ts.isSpreadElement(n.parent) ||
    ts.isSpreadAssignment(n.parent) ||
    ts.isObjectLiteralExpression(n.parent) ||
    ts.isParenthesizedExpression(n.parent) ||
    (ts.isPropertyAssignment(n.parent) && n.parent.initializer === n) ||
    (ts.isShorthandPropertyAssignment(n.parent) && n.parent.objectAssignmentInitializer === n)
  )
    n = n.parent;
  const top = n.parent;
  if (ts.isBinaryExpression(top) && top.left === n) {
    const op = top.operatorToken.kind;
    return op >= ts.SyntaxKind.FirstAssignment && op <= ts.SyntaxKind.LastAssignment;
  }
  return (ts.isForInStatement(top) || ts.isForOfStatement(top)) && top.initializer === n;
}

/**
 * True when the read asks whether the key is there (`typeof x.y`, `x.y?.()`, `x.y ?? d`, `x.y || d`,
 * `x.y && …`, `!x.y`, `if (x.y)`, `x.y ? a : b`): code that expects the key to be missing at times.
 */
function asksPresence(ts: Compiler, access: TS.Expression): boolean {
  let n: TS.Node = access;
  while (ts.isParenthesizedExpression(n.parent)) n = n.parent;
  const p = n.parent;
  if (ts.isTypeOfExpression(p)) return true;
  if (ts.isCallExpression(p) && p.expression === n && p.questionDotToken) return true;
  if (ts.isPrefixUnaryExpression(p) && p.operator === ts.SyntaxKind.ExclamationToken) return true;
  if (ts.isBinaryExpression(p)) {
    const op = p.operatorToken.kind;
    return (
      op === ts.SyntaxKind.QuestionQuestionToken ||
      op === ts.SyntaxKind.BarBarToken ||
      op === ts.SyntaxKind.AmpersandAmpersandToken ||
      op === ts.SyntaxKind.QuestionQuestionEqualsToken ||
      op === ts.SyntaxKind.BarBarEqualsToken ||
      op === ts.SyntaxKind.AmpersandAmpersandEqualsToken
    );
  }
  if (ts.isConditionalExpression(p) && p.condition === n) return true;
  return (ts.isIfStatement(p) || ts.isWhileStatement(p) || ts.isDoStatement(p)) && p.expression === n;
}

/** How a literal is used across the program: whether only read, and whether it leaves its own file. */
interface Uses {
  readOnly: boolean;
  escapes: boolean;
}

class LiteralUses {
  private readonly cache = new Map<TS.Symbol, Uses>();
  private readonly files: readonly TS.SourceFile[];

  constructor(
    private readonly ts: Compiler,
    private readonly checker: TS.TypeChecker,
    program: TS.Program,
    private readonly budget: CheckBudget,
  ) {
    this.files = program.getSourceFiles().filter((f) => treePath(f.fileName) !== null);
  }

  /** The literal's symbol, following an import to what it names. */
  resolve(node: TS.Node): TS.Symbol | undefined {
    const ts = this.ts;
    const parent = node.parent;
    const symbol =
      ts.isShorthandPropertyAssignment(parent) && parent.name === node
        ? this.checker.getShorthandAssignmentValueSymbol(parent)
        : this.checker.getSymbolAtLocation(node);
    return symbol && symbol.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(symbol) : symbol;
  }

  /** Every local name the literal may go by: its own, and what imports and re-exports rename it to. */
  private names(first: string): Set<string> {
    const ts = this.ts;
    const names = new Set([first]);
    const specifiers: (TS.ImportSpecifier | TS.ExportSpecifier)[] = [];
    const visit = (node: TS.Node): void => {
      if (ts.isImportSpecifier(node) || ts.isExportSpecifier(node)) specifiers.push(node);
      else ts.forEachChild(node, visit);
    };
    for (const f of this.files) ts.forEachChild(f, visit);
    for (let grew = true; grew;) {
      grew = false;
      for (const s of specifiers) {
        if (names.has((s.propertyName ?? s.name).text) && !names.has(s.name.text)) {
          names.add(s.name.text);
          grew = true;
        }
      }
    }
    return names;
  }

  /** How `symbol` (the literal `lit`) is used; null once the budget is spent. */
  of(symbol: TS.Symbol, lit: Literal): Uses | null {
    const known = this.cache.get(symbol);
    if (known) return known;
    if (this.cache.size >= MAX_LITERALS) return null;
    const ts = this.ts;
    const names = this.names(lit.name);
    const home = lit.decl.getSourceFile();
    const statement = lit.decl.parent.parent;
    const uses: Uses = {
      readOnly: true,
      escapes: ts.isVariableStatement(statement) && !!(ts.getCombinedModifierFlags(lit.decl) & ts.ModifierFlags.Export),
    };
    const use = (id: TS.Identifier): void => {
      if (id === lit.decl.name || this.resolve(id) !== symbol) return;
      const parent = id.parent;
      if (ts.isImportSpecifier(parent) || ts.isImportClause(parent) || ts.isNamespaceImport(parent)) return;
      if (ts.isExportSpecifier(parent)) {
        uses.escapes = true;
        return;
      }
      if (id.getSourceFile() !== home) uses.escapes = true;
      // `ns.merger` through a namespace import is the literal too
      const ref: TS.Expression = ts.isPropertyAccessExpression(parent) && parent.name === id ? parent : id;
      const access = ref.parent;
      const read =
        (ts.isPropertyAccessExpression(access) || ts.isElementAccessExpression(access)) &&
        access.expression === ref &&
        !written(ts, access);
      if (!read) uses.readOnly = false;
    };
    const visit = (node: TS.Node): void => {
      if (!uses.readOnly) return;
      if (ts.isIdentifier(node)) {
        if (names.has(node.text)) use(node);
        return;
      }
      ts.forEachChild(node, visit);
    };
    for (const f of this.files) {
      this.budget.token.throwIfCancellationRequested();
      ts.forEachChild(f, visit);
      if (!uses.readOnly) break;
    }
    this.cache.set(symbol, uses);
    return uses;
  }
}

const lineOf = (sf: TS.SourceFile, pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;

/**
 * The member reads of `paths` (virtual name → repo path; only JavaScript files are looked at) that name a
 * key the object literal they read from does not have, where nothing in the program can add it. `certain`:
 * the literal is declared in the same file, not exported and used nowhere else, and the member is called
 * (`x.y()` throws a TypeError; a plain read only yields undefined).
 */
export function jsLiteralErrors(ts: Compiler, program: TS.Program, paths: Iterable<[string, string]>, budget: CheckBudget): ProbeError[] {
  const checker = program.getTypeChecker();
  const uses = new LiteralUses(ts, checker, program, budget);
  const out: ProbeError[] = [];
  for (const [virtual, path] of paths) {
    if (!JAVASCRIPT.test(path)) continue;
    const sf = program.getSourceFile(virtual);
    if (!sf) continue;
    budget.token.throwIfCancellationRequested();
    const asked = new Map<TS.Symbol, Set<string>>();
    const found: { symbol: TS.Symbol; error: ProbeError }[] = [];
    const visit = (node: TS.Node): void => {
      ts.forEachChild(node, visit);
      if (!ts.isPropertyAccessExpression(node) || !ts.isIdentifier(node.name)) return;
      const member = node.name.text;
      if (OBJECT_PROTOTYPE.has(member) || node.questionDotToken || written(ts, node)) return;
      const ref = node.expression;
      const id = ts.isIdentifier(ref) ? ref : ts.isPropertyAccessExpression(ref) && ts.isIdentifier(ref.name) ? ref.name : null;
      if (!id) return;
      const symbol = uses.resolve(id);
      if (!symbol) return;
      // a file that asks whether the key is there (`if (x.y) x.y()`) expects it to be missing at times
      if (asksPresence(ts, node)) {
        asked.set(symbol, (asked.get(symbol) ?? new Set()).add(member));
        return;
      }
      const lit = closedLiteral(ts, symbol);
      if (!lit || lit.keys.has(member)) return;
      // whatever the compiler knows of the value (a member assigned to it, a declared type) has the last word
      const type = checker.getTypeAtLocation(ref);
      if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown) || checker.getPropertyOfType(type, member)) return;
      const used = uses.of(symbol, lit);
      if (!used?.readOnly) return;
      const declFile = lit.decl.getSourceFile();
      const declPath = treePath(declFile.fileName);
      if (declPath === null) return;
      const call = node.parent;
      const called = ts.isCallExpression(call) && call.expression === node && !call.questionDotToken;
      found.push({
        symbol,
        error: {
          path,
          line: lineOf(sf, node.name.getStart(sf)),
          code: JS_LITERAL_CODE,
          text: jsLiteralText(lit.name, member),
          receiver: ref.getText(sf).replace(/\s+/g, ' '),
          declared: {
            path: declPath,
            line: lineOf(declFile, lit.decl.parent.parent.getStart(declFile)),
            endLine: lineOf(declFile, lit.decl.end),
          },
          certain: declPath === path && !used.escapes && called,
          origin: 'js-literal',
          member,
          keys: [...lit.keys],
        },
      });
    };
    visit(sf);
    for (const f of found) if (!asked.get(f.symbol)?.has(f.error.member ?? '')) out.push(f.error);
  }
  return out;
}
