import type * as TS from 'typescript';
import { treePath, type Compiler } from './program.js';

/**
 * The invented-API kinds, and nothing else: a member that does not exist (2339, 2551 "did you mean"), a
 * call of something that is not callable (2349) or not constructable (2351), a wrong number of
 * arguments (2554, 2555). "Cannot find module" and everything else is never a finding.
 */
export const PROBE_CODES: ReadonlySet<number> = new Set([2339, 2551, 2349, 2351, 2554, 2555]);

/** One compiler error of a probed kind, with what it is about. */
export interface ProbeError {
  path: string;
  line: number;
  code: number;
  /** The compiler's message, flattened (it names no line numbers). */
  text: string;
  /** The source of the expression whose type the error is about (`merger` in `merger.merge()`). */
  receiver: string;
  /** Where the receiver's type (or the called function) is declared in the tree. */
  declared: { path: string; line: number; endLine: number };
  /**
   * The receiver is an object literal or class declared in the same TypeScript file as the error: its
   * members are exactly what that file lists. (A JavaScript class often gains members at run time,
   * `Object.assign(this, options)`, where the compiler cannot see them.)
   */
  certain: boolean;
  /**
   * `js-literal`: not a compiler error but a read of a key that a closed JavaScript object literal does not
   * have (js-literals.ts; the compiler treats JavaScript object literals as open), with the member read
   * and the literal's own keys.
   */
  origin?: 'js-literal';
  member?: string;
  keys?: string[];
}

/** What `compare` keys on: the file, the code and the message (no line numbers, so moved code still matches). */
export const errorKey = (path: string, code: number, text: string) => `${path}\0${String(code)}\0${text}`;

/** The innermost node whose span contains `pos`. */
function nodeAt(ts: Compiler, sf: TS.SourceFile, pos: number): TS.Node {
  let found: TS.Node = sf;
  const visit = (node: TS.Node): void => {
    if (pos < node.getStart(sf) || pos >= node.end) return;
    found = node;
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(sf, visit);
  return found;
}

type CallLike = TS.CallExpression | TS.NewExpression;

/** The call an arity error is about: the innermost call around `pos` with as many arguments as the message says it got. */
function arityCall(ts: Compiler, start: TS.Node, text: string): CallLike | null {
  const got = /but got (\d+)/.exec(text);
  for (let n = start; !ts.isSourceFile(n); n = n.parent) {
    if ((ts.isCallExpression(n) || ts.isNewExpression(n)) && (!got || (n.arguments?.length ?? 0) === Number(got[1]))) return n;
  }
  return null;
}

/** The expression whose type decides the error: the object of a member access, or the callee. */
function subjectOf(ts: Compiler, code: number, node: TS.Node, text: string): TS.Expression | null {
  if (ts.isSourceFile(node)) return null;
  if (code === 2339 || code === 2551) {
    const access = node.parent;
    return ts.isPropertyAccessExpression(access) && access.name === node ? access.expression : null;
  }
  if (code === 2349 || code === 2351) {
    for (let n = node; !ts.isSourceFile(n); n = n.parent) {
      if ((ts.isCallExpression(n) || ts.isNewExpression(n)) && n.expression.getStart() === node.getStart()) return n.expression;
    }
    return null;
  }
  return arityCall(ts, node, text)?.expression ?? null;
}

const PRIMITIVE_FLAGS = (ts: Compiler) =>
  ts.TypeFlags.StringLike |
  ts.TypeFlags.NumberLike |
  ts.TypeFlags.BooleanLike |
  ts.TypeFlags.BigIntLike |
  ts.TypeFlags.ESSymbolLike |
  ts.TypeFlags.Null |
  ts.TypeFlags.Undefined |
  ts.TypeFlags.Void;

/** Reads types through one program's checker; answers whether a type is fully known to come from the tree. */
class TypeJudge {
  private readonly checker: TS.TypeChecker;

  constructor(
    private readonly ts: Compiler,
    program: TS.Program,
  ) {
    this.checker = program.getTypeChecker();
  }

  private isAny(t: TS.Type): boolean {
    return (t.flags & (this.ts.TypeFlags.Any | this.ts.TypeFlags.Unknown)) !== 0;
  }

  /** A class or interface with an unresolved (any) base: its members are not all known. */
  private tainted(symbol: TS.Symbol, depth = 0): boolean {
    const ts = this.ts;
    if (depth > 6) return true;
    for (const decl of symbol.declarations ?? []) {
      if (!ts.isClassLike(decl) && !ts.isInterfaceDeclaration(decl)) continue;
      for (const clause of decl.heritageClauses ?? []) {
        for (const base of clause.types) {
          const t = this.checker.getTypeAtLocation(base);
          if (this.isAny(t)) return true;
          const s = t.getSymbol();
          if (!s || this.tainted(s, depth + 1)) return true;
        }
      }
      // JSDoc @extends / @augments in JavaScript
      if (ts.isClassLike(decl) && ts.getJSDocAugmentsTag(decl)) return true;
    }
    return false;
  }

  /**
   * An object literal is only trusted as the whole truth about a value when it initializes a variable
   * without a type annotation and lists members: a literal passed to an unresolved function, a `= {}`
   * default or a method's `this` in an options object has lost the type its context would give it.
   */
  private trustedLiteral(decl: TS.Declaration): boolean {
    const ts = this.ts;
    if (!ts.isObjectLiteralExpression(decl)) return true;
    const parent = decl.parent;
    return ts.isVariableDeclaration(parent) && parent.initializer === decl && !parent.type && decl.properties.length > 0;
  }

  /**
   * Declarations that list their members: a class, an interface, an enum, a type literal, an object
   * literal, a TypeScript module. A mapped or conditional type is computed, and what it computes to
   * depends on types that may be unresolved here.
   */
  private declaredShape(decl: TS.Declaration): boolean {
    const ts = this.ts;
    if (ts.isSourceFile(decl)) return !/\.[cm]?jsx?$/.test(decl.fileName);
    return (
      ts.isClassLike(decl) ||
      ts.isInterfaceDeclaration(decl) ||
      ts.isEnumDeclaration(decl) ||
      ts.isTypeLiteralNode(decl) ||
      ts.isObjectLiteralExpression(decl)
    );
  }

  /** The tree declaration of `t`'s symbol, or null when it is not (only) in the tree. */
  private treeDeclaration(t: TS.Type): TS.Declaration | null {
    const symbol = t.getSymbol() ?? t.aliasSymbol;
    const decls = symbol?.declarations ?? [];
    if (!symbol || !decls.length) return null;
    if (decls.some((d) => treePath(d.getSourceFile().fileName) === null || !this.declaredShape(d) || !this.trustedLiteral(d))) return null;
    if (this.tainted(symbol)) return null;
    return decls[0]!;
  }

  /** A function or class the tree declares by name (`function add`, `class Cache`, `const add = () => …`). */
  private namedCallable(expr: TS.Expression): TS.Declaration | null {
    const ts = this.ts;
    const symbol = this.checker.getSymbolAtLocation(expr);
    const target = symbol && symbol.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(symbol) : symbol;
    const decl = target?.declarations?.[0];
    if (!decl || treePath(decl.getSourceFile().fileName) === null) return null;
    if (ts.isFunctionDeclaration(decl) || ts.isClassDeclaration(decl) || ts.isMethodDeclaration(decl)) return decl;
    if (ts.isVariableDeclaration(decl) && !decl.type && decl.initializer && ts.isFunctionLike(decl.initializer)) return decl;
    return null;
  }

  /**
   * Where the type of `expr` is declared, when it is fully known: not any/unknown, every object part
   * declared in the tree (not in a lib file a global declaration elsewhere could augment) and not
   * extending anything unresolved. Null otherwise. For a callee (`kind` 'callee'): a named function or
   * class of the tree, or a member of such an object (`merger.merge`) whose own type is no union (a
   * union with `undefined` or `void` is a nullability question, not an invented API).
   */
  knownDeclaration(expr: TS.Expression, kind: 'object' | 'callee', member?: string): TS.Declaration | null {
    const ts = this.ts;
    if (expr.kind === ts.SyntaxKind.ThisKeyword && kind === 'object') {
      // `this` in a class is the class; in an object literal it depends on how the method is called
      const t = this.checker.getTypeAtLocation(expr);
      const decl = t.getSymbol()?.declarations?.[0];
      if (!decl || !ts.isClassLike(decl)) return null;
    }
    const t = this.checker.getTypeAtLocation(expr);
    if (this.isAny(t)) return null;
    if (kind === 'callee') {
      if (ts.isPropertyAccessExpression(expr)) return t.isUnion() ? null : this.knownDeclaration(expr.expression, 'object');
      return this.namedCallable(expr);
    }
    const parts = t.isUnionOrIntersection() ? t.types : [t];
    // A member that some part of a union has is a narrowing question, not an invented API.
    if (member !== undefined && t.isUnion() && parts.some((part) => this.checker.getPropertyOfType(part, member))) return null;
    let found: TS.Declaration | null = null;
    for (const part of parts) {
      if (this.isAny(part)) return null;
      if (part.flags & PRIMITIVE_FLAGS(ts)) continue;
      const decl = this.treeDeclaration(part);
      if (!decl) return null;
      found ??= decl;
    }
    return found;
  }
}

/** True when a declaration is an object literal or a class (its members are exactly what the source lists). */
function literalShape(ts: Compiler, decl: TS.Declaration): boolean {
  return ts.isObjectLiteralExpression(decl) || ts.isClassLike(decl);
}

const TYPESCRIPT = /\.[cm]?tsx?$/;

/** An expression's source on one line, at most 80 characters (a chained call can span a screen). */
function shortSource(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

const lineOf = (sf: TS.SourceFile, pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;

export interface CheckBudget {
  /** Throws the compiler's OperationCanceledException when the time is up. */
  token: TS.CancellationToken;
}

/** Every probed-kind error of `paths` in `program`, as keys only (the base side needs nothing else). */
export function errorKeys(ts: Compiler, program: TS.Program, paths: Iterable<[string, string]>, budget: CheckBudget): Set<string> {
  const keys = new Set<string>();
  for (const [virtual, path] of paths) {
    const sf = program.getSourceFile(virtual);
    if (!sf) continue;
    for (const d of program.getSemanticDiagnostics(sf, budget.token)) {
      if (PROBE_CODES.has(d.code)) keys.add(errorKey(path, d.code, ts.flattenDiagnosticMessageText(d.messageText, '\n')));
    }
  }
  return keys;
}

/**
 * The probed-kind errors of `paths` (virtual name → repo path) whose subject's type is known, with where
 * that type is declared. Errors about `any`, about lib types or about a class with an unresolved base are
 * left out: they are what a missing dependency looks like, not an invented API.
 */
export function probeErrors(ts: Compiler, program: TS.Program, paths: Iterable<[string, string]>, budget: CheckBudget): ProbeError[] {
  const judge = new TypeJudge(ts, program);
  const out: ProbeError[] = [];
  for (const [virtual, path] of paths) {
    const sf = program.getSourceFile(virtual);
    if (!sf) continue;
    for (const d of program.getSemanticDiagnostics(sf, budget.token)) {
      if (!PROBE_CODES.has(d.code) || d.start === undefined || d.file !== sf) continue;
      const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      const subject = subjectOf(ts, d.code, nodeAt(ts, sf, d.start), text);
      if (!subject) continue;
      const member = ts.isPropertyAccessExpression(subject.parent) ? subject.parent.name.text : undefined;
      const decl = judge.knownDeclaration(subject, d.code === 2339 || d.code === 2551 ? 'object' : 'callee', member);
      if (!decl) continue;
      const declFile = decl.getSourceFile();
      const declPath = treePath(declFile.fileName);
      if (declPath === null) continue;
      out.push({
        path,
        line: lineOf(sf, d.start),
        code: d.code,
        text,
        receiver: shortSource(subject.getText(sf)),
        declared: { path: declPath, line: lineOf(declFile, decl.getStart(declFile)), endLine: lineOf(declFile, decl.end) },
        certain: declPath === path && TYPESCRIPT.test(path) && literalShape(ts, decl),
      });
    }
  }
  return out;
}
