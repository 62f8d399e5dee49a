import { parse as parseJsonc } from 'jsonc-parser';
import { isRecord } from '../../core/is-record.js';
import type { Workspace } from '../../testgate/index.js';
import { virtualPath } from './program.js';

/**
 * Workspace sibling packages as the compiler's `paths`: `import { x } from '@org/pkg-b'` resolves to
 * pkg-b's source in the tree instead of staying unresolved (`any`), so a call of a member pkg-b does not
 * have is seen. The probe never installs node_modules, where a package manager would link the sibling.
 *
 * A package's entry is the first of its package.json `types`/`typings`, `exports["."]` (the `types`,
 * `import`, `module`, `default`, `require` conditions), `module` and `main` that is a TypeScript file of the
 * tree, or whose source counterpart is (`dist/index.d.ts` → `src/index.ts`: build output is not in the
 * tree); then `src/index.ts(x)`, `index.ts(x)`; then a JavaScript file those fields name. A package the
 * project's own `paths` already match (`@vue/*`) is left to them. `@org/pkg-b/sub` maps to `src/sub` or `sub` of the package.
 */

const CONDITIONS = ['types', 'import', 'module', 'default', 'require', 'node'];
const SOURCE_EXT = ['.ts', '.tsx', '.mts', '.js', '.jsx', '.mjs'];

/** The first path a package.json `exports` entry for `.` names, following nested conditions. */
function exportTarget(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    for (const v of value) {
      const t = exportTarget(v);
      if (t) return t;
    }
    return null;
  }
  if (!isRecord(value)) return null;
  if ('.' in value) return exportTarget(value['.']);
  for (const c of CONDITIONS) if (c in value) return exportTarget(value[c]);
  return null;
}

const join = (dir: string, rel: string) => (dir === '.' ? rel : `${dir}/${rel}`).replace(/\/\.\//g, '/');

/** The tree file a manifest path stands for: itself, or the source of a built file (`dist/x.js` → `src/x.ts`). */
function inTree(dir: string, target: string, files: ReadonlyMap<string, string>): string | null {
  const rel = target.replace(/^\.\//, '');
  if (files.has(join(dir, rel))) return join(dir, rel);
  const built = /^(?:dist|build|lib|out|esm|cjs|types)\/(.+?)(?:\.d)?\.[cm]?[jt]sx?$/.exec(rel);
  const stem = built ? built[1]! : rel.replace(/\.[cm]?[jt]sx?$/, '');
  for (const base of built ? [`src/${stem}`, stem] : [stem])
    for (const ext of SOURCE_EXT) if (files.has(join(dir, base + ext))) return join(dir, base + ext);
  return null;
}

const TYPED = /\.(?:d\.)?[cm]?tsx?$/;

/** The package's entry: a typed file its manifest names, else `src/index.ts(x)`/`index.ts(x)`, else a JavaScript file it names. */
function entryOf(dir: string, pkg: Record<string, unknown>, files: ReadonlyMap<string, string>): string | null {
  const named: string[] = [];
  for (const f of [pkg.types, pkg.typings, exportTarget(pkg.exports), pkg.module, pkg.main]) {
    if (typeof f !== 'string' || !f.trim()) continue;
    const hit = inTree(dir, f.trim(), files);
    if (hit) named.push(hit);
  }
  const typed = named.find((f) => TYPED.test(f));
  if (typed) return typed;
  // A JavaScript main is often a CommonJS shim over the build output (`module.exports = require('./dist/…')`).
  for (const f of ['src/index.ts', 'src/index.tsx', 'index.ts', 'index.tsx']) if (files.has(join(dir, f))) return join(dir, f);
  return named[0] ?? null;
}

/** True when one of the project's own `paths` patterns (`@vue/*`, `@acme/store`) matches `name`. */
function mappedBy(own: Readonly<Record<string, unknown>>, name: string): boolean {
  return Object.keys(own).some((pattern) => {
    const star = pattern.indexOf('*');
    if (star < 0) return pattern === name || pattern === `${name}/*`;
    const [pre, post] = [pattern.slice(0, star), pattern.slice(star + 1)];
    return name.length >= pre.length + post.length && name.startsWith(pre) && name.endsWith(post);
  });
}

/** `paths` entries for the workspace's named packages that have an entry in `files` (names `own` maps already are left alone). */
export function workspacePaths(
  ws: Workspace | null,
  files: ReadonlyMap<string, string>,
  own: Readonly<Record<string, unknown>> = {},
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const p of ws?.packages ?? []) {
    if (p.dir === '.') continue;
    const text = files.get(p.manifest);
    const pkg: unknown = text === undefined ? null : parseJsonc(text, [], { allowTrailingComma: true });
    if (!isRecord(pkg) || typeof pkg.name !== 'string' || !pkg.name.trim()) continue;
    const name = pkg.name.trim();
    if (mappedBy(own, name)) continue;
    const entry = entryOf(p.dir, pkg, files);
    if (!entry) continue;
    out[name] = [virtualPath(entry)];
    out[`${name}/*`] = [virtualPath(join(p.dir, 'src/*')), virtualPath(join(p.dir, '*'))];
  }
  return out;
}
