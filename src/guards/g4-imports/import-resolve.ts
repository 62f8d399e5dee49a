import type { LangId } from '../../repo/languages.js';
import type { Ecosystem, RepoFingerprint } from '../../repo/fingerprint-types.js';
import { isPythonStdlib } from '../../repo/stdlib/python.js';
import { isNodeBuiltin } from '../../repo/stdlib/node.js';
import { isGoStdlib } from '../../repo/stdlib/go.js';
import { isRustBuiltinPath } from '../../repo/stdlib/rust.js';
import { PYTHON_TOOLING, pythonModuleDeclared } from './python-names.js';
import { matchesAlias, resolvesFromBaseUrl, type LocalModules } from './local-modules.js';

/** How one import resolved: grounded, skipped (cannot be judged), or the package nobody declares. */
export type Resolution =
  | { kind: 'grounded'; why: 'stdlib' | 'local' | 'declared' }
  | { kind: 'skipped'; why: string }
  | { kind: 'ungrounded'; ecosystem: Ecosystem; pkg: string };

/** Everything the resolvers consult, built once per run. */
export interface ResolveEnv {
  fp: RepoFingerprint;
  local: LocalModules;
  pythonDeps: ReadonlySet<string>;
  npmDeps: ReadonlySet<string>;
  rustCrates: ReadonlySet<string>;
}

export function resolveEnv(fp: RepoFingerprint, local: LocalModules): ResolveEnv {
  const rustCrates = new Set([...fp.deps.rust, ...fp.rustCrates].map((c) => c.toLowerCase().replace(/-/g, '_')));
  const npmDeps = new Set([...fp.deps.npm, ...fp.localPackages]);
  const pythonDeps = new Set([...fp.deps.python, ...fp.pythonProjects]);
  return { fp, local, pythonDeps, npmDeps, rustCrates };
}

const GROUNDED = (why: 'stdlib' | 'local' | 'declared'): Resolution => ({ kind: 'grounded', why });

function resolvePython(spec: string, env: ResolveEnv): Resolution {
  if (spec.startsWith('.')) return GROUNDED('local');
  const top = spec.split('.')[0]!;
  if (isPythonStdlib(top)) return GROUNDED('stdlib');
  if (env.local.python.has(top)) return GROUNDED('local');
  if (PYTHON_TOOLING.has(top) || pythonModuleDeclared(spec, env.pythonDeps)) return GROUNDED('declared');
  return { kind: 'ungrounded', ecosystem: 'python', pkg: top };
}

/** The npm package a bare specifier names: `@scope/pkg/sub` → `@scope/pkg`, `pkg/sub` → `pkg`. */
export function npmPackageName(spec: string): string | null {
  const parts = spec.split('/');
  if (spec.startsWith('@')) return parts.length >= 2 && parts[0]!.length > 1 && parts[1] ? `${parts[0]}/${parts[1]}` : null;
  return parts[0] || null;
}

function typesPackage(pkg: string): string {
  return pkg.startsWith('@') ? `@types/${pkg.slice(1).replace('/', '__')}` : `@types/${pkg}`;
}

function resolveJs(spec: string, env: ResolveEnv): Resolution {
  if (!spec) return { kind: 'skipped', why: 'empty specifier' };
  if (spec.startsWith('.') || spec.startsWith('/')) return GROUNDED('local');
  if (spec.startsWith('#')) return GROUNDED('local'); // package.json "imports" subpath
  if (isNodeBuiltin(spec) || isNodeBuiltin(spec.split('/')[0]!)) return GROUNDED('stdlib');
  if (env.local.jsAliasPatterns.some((p) => matchesAlias(p, spec))) return GROUNDED('local');
  if (resolvesFromBaseUrl(spec, env.local)) return GROUNDED('local');
  if (/^[a-z][\w+.-]*:/i.test(spec)) return { kind: 'skipped', why: 'scheme or virtual module' };
  if (/^[~$]/.test(spec) || spec.startsWith('@/')) return { kind: 'skipped', why: 'bundler alias' };
  const pkg = npmPackageName(spec.toLowerCase());
  if (!pkg) return { kind: 'skipped', why: 'not a package name' };
  if (env.npmDeps.has(pkg) || env.npmDeps.has(typesPackage(pkg))) return GROUNDED('declared');
  return { kind: 'ungrounded', ecosystem: 'npm', pkg };
}

function underPath(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

function resolveGo(spec: string, env: ResolveEnv): Resolution {
  if (isGoStdlib(spec)) return GROUNDED('stdlib');
  if (env.fp.goModules.some((m) => underPath(spec, m))) return GROUNDED('local');
  if (env.fp.deps.go.some((d) => underPath(spec, d))) return GROUNDED('declared');
  const parts = spec.split('/');
  const pkg = parts[0] === 'github.com' || parts[0] === 'gitlab.com' || parts[0] === 'bitbucket.org' ? parts.slice(0, 3).join('/') : spec;
  return { kind: 'ungrounded', ecosystem: 'go', pkg };
}

function resolveRust(spec: string, env: ResolveEnv, fileNames: ReadonlySet<string>): Resolution {
  const global = spec.startsWith('::');
  const first = (global ? spec.slice(2) : spec).split('::')[0]!;
  if (!first || first === '*') return { kind: 'skipped', why: 'glob of the current scope' };
  if (isRustBuiltinPath(first)) return GROUNDED('stdlib');
  if (env.rustCrates.has(first.toLowerCase())) return GROUNDED('declared');
  if (!global && (fileNames.has(first) || env.local.rust.has(first))) return GROUNDED('local');
  return { kind: 'ungrounded', ecosystem: 'rust', pkg: first };
}

const DECLARED_ITEM = /\b(?:mod|struct|enum|trait|type|fn|const|static|union|macro_rules!)\s+([A-Za-z_]\w*)/g;
const USE_ALIAS = /\bas\s+([A-Za-z_]\w*)/g;

/**
 * Names a Rust file can `use` without a crate prefix (2018 uniform paths): the items and modules it
 * declares (at any nesting, a deliberate over-approximation) and names its other `use`s bind.
 */
export function rustFileNames(text: string, useSpecs: string[]): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(DECLARED_ITEM)) names.add(m[1]!);
  for (const m of text.matchAll(USE_ALIAS)) names.add(m[1]!);
  for (const spec of useSpecs) {
    if (!spec.includes('::')) continue; // `use c;` / `extern crate c;` bind c only if c itself is grounded
    const last = spec.split('::').pop();
    if (last && last !== '*') names.add(last);
  }
  return names;
}

/** The ecosystem whose manifests ground imports of a language. */
export function ecosystemOf(lang: LangId): Ecosystem | null {
  switch (lang) {
    case 'python':
      return 'python';
    case 'javascript':
    case 'typescript':
    case 'tsx':
      return 'npm';
    case 'go':
      return 'go';
    case 'rust':
      return 'rust';
    default:
      return null;
  }
}

export function resolveImport(lang: LangId, spec: string, env: ResolveEnv, rustNames: ReadonlySet<string> = new Set()): Resolution {
  switch (ecosystemOf(lang)) {
    case 'python':
      return resolvePython(spec, env);
    case 'npm':
      return resolveJs(spec, env);
    case 'go':
      return resolveGo(spec, env);
    case 'rust':
      return resolveRust(spec, env, rustNames);
    default:
      return { kind: 'skipped', why: 'language not checked' };
  }
}
