import { parse as parseToml } from 'smol-toml';
import { jsonObject, parseJsonAs } from '../../core/parse-data.js';
import { basenameLower } from './path-rules.js';

/**
 * What a manifest edit changed besides dependencies: TOML tables (`[tool.ruff]`, `[profile.release]`)
 * or package.json top-level keys added, removed, renamed or edited. Each change says whether it can
 * alter what a build installs or runs (`build`) or only configures a tool (`tool`): a PR that only
 * touches tool configuration is a `nit`, not a risk.
 */
export interface SectionChange {
  /** `[tool.ruff]` for TOML, `"scripts.postinstall"` / `"prettier"` for package.json. */
  section: string;
  kind: 'added' | 'removed' | 'changed' | 'renamed';
  /** For renames: the old name. */
  from?: string;
  /** For a changed TOML table: which of its own keys changed (`version` 0.3.0 → 0.4.0). */
  keys?: string[];
  impact: 'tool' | 'build';
}

type Flat = Map<string, string>;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** Tables of a TOML document as dotted names → their own (non-table) content, serialised. */
function tomlTables(doc: Record<string, unknown>): Flat {
  const out: Flat = new Map();
  const walk = (table: Record<string, unknown>, name: string) => {
    const own: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(table)) if (!isRecord(v)) own[k] = v;
    if (name)
      out.set(
        name,
        JSON.stringify(own, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
      );
    for (const [k, v] of Object.entries(table)) if (isRecord(v)) walk(v, name ? `${name}.${k}` : k);
  };
  walk(doc, '');
  return out;
}

/** Dependency tables: their edits are reported as dependency changes, not as sections. */
const TOML_DEPENDENCY_TABLE =
  /^(?:(?:workspace|target\.[^.]+(?:\.[^.]+)*)\.)?(?:dependencies|dev-dependencies|build-dependencies)(?:\..+)?$|^tool\.poetry\.(?:dependencies|dev-dependencies|group\.[^.]+\.dependencies)(?:\..+)?$|^project\.optional-dependencies$|^dependency-groups$|^packages$|^dev-packages$/;

/** pyproject tools that build, package or install (their tables decide what ships or installs). */
const BUILD_TOOLS = new Set([
  'poetry',
  'setuptools',
  'setuptools_scm',
  'hatch',
  'pdm',
  'flit',
  'maturin',
  'scikit-build',
  'uv',
  'pixi',
  'cibuildwheel',
  'meson-python',
  'pdm-backend',
]);

/** [project] keys that only describe the project. */
const PROJECT_METADATA = new Set([
  'description',
  'readme',
  'keywords',
  'classifiers',
  'urls',
  'authors',
  'maintainers',
  'license',
  'license-files',
]);

function pyprojectImpact(table: string): SectionChange['impact'] {
  const m = /^tool\.([^.]+)/.exec(table);
  if (m) return BUILD_TOOLS.has(m[1]!) ? 'build' : 'tool';
  if (table === 'project.urls') return 'tool';
  return 'build';
}

function cargoImpact(table: string): SectionChange['impact'] {
  return /^(?:workspace\.)?(?:lints|metadata)(?:\.|$)|^profile(?:\.|$)|^package\.metadata(?:\.|$)|^badges(?:\.|$)/.test(table)
    ? 'tool'
    : 'build';
}

/** package.json keys that can change what installs or runs; everything else configures a tool. */
const NPM_BUILD_KEYS = new Set([
  'workspaces',
  'packageManager',
  'publishConfig',
  'bundledDependencies',
  'bundleDependencies',
  'bin',
  'main',
  'module',
  'exports',
  'files',
  'type',
  'engines',
  'os',
  'cpu',
  'name',
  'private',
]);
/** Scripts npm runs by itself on install or publish. */
const NPM_LIFECYCLE = new Set([
  'preinstall',
  'install',
  'postinstall',
  'prepare',
  'prepublish',
  'prepublishOnly',
  'prepack',
  'postpack',
  'dependencies',
]);
const NPM_DEPENDENCY_KEYS = new Set([
  'dependencies',
  'devDependencies',
  'peerDependencies',
  'optionalDependencies',
  'overrides',
  'resolutions',
  'peerDependenciesMeta',
]);

function npmSections(text: string): Flat {
  const doc: unknown = JSON.parse(text);
  const out: Flat = new Map();
  if (!isRecord(doc)) return out;
  for (const [k, v] of Object.entries(doc)) {
    if (NPM_DEPENDENCY_KEYS.has(k)) continue;
    if (k === 'scripts' && isRecord(v)) {
      for (const [name, cmd] of Object.entries(v)) out.set(`scripts.${name}`, JSON.stringify(cmd));
    } else out.set(k, JSON.stringify(v));
  }
  return out;
}

function npmImpact(key: string): SectionChange['impact'] {
  if (key.startsWith('scripts.')) return NPM_LIFECYCLE.has(key.slice('scripts.'.length)) ? 'build' : 'tool';
  return NPM_BUILD_KEYS.has(key) ? 'build' : 'tool';
}

interface Reader {
  read(text: string): Flat;
  impact(section: string): SectionChange['impact'];
  label(section: string): string;
  /** What changed inside a section whose label does not say it already (TOML tables). */
  keys?(before: string, after: string): string[];
}

/** At most this many changed keys of one table are named. */
const MAX_KEYS = 3;

const scalar = (v: unknown): string | null => {
  if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return null;
  const t = String(v);
  return t.length > 40 ? `${t.slice(0, 39)}…` : t;
};

/** The own keys of a TOML table, from the JSON text `tomlTables` keeps of them. */
function ownKeys(json: string): Record<string, unknown> {
  return parseJsonAs(jsonObject, json, 'the own keys of a TOML table');
}

/** "`version` 0.3.0 → 0.4.0", "`edition` added", "`features`" for the own keys of a TOML table that differ. */
function tableKeys(before: string, after: string): string[] {
  const a = ownKeys(before);
  const b = ownKeys(after);
  const out: string[] = [];
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (JSON.stringify(a[k]) === JSON.stringify(b[k])) continue;
    const name = `\`${k.replace(/`/g, "'")}\``;
    const from = scalar(a[k]);
    const to = scalar(b[k]);
    if (!(k in a)) out.push(`${name} added`);
    else if (!(k in b)) out.push(`${name} removed`);
    else out.push(from !== null && to !== null ? `${name} ${from} → ${to}` : name);
  }
  return out;
}

const tomlReader = (impact: Reader['impact'], skipKeysOf?: (table: string, own: string) => string): Reader => ({
  read: (text) => {
    const flat = tomlTables(parseToml(text));
    for (const name of [...flat.keys()]) if (TOML_DEPENDENCY_TABLE.test(name)) flat.delete(name);
    if (skipKeysOf) for (const [name, own] of flat) flat.set(name, skipKeysOf(name, own));
    return flat;
  },
  impact,
  label: (s) => `[${s}]`,
  keys: tableKeys,
});

/** [project]: dependency arrays are reported as dependencies; metadata-only edits are tool-level. */
function projectContent(name: string, own: string): string {
  if (name !== 'project') return own;
  const o = ownKeys(own);
  delete o.dependencies;
  delete o['optional-dependencies'];
  return JSON.stringify(o);
}

const READERS: Record<string, Reader> = {
  'pyproject.toml': tomlReader(pyprojectImpact, projectContent),
  'cargo.toml': tomlReader(cargoImpact),
  pipfile: tomlReader(() => 'build'),
  'package.json': { read: npmSections, impact: npmImpact, label: (s) => `\`${s}\`` },
};

/** For [project]: true when only metadata keys differ (description, classifiers, urls …). */
function projectMetadataOnly(before: string, after: string): boolean {
  const a = ownKeys(before);
  const b = ownKeys(after);
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => PROJECT_METADATA.has(k) || JSON.stringify(a[k]) === JSON.stringify(b[k]));
}

/** Section changes between two versions of a manifest; null when not understood or unparsable. */
export function sectionChanges(path: string, before: string | null, after: string | null): SectionChange[] | null {
  const reader = READERS[basenameLower(path)];
  if (!reader) return null;
  let a: Flat;
  let b: Flat;
  try {
    a = before === null ? new Map<string, string>() : reader.read(before);
    b = after === null ? new Map<string, string>() : reader.read(after);
  } catch {
    return null;
  }
  const added = [...b.keys()].filter((k) => !a.has(k));
  const removed = [...a.keys()].filter((k) => !b.has(k));
  const out: SectionChange[] = [];
  const renamedFrom = new Set<string>();
  for (const name of added) {
    const twin = removed.find((r) => !renamedFrom.has(r) && a.get(r) === b.get(name) && a.get(r) !== '{}');
    if (twin) {
      renamedFrom.add(twin);
      const impact = reader.impact(name) === 'tool' && reader.impact(twin) === 'tool' ? 'tool' : 'build';
      out.push({ section: reader.label(name), kind: 'renamed', from: reader.label(twin), impact });
    } else out.push({ section: reader.label(name), kind: 'added', impact: reader.impact(name) });
  }
  for (const name of removed)
    if (!renamedFrom.has(name)) out.push({ section: reader.label(name), kind: 'removed', impact: reader.impact(name) });
  for (const [name, value] of b) {
    const prev = a.get(name);
    if (prev === undefined || prev === value) continue;
    let impact = reader.impact(name);
    if (name === 'project' && basenameLower(path) === 'pyproject.toml' && projectMetadataOnly(prev, value)) impact = 'tool';
    const keys = reader.keys?.(prev, value);
    out.push({ section: reader.label(name), kind: 'changed', impact, ...(keys?.length ? { keys } : {}) });
  }
  return out;
}

/** "adds [tool.ruff]", "renames [tool.black] to [tool.ruff.format]", "changes `scripts.test`". */
export function describeSection(c: SectionChange): string {
  switch (c.kind) {
    case 'added':
      return `adds ${c.section}`;
    case 'removed':
      return `removes ${c.section}`;
    case 'renamed':
      return `renames ${c.from} to ${c.section}`;
    default: {
      if (!c.keys) return `changes ${c.section}`;
      const more = c.keys.length > MAX_KEYS ? ` and ${c.keys.length - MAX_KEYS} more` : '';
      return `changes ${c.section} (${c.keys.slice(0, MAX_KEYS).join(', ')}${more})`;
    }
  }
}
