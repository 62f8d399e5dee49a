import type { Node } from 'web-tree-sitter';
import { evidenceAs } from '../../core/evidence.js';
import type { Finding } from '../../core/finding.js';
import { g4UngroundedImportEvidence } from '../../guards/g4-imports/evidence.js';
import { extractImports } from '../../guards/g4-imports/import-extract.js';
import { languageOf, withTree, type LangId } from '../../repo/languages.js';
import type { Recipe, RecipeContext, RecipeFix } from '../types.js';
import { fixOf } from './line-suggestion.js';

/**
 * G4: an import of a package nobody declared is deleted when nothing else in the file uses the
 * names it binds (the stray import an LLM adds "just in case"). Imports kept for their side effects
 * (`import 'x'`, Go's `_`/`.` imports, wildcards), unaliased Go imports and statements that import
 * more than the one package are left alone.
 */

/** The statement to delete: its lines (0-based, inclusive) and the names it binds. */
interface Statement {
  startRow: number;
  endRow: number;
  startColumn: number;
  endColumn: number;
  names: string[];
}

const named = (n: Node | null | undefined): n is Node => !!n;

function span(node: Node, names: string[]): Statement {
  const { startPosition: start, endPosition: end } = node;
  return { startRow: start.row, endRow: end.row, startColumn: start.column, endColumn: end.column, names };
}

function pythonStatement(n: Node): Statement | null {
  if (n.namedChildren.some((c) => c?.type === 'wildcard_import')) return null;
  const items = n.childrenForFieldName('name').filter(named);
  if (n.type === 'import_statement') {
    if (items.length !== 1) return null; // `import os, foo`: other modules ride on the same line
    const item = items[0]!;
    const alias = item.type === 'aliased_import' ? item.childForFieldName('alias')?.text : undefined;
    const dotted = item.type === 'aliased_import' ? item.childForFieldName('name')?.text : item.text;
    const name = alias ?? dotted?.split('.')[0];
    return name ? span(n, [name]) : null;
  }
  const names = items.map((item) => (item.type === 'aliased_import' ? item.childForFieldName('alias')?.text : item.text));
  return names.length && names.every((x): x is string => !!x) ? span(n, names) : null;
}

function jsStatement(n: Node): Statement | null {
  if (n.type === 'import_statement') {
    const clause = n.namedChildren.find((c) => c?.type === 'import_clause');
    if (!clause) return null; // `import 'polyfill'`: kept for its effect
    const names: string[] = [];
    for (const part of clause.namedChildren.filter(named)) {
      if (part.type === 'identifier') names.push(part.text);
      else if (part.type === 'namespace_import') {
        const id = part.namedChildren.find((c) => c?.type === 'identifier');
        if (!id) return null;
        names.push(id.text);
      } else if (part.type === 'named_imports') {
        for (const spec of part.namedChildren.filter(named)) {
          if (spec.type !== 'import_specifier') continue;
          const bound = spec.childForFieldName('alias') ?? spec.childForFieldName('name');
          if (!bound) return null;
          names.push(bound.text);
        }
      } else return null;
    }
    return names.length ? span(n, names) : null;
  }
  // const x = require('pkg')
  const declarators = n.namedChildren.filter((c) => c?.type === 'variable_declarator');
  if (declarators.length !== 1) return null;
  const id = declarators[0]!.childForFieldName('name');
  return id?.type === 'identifier' ? span(n, [id.text]) : null;
}

/**
 * Go: only an aliased import. The name an unaliased import binds is the imported package's own
 * `package` clause, which may differ from its path and is not in this repository.
 */
function goStatement(spec: Node): Statement | null {
  const alias = spec.childForFieldName('name');
  if (alias?.type !== 'package_identifier') return null; // `_` and `.` imports act by being imported
  const list = spec.parent?.type === 'import_spec_list' ? spec.parent : null;
  const whole = list ? (list.namedChildren.filter((c) => c?.type === 'import_spec').length === 1 ? list.parent : null) : spec.parent;
  return span(whole ?? spec, [alias.text]);
}

/** Names a Rust `use` argument binds; null for a wildcard or a form not understood. */
function rustNames(arg: Node, into: string[]): boolean {
  switch (arg.type) {
    case 'identifier':
      into.push(arg.text);
      return true;
    case 'scoped_identifier': {
      const name = arg.childForFieldName('name');
      if (!name) return false;
      into.push(name.text);
      return true;
    }
    case 'use_as_clause': {
      const alias = arg.childForFieldName('alias');
      if (!alias) return false;
      into.push(alias.text);
      return true;
    }
    case 'scoped_use_list': {
      const list = arg.childForFieldName('list');
      return !!list && rustNames(list, into);
    }
    case 'use_list':
      return arg.namedChildren.filter(named).every((c) => rustNames(c, into));
    default:
      return false;
  }
}

function rustStatement(n: Node): Statement | null {
  if (n.type === 'extern_crate_declaration') {
    const bound = n.childForFieldName('alias') ?? n.childForFieldName('name');
    return bound ? span(n, [bound.text]) : null;
  }
  const arg = n.childForFieldName('argument');
  const names: string[] = [];
  return arg && rustNames(arg, names) && names.length ? span(n, names) : null;
}

const STATEMENT_TYPES: Record<string, ReadonlySet<string>> = {
  python: new Set(['import_statement', 'import_from_statement']),
  js: new Set(['import_statement', 'lexical_declaration', 'variable_declaration']),
  go: new Set(['import_spec']),
  rust: new Set(['use_declaration', 'extern_crate_declaration']),
};

function familyOf(lang: LangId): string {
  return lang === 'javascript' || lang === 'typescript' || lang === 'tsx' ? 'js' : lang;
}

/** The import statement starting on `row` (0-based), understood; null when there is none or it is not simple. */
function statementAt(root: Node, family: string, row: number): Statement | null {
  const types = STATEMENT_TYPES[family];
  if (!types) return null;
  const visit = (n: Node): Node | null => {
    if (n.startPosition.row > row || n.endPosition.row < row) return null;
    if (types.has(n.type) && n.startPosition.row === row) return n;
    for (const c of n.namedChildren) {
      const hit = c && visit(c);
      if (hit) return hit;
    }
    return null;
  };
  const node = visit(root);
  if (!node) return null;
  switch (family) {
    case 'python':
      return pythonStatement(node);
    case 'js':
      return jsStatement(node);
    case 'go':
      return goStatement(node);
    default:
      return rustStatement(node);
  }
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function removeImport(finding: Finding, ctx: RecipeContext): Promise<RecipeFix | null> {
  const path = finding.path;
  if (!path) return null; // every finding this recipe handles names its file
  const spec = evidenceAs(g4UngroundedImportEvidence, finding)?.import;
  const lang = languageOf(path);
  if (!spec || !lang) return null;
  const current = await ctx.readCurrent(path);
  if (current === null) return null;
  const refs = (await extractImports(lang, current)).filter((r) => r.spec === spec);
  const ref = refs.find((r) => r.line === finding.line) ?? (refs.length === 1 ? refs[0] : undefined);
  if (!ref) return null;
  const family = familyOf(lang);
  const [stmt, hadError] = await withTree(lang, current, (t) => {
    const found: [Statement | null, boolean] = [statementAt(t.rootNode, family, ref.line - 1), t.rootNode.hasError];
    return found;
  });
  if (!stmt) return null;
  const lines = current.split('\n');
  // the statement must have its lines to itself
  if (lines[stmt.startRow]!.slice(0, stmt.startColumn).trim() !== '') return null;
  if (!/^\s*;?\s*(?:(?:\/\/|#).*)?$/.test(lines[stmt.endRow]!.slice(stmt.endColumn))) return null;
  const rest = [...lines.slice(0, stmt.startRow), ...lines.slice(stmt.endRow + 1)];
  const after = rest.join('\n');
  // any other mention of a bound name (code, a string such as __all__, a comment) keeps the import
  if (stmt.names.some((n) => new RegExp(`(?<![\\w$])${escapeRe(n)}(?![\\w$])`).test(after))) return null;
  if (!hadError && (await withTree(lang, after, (t) => t.rootNode.hasError))) return null;
  return fixOf(ctx, {
    recipe: 'g4-remove-import',
    findingIds: [finding.id],
    path,
    before: current,
    after,
    summary: `removed the unused import of '${spec}' from ${path}`,
  });
}

export const g4RemoveImport: Recipe = {
  id: 'g4-remove-import',
  handles: (f) =>
    f.guard === 'G4' && f.category === 'ungrounded-import' && !!f.path && evidenceAs(g4UngroundedImportEvidence, f) !== undefined,
  fix: removeImport,
};
