import type { ManifestInfo } from '../fingerprint-types.js';
import { pep503, requirementName } from './python-names.js';
import { dig, isTable, keysOf, readToml, stringsOf } from './toml-read.js';
import { readIni } from './ini-read.js';

function addRequirements(into: Set<string>, specs: string[]): void {
  for (const spec of specs) {
    const name = requirementName(spec);
    if (name) into.add(name);
  }
}

function addKeys(into: Set<string>, table: unknown): void {
  for (const k of keysOf(table)) if (k.toLowerCase() !== 'python') into.add(pep503(k));
}

/**
 * pyproject.toml: PEP 621 `[project]` dependencies and optional-dependencies, PEP 735
 * `[dependency-groups]`, `[build-system].requires`, Poetry's dependency tables (main, dev, every
 * group), PDM dev groups and uv dev-dependencies. The project's own name is recorded as local.
 */
export function parsePyproject(_path: string, text: string): ManifestInfo {
  const doc = readToml(text);
  const deps = new Set<string>();
  addRequirements(deps, stringsOf(dig(doc, 'project', 'dependencies')));
  const optional = dig(doc, 'project', 'optional-dependencies');
  for (const group of keysOf(optional)) addRequirements(deps, stringsOf(dig(optional, group)));
  const groups = dig(doc, 'dependency-groups');
  for (const group of keysOf(groups)) addRequirements(deps, stringsOf(dig(groups, group)));
  addRequirements(deps, stringsOf(dig(doc, 'build-system', 'requires')));

  const poetry = dig(doc, 'tool', 'poetry');
  addKeys(deps, dig(poetry, 'dependencies'));
  addKeys(deps, dig(poetry, 'dev-dependencies'));
  const poetryGroups = dig(poetry, 'group');
  for (const group of keysOf(poetryGroups)) addKeys(deps, dig(poetryGroups, group, 'dependencies'));

  const pdmDev = dig(doc, 'tool', 'pdm', 'dev-dependencies');
  for (const group of keysOf(pdmDev)) addRequirements(deps, stringsOf(dig(pdmDev, group)));
  addRequirements(deps, stringsOf(dig(doc, 'tool', 'uv', 'dev-dependencies')));

  const projects: string[] = [];
  for (const name of [dig(doc, 'project', 'name'), dig(poetry, 'name')]) {
    if (typeof name === 'string' && name.trim()) projects.push(pep503(name));
  }
  return { ecosystem: 'python', deps: [...deps], pythonProjects: projects };
}

/** Splits a multi-line INI value (`install_requires =\n    a\n    b>=1`), one requirement a line. */
function iniList(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(/\r?\n/)
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter((line) => line && !line.startsWith('file:'));
}

/** setup.cfg: `[options] install_requires / setup_requires / tests_require` and `[options.extras_require]`. */
export function parseSetupCfg(_path: string, text: string): ManifestInfo {
  const ini = readIni(text);
  const deps = new Set<string>();
  const options = ini.get('options');
  for (const key of ['install_requires', 'setup_requires', 'tests_require']) addRequirements(deps, iniList(options?.get(key)));
  const extras = ini.get('options.extras_require');
  for (const value of extras?.values() ?? []) addRequirements(deps, iniList(value));
  const name = ini.get('metadata')?.get('name');
  return { ecosystem: 'python', deps: [...deps], pythonProjects: name?.trim() ? [pep503(name)] : [] };
}

/** Pipfile (TOML): `[packages]` and `[dev-packages]` keys. */
export function parsePipfile(_path: string, text: string): ManifestInfo {
  const doc = readToml(text);
  const deps = new Set<string>();
  for (const table of ['packages', 'dev-packages']) if (isTable(doc[table])) addKeys(deps, doc[table]);
  return { ecosystem: 'python', deps: [...deps] };
}

const SETUP_PY_LISTS = /\b(?:install_requires|setup_requires|tests_require)\s*=\s*\[([^\]]*)\]/g;
const SETUP_PY_EXTRAS = /\bextras_require\s*=\s*\{([^}]*)\}/g;
const QUOTED = /(['"])([^'"\n]+)\1/g;

/**
 * setup.py, read without running it: string literals inside `install_requires=[…]` and friends and
 * inside `extras_require={…}` values. Lists built by code are invisible (a known limit).
 */
export function parseSetupPy(_path: string, text: string): ManifestInfo {
  const deps = new Set<string>();
  for (const m of text.matchAll(SETUP_PY_LISTS)) {
    addRequirements(
      deps,
      [...m[1]!.matchAll(QUOTED)].map((q) => q[2]!),
    );
  }
  for (const m of text.matchAll(SETUP_PY_EXTRAS)) {
    // Only the values: strings that follow a `:` or sit inside a list.
    for (const list of m[1]!.matchAll(/\[([^\]]*)\]/g))
      addRequirements(
        deps,
        [...list[1]!.matchAll(QUOTED)].map((q) => q[2]!),
      );
  }
  return { ecosystem: 'python', deps: [...deps] };
}
