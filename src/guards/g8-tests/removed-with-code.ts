import { posix } from 'node:path';
import type { GuardContext } from '../../core/guard.js';
import type { TestOutcome } from '../../core/suite-result.js';
import { testFileOf } from '../../testgate/index.js';
import { searchHead } from '../shared/head-search.js';

/**
 * Tests deleted together with the code they tested. Their base version, put back into the head, fails
 * only because what it imports is gone: a local module the change deletes (`Cannot find module`,
 * `No module named`) or a name a module no longer exports (`does not provide an export named`,
 * `cannot import name`). When nothing left at the head defines any of the names those tests reached,
 * no behaviour the project still offers lost its tests: the loss is a `risk`, not a break. A name that
 * the head still defines somewhere (the code moved) keeps the finding blocking: the tests should have
 * moved with it.
 */
export interface GoneCode {
  /** Local modules the change deletes that the tests imported (base paths). */
  modules: string[];
  /** Names the tests reached through them; none is defined at the head. */
  names: string[];
  /** The first load failure, as the runner gave it. */
  failure: string;
}

type Family = 'js' | 'python';

const JS_MODULE = /Cannot find module '([^'\n]+)'/;
const JS_EXPORT = /(?:module '([^'\n]+)' )?does not provide an export named '([\w$]+)'/;
const PY_MODULE = /No module named '([\w.]+)'/;
const PY_NAME = /cannot import name '(\w+)' from '([\w.]+)'/;

const JS_EXTS = ['', '.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.jsx', '.tsx', '/index.js', '/index.ts'];

/** What one failure says is missing: a module (with the base paths it can be) or a name. */
interface Missing {
  family: Family;
  module?: string[];
  name?: string;
  from?: string;
  line: string;
}

function missingOf(t: TestOutcome): Missing | null {
  const message = t.message ?? '';
  const file = testFileOf(t);
  const line = (re: RegExp) =>
    message
      .split('\n')
      .find((l) => re.test(l))
      ?.trim() ?? '';
  let m = JS_EXPORT.exec(message);
  if (m) return { family: 'js', name: m[2]!, ...(m[1] ? { from: m[1] } : {}), line: line(JS_EXPORT) };
  m = JS_MODULE.exec(message);
  if (m) {
    const spec = m[1]!;
    // A package (`Cannot find module 'left-pad'`) is a dependency, not code of this repository.
    if (!spec.startsWith('.') && !spec.includes('/')) return null;
    const at = spec.startsWith('.') ? posix.join(posix.dirname(file), spec) : posix.normalize(spec.replace(/^\/+/, ''));
    const stem = at.replace(/\.[cm]?[jt]sx?$/, '');
    return { family: 'js', module: [...new Set([at, ...JS_EXTS.map((e) => stem + e)])], line: line(JS_MODULE) };
  }
  m = PY_NAME.exec(message);
  if (m) return { family: 'python', name: m[1]!, from: m[2]!, line: line(PY_NAME) };
  m = PY_MODULE.exec(message);
  if (m) {
    const rel = m[1]!.replace(/\./g, '/');
    return { family: 'python', module: [`${rel}.py`, `${rel}/__init__.py`], line: line(PY_MODULE) };
  }
  return null;
}

/** Top-level names a module defines (what its tests can reach). */
function definedNames(family: Family, text: string): string[] {
  const out = new Set<string>();
  const re =
    family === 'python'
      ? /^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)|^([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)/gm
      : /^(?:export\s+(?:default\s+)?)?(?:async\s+)?(?:function\s*\*?|class|const|let|var)\s*([A-Za-z_$][\w$]*)|^exports\.([A-Za-z_$][\w$]*)\s*=/gm;
  for (const m of text.matchAll(re)) {
    const name = m[1] ?? m[2];
    if (name && name !== '__all__' && name !== 'default') out.add(name);
  }
  return [...out];
}

const IMPORT_LINE = /^\s*(?:import|from|export)\b|\brequire\s*\(/;
const stemOf = (module: string) =>
  module
    .split(/[./]/)
    .filter((p) => p && !/^[cm]?[jt]sx?$/.test(p))
    .at(-1) ?? module;
const wordIn = (name: string, text: string) => new RegExp(`(?<![\\w$])${escape(name)}(?![\\w$])`).test(text);

/** The base test's own imports name what the failure says is missing (the module, or the name from it). */
function importsMissing(text: string, miss: Missing): boolean {
  const stem = escape((miss.name ? miss.from && stemOf(miss.from) : stemOf(miss.module?.[0] ?? '')) || '');
  const spec = stem ? `[\\w./@-]*\\b${stem}` : '[\\w./@-]+';
  if (miss.family === 'python') {
    if (!miss.name) return new RegExp(`^\\s*(?:from|import)\\s+${spec}\\b`, 'm').test(text);
    return new RegExp(`^\\s*from\\s+${spec}\\s+import\\s*\\(?[^)]*?(?<!\\w)${escape(miss.name)}(?!\\w)`, 'm').test(text);
  }
  const quoted = `['"]${spec}(?:\\.[cm]?[jt]sx?)?['"]`;
  if (!miss.name) return new RegExp(`(?:\\bfrom|\\bimport|\\brequire\\s*\\()\\s*${quoted}`).test(text);
  return new RegExp(
    `\\bimport\\s*(?:[\\w$]+\\s*,\\s*)?\\{[^}]*(?<![\\w$])${escape(miss.name)}(?![\\w$])[^}]*\\}\\s*from\\s*${quoted}`,
  ).test(text);
}

const escape = (s: string) => s.replace(/[$]/g, '\\$');

/** A head line that defines `name` (not one that only uses it). */
function definesName(family: Family, name: string, text: string): boolean {
  const n = escape(name);
  const re =
    family === 'python'
      ? new RegExp(`^\\s*(?:async\\s+)?(?:def|class)\\s+${n}\\b|^\\s*${n}\\s*(?::[^=]*)?=(?!=)`)
      : new RegExp(
          `(?:^|[^\\w$.])(?:function\\s*\\*?|class|const|let|var)\\s*${n}(?![\\w$])|(?:^|[^\\w$.])${n}\\s*[:=]\\s*(?:async\\s*)?(?:function\\b|\\()|export\\s*\\{[^}]*(?<![\\w$])${n}(?![\\w$])|exports\\.${n}\\s*=`,
        );
  return re.test(text);
}

/** Base files a Python module name can be: any base path ending with one of `candidates` (a `src/` layout). */
function pyPaths(candidates: string[], basePaths: readonly string[]): string[] {
  return basePaths.filter((p) => candidates.some((c) => p === c || p.endsWith(`/${c}`)));
}

/**
 * When every failure of `tests` (gone at the head, their base version failing against it) is a load
 * failure on code the change removed, and nothing at the head defines what they reached: what is gone.
 * Otherwise null (the failure may be a behaviour the change broke).
 */
export async function removedWithCode(tests: readonly TestOutcome[], ctx: GuardContext): Promise<GoneCode | null> {
  if (tests.length === 0) return null;
  const basePaths = await ctx.base.paths();
  const modules = new Set<string>();
  const names = new Map<string, Family>();
  /** A name a module stopped exporting, and that module's last path part (`ops`, `util`). */
  const importedFrom = new Map<string, string>();
  let failure = '';
  const testTexts = await ctx.base.readTexts([...new Set(tests.map(testFileOf))]);
  for (const t of tests) {
    const miss = missingOf(t);
    if (!miss) return null;
    // The base test itself must import what is missing: a message the head's code throws proves nothing.
    if (!importsMissing(testTexts.get(testFileOf(t)) ?? '', miss)) return null;
    failure ||= miss.line;
    if (miss.name) {
      names.set(miss.name, miss.family);
      if (miss.from) importedFrom.set(miss.name, stemOf(miss.from));
      continue;
    }
    const candidates = miss.family === 'python' ? pyPaths(miss.module ?? [], basePaths) : (miss.module ?? []);
    const atBase = candidates.filter((p) => basePaths.includes(p));
    if (atBase.length === 0) return null;
    for (const p of atBase) {
      // The module must be gone because this change deleted it (not a path the runner resolved oddly).
      if (await ctx.head.has(p)) return null;
      modules.add(p);
    }
  }
  const texts = await ctx.base.readTexts([...modules]);
  for (const [path, text] of texts)
    for (const n of definedNames(path.endsWith('.py') ? 'python' : 'js', text)) names.set(n, path.endsWith('.py') ? 'python' : 'js');
  for (const family of ['js', 'python'] as const) {
    const wanted = [...names].filter(([, f]) => f === family).map(([n]) => n);
    if (wanted.length === 0) continue;
    const hits = await searchHead(ctx, family, wanted);
    for (const h of hits) {
      if (wanted.some((n) => definesName(family, n, h.text))) return null;
      // Code left at the head that still imports the name from the module that lost it.
      if (
        IMPORT_LINE.test(h.text) &&
        wanted.some((n) => {
          const from = importedFrom.get(n);
          return from !== undefined && h.text.includes(from) && wordIn(n, h.text);
        })
      )
        return null;
    }
  }
  return { modules: [...modules].sort(), names: [...names.keys()].sort(), failure };
}
