import { posix } from 'node:path';
import type { Node } from 'web-tree-sitter';
import type { GuardContext, GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import { languageOf, withTree, type LangId } from '../../repo/languages.js';
import { topLevelDefinitions } from '../../repo/top-level-definitions.js';
import { field, named } from '../../repo/tree-nodes.js';
import { isSkippedPath } from '../../repo/manifests/index.js';
import { isPythonStdlib } from '../../repo/stdlib/python.js';
import { relativePythonModule } from '../shared/python-relative.js';
import type { G4MissingSymbolEvidence } from './evidence.js';

/**
 * G4 (a'): a name the PR imports from one of the repository's own modules must exist there at head.
 * `from callers.api_routes import api_routes` where `callers/api_routes.py` neither defines, imports
 * nor assigns `api_routes` breaks every import of the package; so does `import { x } from './y'`
 * when `./y` exports no `x`. A module that can serve names dynamically (`__getattr__`,
 * `import *`, `export *`, CommonJS) is unknown and passes.
 */

interface NamedImport {
  /** As written: `a.b`, `..pkg`, `./y`. */
  module: string;
  names: string[];
  line: number;
  text: string;
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function lineOf(text: string, index: number): number {
  let n = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

// ---- Python ---------------------------------------------------------------------------------

const PY_FROM = /^([ \t]*)from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|(?:[^\n\\]|\\\n)*)/gm;

function pythonImports(text: string): NamedImport[] {
  const optional = /\bexcept\s*\(?\s*(?:\w+\s*,\s*)*(?:ImportError|ModuleNotFoundError|Exception)\b/.test(text);
  const out: NamedImport[] = [];
  for (const m of text.matchAll(PY_FROM)) {
    if (m[1] && optional) continue; // an indented import next to `except ImportError` may be optional
    const names = m[3]!
      .replace(/#[^\n]*/g, '')
      .replace(/[()\\]/g, ' ')
      .split(',')
      .map((s) =>
        s
          .trim()
          .split(/\s+as\s+/)[0]!
          .trim(),
      )
      .filter((n) => /^[A-Za-z_]\w*$/.test(n));
    if (names.length) out.push({ module: m[2]!, names, line: lineOf(text, m.index), text: m[0].split('\n')[0]!.trim().slice(0, 120) });
  }
  return out;
}

/** Head paths a Python `from X import` names: the module file(s) and, for a package, its folder. */
function pythonTargets(module: string, importer: string, paths: ReadonlySet<string>): { files: string[]; dirs: string[] } {
  const files: string[] = [];
  const dirs: string[] = [];
  const add = (base: string) => {
    for (const f of [`${base}.py`, `${base}.pyi`]) if (paths.has(f)) files.push(f);
    for (const f of [`${base}/__init__.py`, `${base}/__init__.pyi`])
      if (paths.has(f)) {
        files.push(f);
        if (!dirs.includes(base)) dirs.push(base);
      }
  };
  if (module.startsWith('.')) {
    const base = relativePythonModule(module, importer);
    if (base.startsWith('..')) return { files, dirs };
    add(base === '.' ? '' : base);
    return { files, dirs };
  }
  if (isPythonStdlib(module.split('.')[0]!)) return { files, dirs };
  const rel = module.replace(/\./g, '/');
  for (const p of paths) {
    for (const suffix of [`${rel}.py`, `${rel}.pyi`, `${rel}/__init__.py`, `${rel}/__init__.pyi`]) {
      if (p !== suffix && !p.endsWith(`/${suffix}`)) continue;
      // only from a source root (`src/`, the top): `pkg/typing.py` is `pkg.typing`, not `typing`
      const root = p.slice(0, p.length - suffix.length);
      if (root && (paths.has(`${root}__init__.py`) || isSkippedPath(p))) continue;
      files.push(p);
      if (suffix.includes('__init__')) dirs.push(p.slice(0, -posix.basename(p).length - 1));
    }
  }
  return { files, dirs };
}

/** The names a Python module provides, or null when it may serve any name. */
async function pythonNames(text: string): Promise<Set<string> | null> {
  if (/^[ \t]*from[ \t]+\S+[ \t]+import[ \t]+\*/m.test(text)) return null;
  const index = await topLevelDefinitions('python', text);
  if (index.hasError || index.definitions.some((d) => d.name === '__getattr__')) return null;
  return new Set([...index.definitions.filter((d) => !d.container).map((d) => d.simpleName), ...index.bound]);
}

/** Fallback for bindings the index does not collect (nested blocks, `global`, `type X =`, loop targets, walrus). */
function pythonBindsSomehow(text: string, name: string): boolean {
  const n = esc(name);
  return new RegExp(
    `^[ \\t]*(?:(?:async[ \\t]+)?def|class|type)[ \\t]+${n}\\b|^[ \\t]*${n}[ \\t]*(?::[^=\\n]*)?=|\\bimport\\b[^\\n]*\\b${n}\\b|\\bglobal\\b[^\\n]*\\b${n}\\b|\\bfor[ \\t]+[^\\n]*\\b${n}\\b[^\\n]*\\bin\\b|\\b${n}[ \\t]*:=|^[ \\t]*(?:[\\w.]+[ \\t]*,[ \\t]*)+${n}\\b[^\\n]*=|globals\\(\\)|setattr\\(`,
    'm',
  ).test(text);
}

// ---- JavaScript / TypeScript ----------------------------------------------------------------

const JS_FROM = /\b(import|export)\s+(type\s+)?\{([^{}]*)\}\s*from\s*['"](\.{1,2}\/[^'"\n]*|\.{1,2})['"]/g;
const PLAIN_JS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.d.ts'];

function jsImports(text: string): NamedImport[] {
  const out: NamedImport[] = [];
  for (const m of text.matchAll(JS_FROM)) {
    const names = m[3]!
      .replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, '')
      .split(',')
      .map((s) =>
        s
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0]!
          .trim(),
      )
      .filter((n) => /^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(n) && n !== 'default');
    if (names.length) out.push({ module: m[4]!, names, line: lineOf(text, m.index), text: m[0].split('\n')[0]!.trim().slice(0, 120) });
  }
  return out;
}

function jsTarget(spec: string, importer: string, paths: ReadonlySet<string>): string | null {
  const base = posix.normalize(posix.join(posix.dirname(importer), spec)).replace(/\/$/, '');
  if (base.startsWith('..')) return null;
  const stripped = base.replace(/\.(?:[cm]?js|jsx)$/, '');
  const candidates = [base, ...PLAIN_JS.map((e) => stripped + e), ...PLAIN_JS.map((e) => `${base}/index${e}`)];
  const hit = candidates.find((c) => paths.has(c));
  if (!hit) return null;
  return PLAIN_JS.some((e) => hit.endsWith(e)) ? hit : null;
}

function jsExportNames(root: Node, into: Set<string>): boolean {
  for (const st of named(root)) {
    if (st.type === 'expression_statement' && /^\s*(?:module\.)?exports\b/.test(st.text)) return false;
    if (st.type === 'ambient_declaration' && /^declare\s+(?:module|global)\b/.test(st.text)) return false;
    if (st.type !== 'export_statement') continue;
    if (/^export\s*\*\s*from\b/.test(st.text) || /^export\s*=/.test(st.text)) return false;
    const decl = field(st, 'declaration');
    if (decl) {
      const inner = decl.type === 'ambient_declaration' ? (named(decl)[0] ?? decl) : decl;
      if (inner.type === 'lexical_declaration' || inner.type === 'variable_declaration') {
        for (const d of named(inner)) {
          const name = d.type === 'variable_declarator' ? field(d, 'name') : null;
          if (!name) continue;
          if (name.type !== 'identifier') return false; // a destructuring export
          into.add(name.text);
        }
      } else {
        const name = field(inner, 'name');
        if (name) into.add(name.text);
        else return false;
      }
      continue;
    }
    for (const c of named(st)) {
      if (c.type === 'export_clause') for (const s of named(c)) into.add((field(s, 'alias') ?? field(s, 'name'))?.text ?? '');
      else if (c.type === 'namespace_export') into.add(named(c)[0]?.text ?? '');
    }
  }
  return true;
}

async function jsNames(lang: LangId, text: string): Promise<Set<string> | null> {
  return withTree(lang, text, (tree) => {
    if (tree.rootNode.hasError) return null;
    const names = new Set<string>();
    return jsExportNames(tree.rootNode, names) ? names : null;
  });
}

// ---------------------------------------------------------------------------------------------

function finding(file: ChangedFile, imp: NamedImport, name: string, target: string, lang: 'python' | 'js'): GuardFinding {
  const fails = lang === 'python' ? 'ImportError' : 'a missing export (a SyntaxError in ES modules, a type error in TypeScript)';
  return {
    category: 'ungrounded-import',
    severity: 'fail',
    path: file.path,
    line: imp.line,
    message:
      `Line ${imp.line} imports \`${name}\` from the repository's own module \`${imp.module}\` (${target}), but at the head of this PR ` +
      `${target} neither defines, imports nor exports \`${name}\`. Loading ${file.path} fails with ${fails}.`,
    remediation: `Import \`${name}\` from the module that defines it, or add it to ${target} in this PR.`,
    evidence: { kind: 'missing-symbol', module: imp.module, name, target } satisfies G4MissingSymbolEvidence,
  };
}

const MAX_FINDINGS = 10;

/** Imports the PR added to `file` whose names its own target module does not provide at head. */
export async function missingSymbols(file: ChangedFile, ctx: GuardContext): Promise<GuardFinding[]> {
  const lang = languageOf(file.path);
  if (!lang || file.head.text === null) return [];
  const family = lang === 'python' ? 'python' : lang === 'javascript' || lang === 'typescript' || lang === 'tsx' ? 'js' : null;
  if (!family) return [];
  const extract = family === 'python' ? pythonImports : jsImports;
  const headImports = extract(file.head.text);
  if (headImports.length === 0) return [];
  const before = new Set((file.base.text === null ? [] : extract(file.base.text)).flatMap((i) => i.names.map((n) => `${i.module}\0${n}`)));
  const paths = new Set(await ctx.head.paths());
  const out: GuardFinding[] = [];
  for (const imp of headImports) {
    const fresh = imp.names.filter((n) => !before.has(`${imp.module}\0${n}`));
    if (fresh.length === 0) continue;
    if (family === 'python') {
      const { files, dirs } = pythonTargets(imp.module, file.path, paths);
      if (files.length === 0) continue;
      const texts = await ctx.head.readTexts(files);
      if (texts.size < files.length) continue; // unreadable: cannot judge
      const provided: Set<string>[] = [];
      let unknown = false;
      for (const t of texts.values()) {
        const names = await pythonNames(t);
        if (!names) unknown = true;
        else provided.push(names);
      }
      if (unknown) continue;
      for (const name of fresh) {
        if (provided.some((s) => s.has(name))) continue;
        if ([...texts.values()].some((t) => pythonBindsSomehow(t, name))) continue;
        if (
          dirs.some(
            (d) => paths.has(`${d}/${name}.py`) || paths.has(`${d}/${name}.pyi`) || [...paths].some((p) => p.startsWith(`${d}/${name}/`)),
          )
        )
          continue; // a submodule
        out.push(finding(file, imp, name, files[0]!, 'python'));
      }
    } else {
      const target = jsTarget(imp.module, file.path, paths);
      const targetLang = target && languageOf(target);
      if (!target || !targetLang) continue;
      const text = await ctx.head.readText(target);
      if (text === null) continue;
      const names = await jsNames(targetLang, text);
      if (!names) continue;
      for (const name of fresh) {
        if (names.has(name) || new RegExp(`\\bexport\\b[^\\n;]*(?<![\\w$])${esc(name)}(?![\\w$])`).test(text)) continue;
        out.push(finding(file, imp, name, target, 'js'));
      }
    }
    if (out.length >= MAX_FINDINGS) break;
  }
  return out;
}
