import { posix } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { pep503 } from './python-names.js';
import { isRecord } from '../../core/is-record.js';

/**
 * Dependency tables of a manifest with their version specs, grouped by table (`devDependencies`,
 * `project.dependencies`, `tool.poetry.group.dev`, …). The other parsers of this folder collect
 * names only (for grounding); G1 diffs these to say what a manifest edit changes.
 */

/** Dependency name (as written) → version spec ('' when unpinned). Keys are `group\0name`. */
export type DepMap = Map<string, string>;

/** Reads one manifest's dependency tables; throws when the text does not parse. */
export type DependencyReader = (text: string) => DepMap;

function specOf(v: unknown): string {
  if (typeof v === 'string') return v;
  // Poetry's multiple-constraint form: `foo = [{ version = "<2", python = "<3.9" }, { version = ">=2", python = ">=3.9" }]`
  if (Array.isArray(v))
    return v
      .map((item) => (isRecord(item) && typeof item.python === 'string' ? `${specOf(item)} (python ${item.python})` : specOf(item)))
      .join(' | ');
  if (isRecord(v)) {
    if (typeof v.version === 'string') return v.version;
    if (typeof v.git === 'string') return `git ${v.git}`;
    if (typeof v.path === 'string') return `path ${v.path}`;
    return JSON.stringify(v);
  }
  return String(v);
}

function addTable(out: DepMap, group: string, table: unknown): void {
  if (!isRecord(table)) return;
  for (const [name, spec] of Object.entries(table)) out.set(`${group}\0${name}`, specOf(spec));
}

/** PEP 508 requirement → [name, spec]: `requests[socks]>=2.31; python_version>"3.8"` → requests, `>=2.31; …`. */
function splitRequirement(req: string): [string, string] | null {
  const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(.*)$/.exec(req);
  if (!m) return null;
  return [pep503(m[1]!), m[2]!.trim()];
}

function addRequirements(out: DepMap, group: string, list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const item of list) {
    if (typeof item !== 'string') continue;
    const r = splitRequirement(item);
    if (r) out.set(`${group}\0${r[0]}`, r[1]);
  }
}

const readPackageJson: DependencyReader = (text) => {
  const doc: unknown = JSON.parse(text);
  const out: DepMap = new Map();
  if (!isRecord(doc)) return out;
  for (const g of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies', 'overrides', 'resolutions'])
    addTable(out, g, doc[g]);
  return out;
};

const readComposerJson: DependencyReader = (text) => {
  const doc: unknown = JSON.parse(text);
  const out: DepMap = new Map();
  if (isRecord(doc)) for (const g of ['require', 'require-dev']) addTable(out, g, doc[g]);
  return out;
};

const readPyproject: DependencyReader = (text) => {
  const doc: Record<string, unknown> = parseToml(text);
  const out: DepMap = new Map();
  const project = isRecord(doc.project) ? doc.project : {};
  addRequirements(out, 'project.dependencies', project.dependencies);
  if (isRecord(project['optional-dependencies'])) {
    for (const [extra, list] of Object.entries(project['optional-dependencies']))
      addRequirements(out, `optional-dependencies.${extra}`, list);
  }
  if (isRecord(doc['dependency-groups'])) {
    for (const [g, list] of Object.entries(doc['dependency-groups'])) addRequirements(out, `dependency-groups.${g}`, list);
  }
  if (isRecord(doc['build-system'])) addRequirements(out, 'build-system.requires', doc['build-system'].requires);
  const poetry = isRecord(doc.tool) && isRecord(doc.tool.poetry) ? doc.tool.poetry : null;
  if (poetry) {
    // An array here is the PEP 508 list written in the wrong place; read it anyway so the change is named.
    if (Array.isArray(poetry.dependencies)) addRequirements(out, 'tool.poetry.dependencies', poetry.dependencies);
    else addTable(out, 'tool.poetry.dependencies', poetry.dependencies);
    addTable(out, 'tool.poetry.dev-dependencies', poetry['dev-dependencies']);
    if (isRecord(poetry.group)) {
      for (const [g, body] of Object.entries(poetry.group)) if (isRecord(body)) addTable(out, `tool.poetry.group.${g}`, body.dependencies);
    }
  }
  return out;
};

const readCargoToml: DependencyReader = (text) => {
  const doc: Record<string, unknown> = parseToml(text);
  const out: DepMap = new Map();
  const kinds = ['dependencies', 'dev-dependencies', 'build-dependencies'];
  for (const k of kinds) addTable(out, k, doc[k]);
  if (isRecord(doc.workspace)) addTable(out, 'workspace.dependencies', doc.workspace.dependencies);
  if (isRecord(doc.target)) {
    for (const [cfg, body] of Object.entries(doc.target))
      if (isRecord(body)) for (const k of kinds) addTable(out, `target.${cfg}.${k}`, body[k]);
  }
  return out;
};

const readPipfile: DependencyReader = (text) => {
  const doc: Record<string, unknown> = parseToml(text);
  const out: DepMap = new Map();
  addTable(out, 'packages', doc.packages);
  addTable(out, 'dev-packages', doc['dev-packages']);
  return out;
};

const readRequirementsTxt: DependencyReader = (text) => {
  const out: DepMap = new Map();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!line || line.startsWith('-')) continue;
    const r = splitRequirement(line);
    if (r) out.set(`requirements\0${r[0]}`, r[1]);
  }
  return out;
};

const readGoMod: DependencyReader = (text) => {
  const out: DepMap = new Map();
  let inBlock = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (/^require\s*\($/.test(line)) inBlock = true;
    else if (inBlock && line === ')') inBlock = false;
    else {
      const m = inBlock ? /^(\S+)\s+(\S+)/.exec(line) : /^require\s+(\S+)\s+(\S+)/.exec(line);
      if (m) out.set(`require\0${m[1]}`, m[2]!);
    }
  }
  return out;
};

const READERS: Record<string, DependencyReader> = {
  'package.json': readPackageJson,
  'composer.json': readComposerJson,
  'pyproject.toml': readPyproject,
  'cargo.toml': readCargoToml,
  pipfile: readPipfile,
  'go.mod': readGoMod,
};

/** The dependency reader of a manifest path (package.json, composer.json, pyproject.toml, Cargo.toml, Pipfile, go.mod, requirements*.txt), or null. */
export function dependencyReaderFor(path: string): DependencyReader | null {
  const base = posix.basename(path).toLowerCase();
  if (/^requirements[^/]*\.txt$/.test(base)) return readRequirementsTxt;
  return READERS[base] ?? null;
}
