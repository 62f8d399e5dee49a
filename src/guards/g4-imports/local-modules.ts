import { posix } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { z } from 'zod';
import type { Revision } from '../../core/revision.js';
import { isSkippedPath } from '../../repo/manifests/index.js';

/**
 * What counts as "a module of this repository" at head, per language. Built once per run from the
 * head tree (and its tsconfig/jsconfig files) and shared by every file G4 checks.
 */
export interface LocalModules {
  /** Python: every folder holding .py files and every .py/.pyi/.pyx stem, at any depth (covers src/ layouts). */
  python: Set<string>;
  /** Rust: .rs file stems and folders holding .rs files (crate modules: `mod x;` lives in x.rs or x/mod.rs). */
  rust: Set<string>;
  /** JS/TS: tsconfig/jsconfig `paths` patterns (`@/*`, `~lib`). */
  jsAliasPatterns: string[];
  /** JS/TS: `baseUrl` folders (repo-relative) a bare specifier may resolve from. */
  jsBaseUrls: string[];
  /** All head paths and folders, for baseUrl lookups. */
  paths: Set<string>;
  dirs: Set<string>;
}

const PY_EXT = /\.(py|pyi|pyx)$/;

function addPathNames(path: string, ext: RegExp, into: Set<string>): void {
  const parts = path.split('/');
  const file = parts.pop() ?? '';
  into.add(file.replace(ext, ''));
  for (const dir of parts) into.add(dir);
}

/** What a tsconfig.json or jsconfig.json says about import aliases (anything else in it is ignored). */
const tsconfigAliases = z.object({ compilerOptions: z.object({ paths: z.unknown(), baseUrl: z.unknown() }).optional() });

async function readJsAliases(head: Revision, paths: string[]): Promise<{ patterns: string[]; baseUrls: string[] }> {
  const configs = paths.filter((p) => /^(tsconfig|jsconfig)(\.[\w-]+)*\.json$/i.test(posix.basename(p)));
  const texts = await head.readTexts(configs);
  const patterns = new Set<string>();
  const baseUrls = new Set<string>();
  for (const [path, text] of texts) {
    const json = tsconfigAliases.safeParse(parseJsonc(text, [], { allowTrailingComma: true }));
    const options = json.success ? json.data.compilerOptions : undefined;
    if (!options) continue;
    if (options.paths && typeof options.paths === 'object') for (const key of Object.keys(options.paths)) patterns.add(key);
    if (typeof options.baseUrl === 'string') {
      const dir = posix.normalize(posix.join(posix.dirname(path), options.baseUrl));
      if (!dir.startsWith('..')) baseUrls.add(dir === '.' ? '' : dir.replace(/\/$/, ''));
    }
  }
  return { patterns: [...patterns], baseUrls: [...baseUrls] };
}

export async function localModulesAt(head: Revision): Promise<LocalModules> {
  const all = (await head.paths()).filter((p) => !isSkippedPath(p));
  const python = new Set<string>();
  const rust = new Set<string>();
  const dirs = new Set<string>();
  for (const p of all) {
    if (PY_EXT.test(p)) addPathNames(p, PY_EXT, python);
    else if (p.endsWith('.rs')) addPathNames(p, /\.rs$/, rust);
    for (let d = posix.dirname(p); d !== '.'; d = posix.dirname(d)) {
      if (dirs.has(d)) break;
      dirs.add(d);
    }
  }
  const { patterns, baseUrls } = await readJsAliases(head, all);
  return { python, rust, jsAliasPatterns: patterns, jsBaseUrls: baseUrls, paths: new Set(all), dirs };
}

/** True when a tsconfig `paths` pattern (`@/*`, `@app/utils`) matches the specifier. */
export function matchesAlias(pattern: string, spec: string): boolean {
  const star = pattern.indexOf('*');
  if (star < 0) return pattern === spec;
  return spec.startsWith(pattern.slice(0, star)) && spec.endsWith(pattern.slice(star + 1)) && spec.length >= pattern.length - 1;
}

const JS_EXTENSIONS = ['', '.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts', '.json', '.vue', '.svelte'];

/** True when a bare specifier resolves to a file or folder under one of the tsconfig `baseUrl`s. */
export function resolvesFromBaseUrl(spec: string, local: LocalModules): boolean {
  for (const base of local.jsBaseUrls) {
    const target = posix.normalize(base ? `${base}/${spec}` : spec);
    if (target.startsWith('..')) continue;
    if (local.dirs.has(target)) return true;
    if (JS_EXTENSIONS.some((ext) => local.paths.has(target + ext))) return true;
  }
  return false;
}
