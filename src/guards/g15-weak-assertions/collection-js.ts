import { posix } from 'node:path';
import picomatch from 'picomatch';
import type { Node } from 'web-tree-sitter';
import type { GuardContext } from '../../core/guard.js';
import { z } from 'zod';
import { isRecord } from '../../core/is-record.js';
import { parseJsonAs } from '../../core/parse-data.js';
import { languageOf, withTree } from '../../repo/languages.js';
import { field, named } from '../../repo/tree-nodes.js';

/**
 * Which files Jest or Vitest collect in a package, from the base's configuration, where it can be
 * read for sure: the runner is the one (and only one) of `jest`/`vitest` the package (or the root)
 * depends on; its settings come from package.json `jest`, `jest.config.json`, or the object literal a
 * `jest.config.*`/`vitest.config.*`/`vite.config.*` exports. A setting that is not a literal, a
 * preset or project list that could change the patterns, a workspace file: not sure, nothing is said.
 *
 *   Vitest: `test.include`, default `**\/*.{test,spec}.?(c|m)[jt]s?(x)`.
 *   Jest: `roots` (default the package), `testMatch` (default `**\/__tests__/**\/*.?([mc])[jt]s?(x)` and
 *         `**\/?(*.)+(spec|test).?([mc])[jt]s?(x)`) or `testRegex`.
 */
export interface JsCollection {
  runner: 'jest' | 'vitest';
  /** The package folder ('' for the root). */
  dir: string;
  /** Globs relative to the package folder, or a regular expression on `/<path>`. */
  include: string[];
  regex: RegExp[];
  roots: string[] | null;
  /** Where the patterns come from (`vitest's default include`, `jest.config.json`). */
  source: string;
}

const VITEST_DEFAULT = ['**/*.{test,spec}.?(c|m)[jt]s?(x)'];
const JEST_DEFAULT = ['**/__tests__/**/*.?([mc])[jt]s?(x)', '**/?(*.)+(spec|test).?([mc])[jt]s?(x)'];
const EXTS = ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'];

/** Not sure: a value in the config that is not a plain literal. */
const UNKNOWN = Symbol('unknown');
type Literal = string | number | boolean | null | Literal[] | { [k: string]: Literal } | typeof UNKNOWN;

function literal(node: Node | null): Literal {
  if (!node) return UNKNOWN;
  switch (node.type) {
    case 'string':
      return node.text.slice(1, -1);
    case 'template_string':
      return named(node).some((c) => c.type === 'template_substitution') ? UNKNOWN : node.text.slice(1, -1);
    case 'number':
      return Number(node.text);
    case 'true':
      return true;
    case 'false':
      return false;
    case 'null':
      return null;
    case 'array': {
      const out: Literal[] = [];
      for (const el of named(node)) {
        if (el.type === 'comment') continue;
        const v = literal(el);
        if (v === UNKNOWN) return UNKNOWN;
        out.push(v);
      }
      return out;
    }
    case 'object': {
      const out: Record<string, Literal> = {};
      for (const prop of named(node)) {
        if (prop.type === 'comment') continue;
        if (prop.type !== 'pair') {
          // A spread or a method could define anything.
          out['\u0000spread'] = UNKNOWN;
          continue;
        }
        const key = field(prop, 'key');
        const name = key?.type === 'property_identifier' ? key.text : key?.type === 'string' ? key.text.slice(1, -1) : null;
        if (name === null) out['\u0000spread'] = UNKNOWN;
        else out[name] = literal(field(prop, 'value'));
      }
      return out;
    }
    case 'regex':
      return { '\u0000regex': field(node, 'pattern')?.text ?? UNKNOWN };
    case 'parenthesized_expression':
    case 'satisfies_expression':
    case 'as_expression':
      return literal(named(node)[0] ?? null);
    case 'call_expression': {
      // defineConfig({ … }) is the object itself; any other call builds something unknown.
      const callee = field(node, 'function')?.text ?? '';
      const args = field(node, 'arguments');
      const list = args ? named(args) : [];
      return /^(?:defineConfig|defineProject)$/.test(callee) && list.length === 1 ? literal(list[0]!) : UNKNOWN;
    }
    default:
      return UNKNOWN;
  }
}

/** The literal a config file exports (`export default …`, `module.exports = …`), or UNKNOWN. */
async function exportedLiteral(path: string, text: string): Promise<Literal> {
  const lang = languageOf(path);
  if (!lang) return UNKNOWN;
  return withTree(lang, text, (tree) => {
    if (tree.rootNode.hasError) return UNKNOWN;
    for (const stmt of named(tree.rootNode)) {
      if (stmt.type === 'export_statement' && /^export\s+default\b/.test(stmt.text))
        return literal(field(stmt, 'value') ?? named(stmt).at(-1) ?? null);
      if (stmt.type === 'expression_statement') {
        const e = named(stmt)[0];
        if (e?.type === 'assignment_expression' && field(e, 'left')?.text.replace(/\s+/g, '') === 'module.exports')
          return literal(field(e, 'right'));
      }
    }
    return UNKNOWN;
  });
}

const strings = (v: Literal | undefined): string[] | null =>
  typeof v === 'string' ? [v] : Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : null;

function depsOf(json: unknown): Set<string> {
  const out = new Set<string>();
  if (!isRecord(json)) return out;
  for (const g of ['dependencies', 'devDependencies']) {
    const t = json[g];
    if (isRecord(t)) for (const k of Object.keys(t)) out.add(k);
  }
  return out;
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const inDir = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);

async function vitestCollection(ctx: GuardContext, dir: string, paths: Set<string>): Promise<JsCollection | null> {
  if ([...paths].some((p) => /(^|\/)vitest\.(?:workspace|projects)\.[cm]?[jt]s(?:on)?$/.test(p))) return null;
  const candidates = ['vitest', 'vite'].flatMap((b) => EXTS.map((e) => inDir(dir, `${b}.config.${e}`))).filter((p) => paths.has(p));
  const base = { runner: 'vitest' as const, dir, regex: [], roots: null };
  const file = candidates[0];
  if (!file) return { ...base, include: VITEST_DEFAULT, source: "Vitest's default include" };
  const text = (await ctx.base.readTexts([file])).get(file);
  if (text === undefined) return null;
  const config = await exportedLiteral(file, text);
  if (!isPlain(config)) return null;
  const test = config.test;
  if (test === undefined)
    return { ...base, include: VITEST_DEFAULT, source: `Vitest's default include (${posix.basename(file)} sets no \`test\`)` };
  if (!isPlain(test) || 'projects' in test || 'workspace' in test || 'dir' in test || 'root' in test || 'root' in config) return null;
  if (test.include === undefined) return { ...base, include: VITEST_DEFAULT, source: `Vitest's default include (${posix.basename(file)})` };
  const include = strings(test.include);
  return include ? { ...base, include, source: `\`test.include\` in ${file}` } : null;
}

function isPlain(v: Literal): v is Record<string, Literal> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !('\u0000spread' in v);
}

function jestFrom(config: Literal, dir: string, source: string): JsCollection | null {
  if (!isPlain(config)) return null;
  if ('projects' in config || 'rootDir' in config) return null;
  if ('preset' in config && !(typeof config.preset === 'string' && config.preset.startsWith('ts-jest'))) return null;
  const rel = (p: string) => p.replace(/^<rootDir>\/?/, '').replace(/\/$/, '');
  const base = { runner: 'jest' as const, dir, source };
  const roots = config.roots === undefined ? null : strings(config.roots)?.map(rel);
  if (roots === undefined) return null;
  if (config.testRegex !== undefined) {
    const list = strings(config.testRegex);
    if (!list || list.some((r) => r.length > 300)) return null;
    try {
      return { ...base, include: [], regex: list.map((r) => new RegExp(r)), roots };
    } catch {
      return null;
    }
  }
  if (config.testMatch === undefined)
    return { ...base, include: JEST_DEFAULT, regex: [], roots, source: `Jest's default testMatch${source ? ` (${source})` : ''}` };
  const match = strings(config.testMatch)?.map(rel);
  return match ? { ...base, include: match, regex: [], roots } : null;
}

async function jestCollection(ctx: GuardContext, dir: string, pkg: unknown, paths: Set<string>): Promise<JsCollection | null> {
  if (isRecord(pkg) && pkg.jest !== undefined) {
    const jest = z.json().safeParse(pkg.jest);
    return jest.success ? jestFrom(jest.data, dir, `\`jest\` in ${inDir(dir, 'package.json')}`) : null;
  }
  const files = [inDir(dir, 'jest.config.json'), ...EXTS.map((e) => inDir(dir, `jest.config.${e}`))].filter((p) => paths.has(p));
  const file = files[0];
  if (!file) return jestFrom({}, dir, '');
  const text = (await ctx.base.readTexts([file])).get(file);
  if (text === undefined) return null;
  if (file.endsWith('.json')) {
    try {
      return jestFrom(parseJsonAs(z.json(), text, file), dir, file);
    } catch {
      return null;
    }
  }
  return jestFrom(await exportedLiteral(file, text), dir, file);
}

/** The JS test runner's collection for a file of the base tree's package that holds it; null when not sure. */
export async function jsCollection(ctx: GuardContext, path: string): Promise<JsCollection | null> {
  const paths = new Set(await ctx.base.paths());
  let dir = posix.dirname(path);
  if (dir === '.') dir = '';
  for (;;) {
    const manifest = inDir(dir, 'package.json');
    if (paths.has(manifest)) {
      // A runner config between the package and the file runs that folder on its own terms.
      if (nestedConfig(paths, dir, path)) return null;
      const key = `g15:js-collection:${dir}`;
      return ctx.memo(key, async () => {
        const texts = await ctx.base.readTexts([manifest, 'package.json']);
        const pkg = parseJson(texts.get(manifest));
        if (pkg === undefined) return null;
        const deps = depsOf(pkg);
        if (dir) for (const d of depsOf(parseJson(texts.get('package.json')))) deps.add(d);
        const vitest = deps.has('vitest');
        const jest = deps.has('jest');
        if (vitest === jest) return null;
        return vitest ? vitestCollection(ctx, dir, paths) : jestCollection(ctx, dir, pkg, paths);
      });
    }
    if (!dir) return null;
    dir = posix.dirname(dir) === '.' ? '' : posix.dirname(dir);
  }
}

const RUNNER_CONFIG = /^(?:vitest|vite|jest)\.config\.[cm]?[jt]s(?:on)?$|^vitest\.(?:workspace|projects)\.[cm]?[jt]s(?:on)?$/;

function nestedConfig(paths: Set<string>, dir: string, path: string): boolean {
  for (let d = posix.dirname(path); d !== '.' && d !== dir && d.length > dir.length; d = posix.dirname(d)) {
    for (const p of paths) if (posix.dirname(p) === d && RUNNER_CONFIG.test(posix.basename(p))) return true;
  }
  return false;
}

/** Why the runner never collects `path`, or null when it does. */
export function jsMisses(c: JsCollection, path: string): string | null {
  const rel = c.dir ? path.slice(c.dir.length + 1) : path;
  const underRoots = c.roots === null || c.roots.some((r) => r === '' || rel === r || rel.startsWith(`${r}/`));
  const matches = c.regex.length ? c.regex.some((r) => r.test(`/${path}`)) : picomatch.isMatch(rel, c.include, { dot: true });
  if (underRoots && matches && !rel.split('/').includes('node_modules')) return null;
  const patterns = c.regex.length ? c.regex.map((r) => `/${r.source}/`).join(', ') : c.include.map((g) => `\`${g}\``).join(', ');
  const roots = c.roots ? ` under ${c.roots.map((r) => `\`${r || '.'}/\``).join(', ')}` : '';
  const runner = c.runner === 'jest' ? 'Jest' : 'Vitest';
  return `${runner} collects ${patterns}${roots} (${c.source}${c.dir ? `, package \`${c.dir}/\`` : ''}); this file is \`${rel}\``;
}
