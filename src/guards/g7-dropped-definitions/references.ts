import { posix } from 'node:path';
import type { Definition } from '../../repo/top-level-definitions.js';
import type { HeadHit } from '../shared/head-search.js';
import { relativePythonModule } from '../shared/python-relative.js';

/**
 * Evidence that a definition the PR removed is still needed at head: a line of the head tree that
 * imports it from the file that lost it, names it qualified by that module, or uses it bare where
 * only that definition could answer. Deliberately conservative: a mention that could as well mean
 * something else (a local variable, another class's method, a string) is not evidence.
 */
export interface Reference {
  path: string;
  line: number;
  text: string;
  how: 'import' | 'qualified' | 'bare' | 'member' | 'all';
}

export interface ReferenceVerdict {
  refs: Reference[];
  /** A re-export elsewhere that still serves the name (package `__init__`, `export … from`, `pub use`). */
  servedBy?: Reference;
}

/** What the classifier knows about the definition and where it lived. */
export interface Subject {
  def: Definition;
  /** Head path of the file that lost the definition. */
  path: string;
  family: string;
  /** Head text of that file. */
  headText: string;
}

/** Head texts of files with hits, read on demand. */
export type TextOf = (path: string) => string | undefined;

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const word = (n: string) => new RegExp(`(?<![\\w$])${esc(n)}(?![\\w$])`, 'g');

function occurrences(text: string, name: string): number[] {
  return [...text.matchAll(word(name))].map((m) => m.index);
}

function isComment(family: string, text: string): boolean {
  const t = text.trimStart();
  if (family === 'python') return t.startsWith('#');
  return t.startsWith('//') || t.startsWith('/*') || t.startsWith('*');
}

/** Crude: an odd number of unescaped quotes of one kind before `idx` on the line. */
function inString(text: string, idx: number, family: string): boolean {
  const head = text.slice(0, idx).replace(/\\./g, '');
  const quotes = family === 'rust' || family === 'go' || family === 'java' ? ['"'] : ['"', "'", '`'];
  if (family === 'go') quotes.push('`');
  return quotes.some((q) => (head.split(q).length - 1) % 2 === 1);
}

function lineOf(text: string, index: number): number {
  let n = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.trim().slice(0, 160);
}

/** Multi-line strings and block comments: Python docstrings, JS template literals, C-style block comments, Go raw strings. */
const MULTILINE: Record<string, RegExp> = {
  python: /"""[\s\S]*?"""|'''[\s\S]*?'''/g,
  js: /\/\*[\s\S]*?\*\/|`(?:\\[\s\S]|[^\\`])*`/g,
  go: /\/\*[\s\S]*?\*\/|`[^`]*`/g,
  rust: /\/\*[\s\S]*?\*\//g,
  java: /\/\*[\s\S]*?\*\/|"""[\s\S]*?"""/g,
};

const maskCache = new Map<string, Set<number>>();

/** 1-based lines that a multi-line string or comment of `text` touches (memoised per text). */
function maskedLines(text: string, family: string): Set<number> {
  const cached = maskCache.get(text);
  if (cached) return cached;
  const out = new Set<number>();
  const re = MULTILINE[family];
  if (re) {
    for (const m of text.matchAll(new RegExp(re.source, 'g'))) {
      if (!m[0].includes('\n')) continue;
      const first = lineOf(text, m.index);
      const last = first + (m[0].match(/\n/g)?.length ?? 0);
      for (let l = first; l <= last; l++) out.add(l);
    }
  }
  if (maskCache.size > 500) maskCache.clear();
  maskCache.set(text, out);
  return out;
}

/** Hits of a name as usable occurrences: outside comments and strings (`text`, when known, masks multi-line ones). */
function* uses(
  hits: readonly HeadHit[],
  name: string,
  family: string,
  text?: string,
): Generator<{ hit: HeadHit; idx: number; before: string; after: string }> {
  const masked = text === undefined ? null : maskedLines(text, family);
  for (const hit of hits) {
    if (isComment(family, hit.text) || masked?.has(hit.line)) continue;
    for (const idx of occurrences(hit.text, name)) {
      if (inString(hit.text, idx, family)) continue;
      yield { hit, idx, before: hit.text.slice(0, idx), after: hit.text.slice(idx + name.length) };
    }
  }
}

const ref = (hit: HeadHit, how: Reference['how']): Reference => ({
  path: hit.path,
  line: hit.line,
  text: hit.text.trim().slice(0, 160),
  how,
});

function stripExt(path: string): string {
  return path.replace(/\.d\.ts$/, '').replace(/\.[^./]+$/, '');
}

// ---- Python ---------------------------------------------------------------------------------

/** The file as a module path without extension (`src/pkg/mod`, `src/pkg` for `__init__.py`). */
function pyModuleKey(path: string): string {
  const key = stripExt(path);
  return posix.basename(key) === '__init__' ? posix.dirname(key) : key;
}

/** True when `from X import …` in `importer` names the module whose key is `target`. */
function pyResolves(module: string, importer: string, target: string): boolean {
  if (module.startsWith('.')) {
    return relativePythonModule(module, importer) === target;
  }
  const dotted = module.replace(/\./g, '/');
  return target === dotted || target.endsWith(`/${dotted}`);
}

const PY_FROM = /^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|(?:[^\n\\]|\\\n)*)/gm;

function pyImportedNames(clause: string): string[] {
  return clause
    .replace(/[()\\]/g, ' ')
    .replace(/#[^\n]*/g, '')
    .split(',')
    .map((s) =>
      s
        .trim()
        .split(/\s+as\s+/)[0]!
        .trim(),
    )
    .filter(Boolean);
}

function pyShadows(text: string, n: string): boolean {
  const e = esc(n);
  return new RegExp(
    `[(,]\\s*\\*{0,2}${e}\\s*[:=,)]|\\bfor\\s+(?:[\\w\\s,(]*,\\s*)?${e}\\b|\\bas\\s+${e}\\b|^[ \\t]+${e}\\s*(?::[^=\\n]*)?=(?!=)|\\b(?:global|nonlocal)\\s+${e}\\b|\\blambda\\b[^:\\n]*\\b${e}\\b`,
    'm',
  ).test(text);
}

function pyAllMentions(text: string, n: string): number | null {
  const m = /^__all__\s*(?::[^=\n]*)?\+?=\s*[[(]([^\])]*)[\])]/ms.exec(text);
  if (!m) return null;
  return new RegExp(`["']${esc(n)}["']`).test(m[1]!) ? lineOf(text, m.index) : null;
}

/** A pytest fixture is used by naming it as a parameter (or in `usefixtures`), not by calling it. */
function fixtureUses(n: string, hits: readonly HeadHit[]): Reference[] {
  const param = new RegExp(`\\bdef\\s+\\w+\\s*\\([^)]*(?<![\\w.=])${esc(n)}\\s*[,):]|\\busefixtures\\([^)]*["']${esc(n)}["']`);
  const first = hits.find((h) => !isComment('python', h.text) && param.test(h.text));
  return first ? [ref(first, 'bare')] : [];
}

function python(s: Subject, hits: readonly HeadHit[], textOf: TextOf): ReferenceVerdict {
  const n = s.def.simpleName;
  if (/@(?:pytest\.)?fixture\b/.test(s.def.shape)) return { refs: fixtureUses(n, hits) };
  const key = pyModuleKey(s.path);
  const stem = posix.basename(key);
  const refs: Reference[] = [];
  let servedBy: Reference | undefined;
  const shadowed = pyShadows(s.headText, n);
  const allLine = pyAllMentions(s.headText, n);
  if (allLine) refs.push({ path: s.path, line: allLine, text: '__all__ still lists it', how: 'all' });
  const byPath = groupByPath(hits);
  for (const [path, lines] of byPath) {
    if (path === s.path) {
      if (shadowed) continue;
      for (const u of uses(lines, n, 'python', textOf(path) ?? (path === s.path ? s.headText : undefined))) {
        if (/\.\s*$/.test(u.before) || /\b(?:def|class)\s+$/.test(u.before) || /^\s*=(?!=)/.test(u.after)) continue;
        if (/^\s*(?:from|import)\b/.test(u.hit.text)) continue;
        refs.push(ref(u.hit, 'bare'));
        break;
      }
      continue;
    }
    const text = textOf(path);
    if (text !== undefined) {
      for (const m of text.matchAll(PY_FROM)) {
        if (!pyImportedNames(m[2]!).includes(n)) continue;
        const hit = { path, line: lineOf(text, m.index), text: firstLine(m[0]) };
        if (pyResolves(m[1]!, path, key)) refs.push(ref(hit, 'import'));
        else if (posix.basename(path) === '__init__.py' || posix.basename(path) === '__init__.pyi') servedBy ??= ref(hit, 'import');
      }
    }
    const importsStem = text === undefined || new RegExp(`\\bimport\\b[^\\n]*\\b${esc(stem)}\\b`).test(text);
    if (!importsStem) continue;
    for (const u of uses(lines, n, 'python', textOf(path) ?? (path === s.path ? s.headText : undefined))) {
      if (new RegExp(`(?<![\\w.])${esc(stem)}\\s*\\.\\s*$`).test(u.before) && !/^\s*=(?!=)/.test(u.after)) {
        refs.push(ref(u.hit, 'qualified'));
        break;
      }
    }
  }
  return { refs, ...(servedBy ? { servedBy } : {}) };
}

// ---- JavaScript / TypeScript ----------------------------------------------------------------

const JS_MODULE_STATEMENT = /\b(import|export)\s+(?:type\s+)?([^;'"`]*?)\s*from\s*['"]([^'"\n]+)['"]/g;
const JS_REQUIRE = /\{([^{}]*)\}\s*=\s*require\(\s*['"]([^'"\n]+)['"]\s*\)/g;

function jsResolves(spec: string, importer: string, target: string): boolean {
  if (!spec.startsWith('./') && !spec.startsWith('../') && spec !== '.' && spec !== '..') return false;
  const resolved = posix.normalize(posix.join(posix.dirname(importer), spec)).replace(/\/$/, '');
  const bare = resolved.replace(/\.(?:[cm]?[jt]sx?)$/, '');
  return bare === target || `${resolved}/index` === target;
}

/** Names a `{ a, b as c, type d }` clause imports (the exported side). */
function braceNames(clause: string): string[] {
  const m = /\{([^}]*)\}/.exec(clause);
  if (!m) return [];
  return m[1]!
    .split(',')
    .map((s) =>
      s
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+|\s*:\s*/)[0]!
        .trim(),
    )
    .filter(Boolean);
}

function jsShadows(text: string, n: string): boolean {
  const e = esc(n);
  return new RegExp(
    `^[ \\t]+(?:export\\s+)?(?:const|let|var|function|class)\\s+${e}\\b|[(,]\\s*(?:\\.\\.\\.)?${e}\\s*[,)=:?]|\\bcatch\\s*\\(\\s*${e}\\b|[{,]\\s*${e}\\s*[,}]\\s*=|\\bfor\\s*\\(\\s*(?:const|let|var)\\s+${e}\\b`,
    'm',
  ).test(text);
}

function js(s: Subject, hits: readonly HeadHit[], textOf: TextOf): ReferenceVerdict {
  const n = s.def.simpleName;
  const target = stripExt(s.path);
  const refs: Reference[] = [];
  let servedBy: Reference | undefined;
  const shadowed = jsShadows(s.headText, n);
  for (const [path, lines] of groupByPath(hits)) {
    if (path === s.path) {
      if (shadowed) continue;
      for (const u of uses(lines, n, 'js', textOf(path) ?? (path === s.path ? s.headText : undefined))) {
        if (/(?:\.|\?\.)\s*$/.test(u.before) || /\b(?:function\*?|class|const|let|var|interface|type|enum|namespace)\s+$/.test(u.before))
          continue;
        if (/^\s*\??:(?!:)/.test(u.after) && !/\?[^:]*$/.test(u.before)) continue; // an object key or a parameter name
        if (/^\s*(?:import|export)\b[^(]*\bfrom\b/.test(u.hit.text)) continue;
        refs.push(ref(u.hit, 'bare'));
        break;
      }
      continue;
    }
    const text = textOf(path);
    if (text === undefined) continue;
    for (const m of text.matchAll(JS_MODULE_STATEMENT)) {
      // cast: the regex has three groups, all required
      const [whole, kind, clause, spec] = m as unknown as [string, string, string, string];
      const hit = { path, line: lineOf(text, m.index), text: firstLine(whole) };
      const resolves = jsResolves(spec, path, target);
      if (braceNames(clause).includes(n)) {
        if (resolves) refs.push(ref(hit, 'import'));
        else if (kind === 'export') servedBy ??= ref(hit, 'import');
        continue;
      }
      const ns = resolves ? /\*\s*as\s+([\w$]+)/.exec(clause)?.[1] : undefined;
      if (ns && new RegExp(`(?<![\\w$.])${esc(ns)}\\s*\\.\\s*${esc(n)}(?![\\w$])`).test(text)) refs.push(ref(hit, 'qualified'));
    }
    for (const m of text.matchAll(JS_REQUIRE)) {
      if (braceNames(`{${m[1]!}}`).includes(n) && jsResolves(m[2]!, path, target))
        refs.push(ref({ path, line: lineOf(text, m.index), text: firstLine(m[0]) }, 'import'));
    }
  }
  return { refs, ...(servedBy ? { servedBy } : {}) };
}

// ---- Go -------------------------------------------------------------------------------------

const goPackage = (text: string | undefined) => (text ? /^\s*package\s+(\w+)/m.exec(text)?.[1] : undefined);

function goShadows(text: string, n: string): boolean {
  const e = esc(n);
  return new RegExp(
    `\\b${e}\\s*(?:,\\s*[\\w]+\\s*)*:=|\\b(?:[\\w]+\\s*,\\s*)+${e}\\s*:=|\\bvar\\s+${e}\\b|[(,]\\s*${e}\\s+[\\w*\\[.]|\\brange\\b.*\\b${e}\\b`,
    'm',
  ).test(text);
}

/** A line that declares `n` itself: a func or method, an interface method, a struct field. */
function goDeclares(text: string, n: string): boolean {
  const e = esc(n);
  return new RegExp(`\\bfunc\\s*(?:\\([^)]*\\)\\s*)?${e}\\s*[(\\[]|^\\s*${e}\\s*\\(|^\\s*${e}(?:\\s*,\\s*\\w+)*\\s+[\\w*\\[.]`).test(text);
}

function go(s: Subject, hits: readonly HeadHit[], textOf: TextOf): ReferenceVerdict {
  const n = s.def.simpleName;
  const dir = posix.dirname(s.path);
  const pkg = goPackage(s.headText) ?? posix.basename(dir);
  const refs: Reference[] = [];
  const grouped = groupByPath(hits);
  const samePackage = (p: string) => posix.dirname(p) === dir && (goPackage(textOf(p)) ?? pkg) === pkg;
  if (s.def.container) {
    // a method: `.n` in the package counts only when nothing else in the package declares `n`
    const declared = [...grouped].some(
      ([p, lines]) => samePackage(p) && lines.some((h) => !isComment('go', h.text) && goDeclares(h.text, n)),
    );
    if (declared) return { refs };
    for (const [p, lines] of grouped) {
      if (!samePackage(p)) continue;
      for (const u of uses(lines, n, 'go', textOf(p)))
        if (/\.\s*$/.test(u.before)) {
          refs.push(ref(u.hit, 'member'));
          break;
        }
    }
    return { refs };
  }
  const lower = !/^\p{Lu}/u.test(n);
  for (const [p, lines] of grouped) {
    const text = textOf(p);
    if (samePackage(p)) {
      if (lower && text !== undefined && goShadows(text, n)) continue;
      for (const u of uses(lines, n, 'go', textOf(p))) {
        if (/\.\s*$/.test(u.before) || /\b(?:func|type)\s+$|\bfunc\s*\([^)]*\)\s*$/.test(u.before)) continue;
        if (/^\s*:(?!=)/.test(u.after)) continue; // a composite-literal key or a label
        if (/^\s*$/.test(u.before) && /^\s+[\w*[\]]/.test(u.after) && !/^\s+(?:=|:=)/.test(u.after)) continue; // a struct field declaration
        refs.push(ref(u.hit, 'bare'));
        break;
      }
      continue;
    }
    if (lower || (text !== undefined && !new RegExp(`"(?:[^"\\n]*/)?${esc(posix.basename(dir))}"`).test(text))) continue;
    for (const u of uses(lines, n, 'go', textOf(p))) {
      if (new RegExp(`(?<![\\w.])${esc(pkg)}\\.$`).test(u.before)) {
        refs.push(ref(u.hit, 'qualified'));
        break;
      }
    }
  }
  return { refs };
}

// ---- Rust -----------------------------------------------------------------------------------

/** The module name other files use for a Rust file (`foo.rs`, `foo/mod.rs` → `foo`; `lib.rs`, `main.rs` → `crate`). */
function rustModuleName(path: string): string {
  const stem = posix.basename(stripExt(path));
  if (stem === 'lib' || stem === 'main') return 'crate';
  if (stem === 'mod') return posix.basename(posix.dirname(path));
  return stem;
}

function rustShadows(text: string, n: string): boolean {
  const e = esc(n);
  return new RegExp(
    `\\blet\\s+(?:mut\\s+)?${e}\\b|[(,|]\\s*(?:mut\\s+)?${e}\\s*[:|,)]|\\bfor\\s+${e}\\s+in\\b|\\b(?:Some|Ok|Err)\\(\\s*${e}\\s*\\)`,
    'm',
  ).test(text);
}

const RUST_USE = /\b(pub(?:\([^)]*\))?\s+)?use\s+[^;]*;/g;

function rust(s: Subject, hits: readonly HeadHit[], textOf: TextOf): ReferenceVerdict {
  const n = s.def.simpleName;
  const mod = rustModuleName(s.path);
  const refs: Reference[] = [];
  let servedBy: Reference | undefined;
  const grouped = groupByPath(hits);
  const container = s.def.container?.split('::').pop();
  const isMember = s.def.kind === 'method';
  const declaredElsewhere = [...grouped].some(([, lines]) => lines.some((h) => new RegExp(`\\bfn\\s+${esc(n)}\\b`).test(h.text)));
  for (const [path, lines] of grouped) {
    const text = textOf(path);
    if (path === s.path) {
      if (isMember) {
        for (const u of uses(lines, n, 'rust', textOf(path) ?? (path === s.path ? s.headText : undefined))) {
          const qualified = container && new RegExp(`(?<![\\w])(?:${esc(container)}|Self)\\s*(?:<[^>]*>)?\\s*::\\s*$`).test(u.before);
          if (qualified || (!declaredElsewhere && /\bself\s*\.\s*$/.test(u.before) && /^\s*\(/.test(u.after))) {
            refs.push(ref(u.hit, qualified ? 'qualified' : 'member'));
            break;
          }
        }
        continue;
      }
      if (rustShadows(s.headText, n)) continue;
      for (const u of uses(lines, n, 'rust', textOf(path) ?? (path === s.path ? s.headText : undefined))) {
        if (/(?:\.|::)\s*$/.test(u.before) && !/\b(?:self|Self|crate|super)\s*::\s*$/.test(u.before)) continue;
        if (/\b(?:fn|struct|enum|trait|type|const|static|mod|union|macro_rules!|let|let\s+mut)\s+$/.test(u.before)) continue;
        if (/^\s*:(?!:)/.test(u.after)) continue; // a field or a named argument
        if (/^\s*(?:pub(?:\([^)]*\))?\s+)?use\b/.test(u.hit.text)) continue;
        refs.push(ref(u.hit, 'bare'));
        break;
      }
      continue;
    }
    if (isMember) {
      if (!container) continue;
      for (const u of uses(lines, n, 'rust', textOf(path) ?? (path === s.path ? s.headText : undefined)))
        if (new RegExp(`(?<![\\w])${esc(container)}\\s*(?:<[^>]*>)?\\s*::\\s*$`).test(u.before)) {
          refs.push(ref(u.hit, 'qualified'));
          break;
        }
      continue;
    }
    if (text !== undefined) {
      for (const m of text.matchAll(RUST_USE)) {
        const stmt = m[0];
        if (!new RegExp(`(?:::|\\{|,)\\s*${esc(n)}\\b`).test(stmt)) continue;
        const hit = { path, line: lineOf(text, m.index), text: firstLine(stmt) };
        if (new RegExp(`\\b${esc(mod)}\\s*::`).test(stmt)) refs.push(ref(hit, 'import'));
        else if (m[1]) servedBy ??= ref(hit, 'import');
      }
    }
    for (const u of uses(lines, n, 'rust', textOf(path) ?? (path === s.path ? s.headText : undefined))) {
      if (
        mod !== 'crate' &&
        new RegExp(`(?<![\\w])${esc(mod)}\\s*::\\s*$`).test(u.before) &&
        !/^\s*(?:pub(?:\([^)]*\))?\s+)?use\b/.test(u.hit.text)
      ) {
        refs.push(ref(u.hit, 'qualified'));
        break;
      }
    }
  }
  return { refs, ...(servedBy ? { servedBy } : {}) };
}

// ---- Java -----------------------------------------------------------------------------------

const JAVA_NOT_A_TYPE = /\b(?:return|new|throw|else|case|yield|await|assert)\s+$/;

function java(s: Subject, hits: readonly HeadHit[], textOf: TextOf): ReferenceVerdict {
  const n = s.def.simpleName;
  const refs: Reference[] = [];
  const grouped = groupByPath(hits);
  if (s.def.kind !== 'method') {
    const typeDecl = new RegExp(`\\b(?:class|interface|enum|record|@interface)\\s+${esc(n)}\\b`);
    if ([...grouped].some(([, lines]) => lines.some((h) => !isComment('java', h.text) && typeDecl.test(h.text)))) return { refs };
    for (const [path, lines] of grouped) {
      for (const u of uses(lines, n, 'java', textOf(path))) {
        refs.push(ref(u.hit, /^\s*import\b/.test(u.hit.text) ? 'import' : 'bare'));
        break;
      }
    }
    return { refs };
  }
  const container = s.def.container?.split('.').pop();
  if (!container) return { refs }; // a Java method always has its class; without it there is nothing to qualify by
  // an override is served by the superclass: give up when the class extends or implements anything
  if (new RegExp(`\\b(?:class|enum|record)\\s+${esc(container)}\\b[^{]*\\b(?:extends|implements)\\b`).test(s.headText)) return { refs };
  const declaration = (h: HeadHit, idx: number) => /[\w>\]]\s+$/.test(h.text.slice(0, idx)) && !JAVA_NOT_A_TYPE.test(h.text.slice(0, idx));
  const declared = [...grouped].some(([path, lines]) =>
    [...uses(lines, n, 'java', textOf(path))].some((u) => /^\s*\(/.test(u.after) && declaration(u.hit, u.idx)),
  );
  for (const [path, lines] of grouped) {
    for (const u of uses(lines, n, 'java', textOf(path))) {
      if (!/^\s*\(/.test(u.after)) continue;
      const qualified = new RegExp(`(?<![\\w])${esc(container)}\\s*\\.\\s*$`).test(u.before);
      const local =
        path === s.path && !declared && !declaration(u.hit, u.idx) && (/\bthis\s*\.\s*$/.test(u.before) || !/\.\s*$/.test(u.before));
      if (qualified || local) {
        refs.push(ref(u.hit, qualified ? 'qualified' : 'bare'));
        break;
      }
    }
  }
  return { refs };
}

// ---------------------------------------------------------------------------------------------

function groupByPath(hits: readonly HeadHit[]): Map<string, HeadHit[]> {
  const m = new Map<string, HeadHit[]>();
  for (const h of hits) {
    const list = m.get(h.path) ?? [];
    list.push(h);
    m.set(h.path, list);
  }
  return m;
}

/** Hits relevant to one name (the search covered every vanished name at once). */
export function hitsFor(hits: readonly HeadHit[], name: string): HeadHit[] {
  const re = word(name);
  return hits.filter((h) => {
    re.lastIndex = 0;
    return re.test(h.text);
  });
}

/** Classifies the head-tree mentions of one vanished definition. */
export function referencesOf(s: Subject, hits: readonly HeadHit[], textOf: TextOf): ReferenceVerdict {
  if (s.def.simpleName === 'default' && s.family === 'js') return { refs: [] };
  switch (s.family) {
    case 'python':
      return python(s, hits, textOf);
    case 'js':
      return js(s, hits, textOf);
    case 'go':
      return go(s, hits, textOf);
    case 'rust':
      return rust(s, hits, textOf);
    case 'java':
      return java(s, hits, textOf);
    default:
      return { refs: [] };
  }
}
