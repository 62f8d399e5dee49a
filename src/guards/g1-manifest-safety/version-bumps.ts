import { parse as parseToml } from 'smol-toml';
import { isRecord } from '../../core/is-record.js';
import { basenameLower } from './path-rules.js';

/**
 * Is a manifest edit nothing but new versions of dependencies the manifest already had? Each reader
 * turns a manifest into a skeleton in which the version of every dependency is replaced by a
 * placeholder (only where that version is a plain version or range: a git URL, a path, an npm alias
 * or a `workspace:` protocol stays as written). Two versions of a file whose skeletons are equal,
 * and whose texts differ, changed versions only: no dependency added, removed or pointed elsewhere,
 * no extra, marker, feature, script or setting touched.
 */

const V = '<version>';

/**
 * The versions the current read replaced, in document order: equal skeletons with equal versions
 * are a formatting-only edit, not a bump. Reads are synchronous, so one list at a time is enough.
 */
let replaced: string[] = [];

/** The placeholder for `version`, remembering what it stood for. */
function mark(version: string): string {
  replaced.push(version.trim());
  return V;
}

/** npm and Cargo ranges: `^1.2.3`, `~1.2`, `>=1 <2`, `1.x`, `*`; no protocol, URL, path or alias. */
const RANGE = /^[\s\w.*^~<>=|,+-]*\d[\s\w.*^~<>=|,+-]*$/;
/** PEP 440 specifier sets: `==1.2.3`, `>=2,<3`, `~=1.4`. */
const PEP440 = /^\s*(?:(?:===|==|!=|~=|>=|<=|<|>)\s*[\w.*+!-]+\s*,?\s*)+$/;
/** Go module versions (`v1.2.3`, pseudo-versions, `+incompatible`). */
const GO_VERSION = /^v\d+\.\d+\.\d+[\w.+-]*$/;

const isRange = (v: unknown): v is string => typeof v === 'string' && RANGE.test(v);

/** `"^1.2.3"` → placeholder; `{ version = "1", features = [...] }` → the same table with the version replaced. */
function blankSpec(spec: unknown): unknown {
  if (isRange(spec)) return mark(spec);
  if (isRecord(spec) && isRange(spec.version)) return { ...spec, version: mark(spec.version) };
  return spec;
}

function blankTable(table: unknown): unknown {
  if (!isRecord(table)) return table;
  return Object.fromEntries(Object.entries(table).map(([name, spec]) => [name, blankSpec(spec)]));
}

/** The npm `packageManager` field (`pnpm@9.1.0+sha512.…`): the tool's version is a version too. */
function blankPackageManager(v: unknown): unknown {
  return typeof v === 'string' ? v.replace(/@(\d[\w.+-]*)$/, (_m, ver: string) => `@${mark(ver)}`) : v;
}

function packageJson(text: string): unknown {
  const doc: unknown = JSON.parse(text);
  if (!isRecord(doc)) return doc;
  const out: Record<string, unknown> = { ...doc };
  for (const g of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'])
    if (g in out) out[g] = blankTable(out[g]);
  if ('packageManager' in out) out.packageManager = blankPackageManager(out.packageManager);
  return out;
}

/** One PEP 508 requirement with its version specifier replaced (`requests[socks]>=2; python_version<"3.8"`). */
function blankRequirement(req: unknown): unknown {
  if (typeof req !== 'string') return req;
  const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*([^;@]*?)\s*(;.*)?$/.exec(req);
  if (!m) return req;
  const [, name = '', extras = '', spec = '', marker = ''] = m;
  if (spec && !PEP440.test(spec)) return req;
  return `${name.toLowerCase()}${extras.replace(/\s+/g, '')}${spec ? mark(spec) : ''}${marker.replace(/\s+/g, '')}`;
}

const blankRequirements = (list: unknown): unknown => (Array.isArray(list) ? list.map(blankRequirement) : list);

function blankRequirementTables(table: unknown): unknown {
  if (!isRecord(table)) return table;
  return Object.fromEntries(Object.entries(table).map(([k, v]) => [k, blankRequirements(v)]));
}

function pyproject(text: string): unknown {
  const doc: Record<string, unknown> = parseToml(text);
  const out: Record<string, unknown> = { ...doc };
  if (isRecord(doc.project)) {
    const project: Record<string, unknown> = { ...doc.project };
    if ('dependencies' in project) project.dependencies = blankRequirements(project.dependencies);
    if ('optional-dependencies' in project) project['optional-dependencies'] = blankRequirementTables(project['optional-dependencies']);
    out.project = project;
  }
  if ('dependency-groups' in doc) out['dependency-groups'] = blankRequirementTables(doc['dependency-groups']);
  if (isRecord(doc['build-system']))
    out['build-system'] = { ...doc['build-system'], requires: blankRequirements(doc['build-system'].requires) };
  const poetry = isRecord(doc.tool) && isRecord(doc.tool.poetry) ? doc.tool.poetry : null;
  if (poetry && isRecord(doc.tool)) {
    const p: Record<string, unknown> = { ...poetry };
    for (const g of ['dependencies', 'dev-dependencies']) if (g in p) p[g] = blankPoetry(p[g]);
    if (isRecord(p.group)) {
      p.group = Object.fromEntries(
        Object.entries(p.group).map(([g, body]) => [g, isRecord(body) ? { ...body, dependencies: blankPoetry(body.dependencies) } : body]),
      );
    }
    out.tool = { ...doc.tool, poetry: p };
  }
  return out;
}

/** Poetry constraints are npm-like (`^1.2`, `>=2,<3`) as strings or `{ version = … }` tables. */
function blankPoetry(table: unknown): unknown {
  if (!isRecord(table)) return table;
  return Object.fromEntries(Object.entries(table).map(([name, spec]) => [name, name === 'python' ? spec : blankSpec(spec)]));
}

function cargoToml(text: string): unknown {
  const doc: Record<string, unknown> = parseToml(text);
  const kinds = ['dependencies', 'dev-dependencies', 'build-dependencies'];
  const blankKinds = (t: Record<string, unknown>) => {
    const out = { ...t };
    for (const k of kinds) if (k in out) out[k] = blankTable(out[k]);
    return out;
  };
  const out = blankKinds(doc);
  if (isRecord(doc.workspace)) out.workspace = { ...doc.workspace, dependencies: blankTable(doc.workspace.dependencies) };
  if (isRecord(doc.target)) {
    out.target = Object.fromEntries(Object.entries(doc.target).map(([cfg, body]) => [cfg, isRecord(body) ? blankKinds(body) : body]));
  }
  return out;
}

/** Lines of a requirements file without comments, blank lines and `--hash` options (they change with every bump). */
function requirementsTxt(text: string): unknown {
  const joined = text.replace(/\\\r?\n/g, ' ');
  const out: string[] = [];
  for (const raw of joined.split(/\r?\n/)) {
    const line = raw
      .replace(/(^|\s)#.*$/, '')
      .replace(/\s--hash[=\s]\S+/g, '')
      .trim();
    if (!line) continue;
    out.push(line.startsWith('-') ? line : String(blankRequirement(line)));
  }
  return out;
}

/** go.mod lines with the version of every `require` replaced (inside and outside a block). */
function goMod(text: string): unknown {
  const out: string[] = [];
  let inRequire = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s+/g, ' ').trim();
    if (!line) continue;
    if (/^require ?\($/.test(line)) {
      inRequire = true;
      out.push(line);
      continue;
    }
    if (inRequire && line === ')') inRequire = false;
    const m = (inRequire ? /^(\S+) (\S+)(.*)$/ : /^(require \S+) (\S+)(.*)$/).exec(line);
    out.push(m && GO_VERSION.test(m[2]!) ? `${m[1]} ${mark(m[2]!)}${m[3]}` : line);
  }
  return out;
}

/** Maven: the `<version>` of dependencies, plugins, extensions and the parent, and `*version` properties. */
function pomXml(text: string): unknown {
  let s = text.replace(/<!--[\s\S]*?-->/g, '');
  s = s.replace(/<(dependency|plugin|extension|parent)>[\s\S]*?<\/\1>/g, (block) =>
    block.replace(/<version>\s*([^<$]+?)\s*<\/version>/g, (_m, ver: string) => `<version>${mark(ver)}</version>`),
  );
  s = s.replace(/<properties>[\s\S]*?<\/properties>/g, (block) =>
    block.replace(/<([\w.-]*version)>\s*([^<$]+?)\s*<\/\1>/gi, (whole, name: string, ver: string) =>
      /^(?:java|maven\.compiler)[.-]/i.test(name) ? whole : `<${name}>${mark(ver)}</${name}>`,
    ),
  );
  return s.replace(/\s+/g, ' ').trim();
}

/** Gradle: `"group:artifact:1.2.3"` coordinates, and `[versions]` of a version catalog. */
function gradle(text: string): unknown {
  return text
    .replace(/(["'][\w.-]+:[\w.-]+:)(\d[\w.+-]*)(["'])/g, (_m, head: string, ver: string, quote: string) => `${head}${mark(ver)}${quote}`)
    .replace(/\s+/g, ' ')
    .trim();
}

function versionCatalog(text: string): unknown {
  const doc: Record<string, unknown> = parseToml(text);
  const out: Record<string, unknown> = { ...doc };
  if (isRecord(doc.versions))
    out.versions = Object.fromEntries(Object.entries(doc.versions).map(([k, v]) => [k, typeof v === 'string' ? mark(v) : v]));
  if (isRecord(doc.libraries) || isRecord(doc.plugins)) {
    for (const t of ['libraries', 'plugins']) {
      const table = doc[t];
      if (!isRecord(table)) continue;
      out[t] = Object.fromEntries(
        Object.entries(table).map(([k, v]) => [
          k,
          typeof v === 'string' ? v.replace(/:(\d[\w.+-]*)$/, (_m, ver: string) => `:${mark(ver)}`) : blankSpec(v),
        ]),
      );
    }
  }
  return out;
}

type Skeleton = (text: string) => unknown;

function skeletonReader(path: string): Skeleton | null {
  const base = basenameLower(path);
  if (/^requirements.*\.(?:txt|in)$/.test(base)) return requirementsTxt;
  switch (base) {
    case 'package.json':
      return packageJson;
    case 'pyproject.toml':
      return pyproject;
    case 'cargo.toml':
      return cargoToml;
    case 'go.mod':
      return goMod;
    case 'pom.xml':
      return pomXml;
    case 'build.gradle':
    case 'build.gradle.kts':
      return gradle;
    case 'libs.versions.toml':
      return versionCatalog;
    default:
      return null;
  }
}

/** The skeleton of one side and the versions it replaced; null when the text does not parse. */
function read(reader: Skeleton, text: string): { skeleton: string; versions: string[] } | null {
  replaced = [];
  try {
    const skeleton = JSON.stringify(reader(text));
    return { skeleton, versions: replaced };
  } catch {
    return null;
  } finally {
    replaced = [];
  }
}

/**
 * `versions` when `before` → `after` changes nothing but versions of dependencies both sides declare
 * (package.json, pyproject.toml, requirements*.txt, Cargo.toml, go.mod, pom.xml, Gradle files and
 * version catalogs); `formatting` when not even a version changed (whitespace, comments, order of
 * nothing); null when anything else changed, one side does not parse, or the kind is not read here.
 */
export function versionOnlyEdit(path: string, before: string | null, after: string | null): 'versions' | 'formatting' | null {
  if (before === null || after === null || before === after) return null;
  const reader = skeletonReader(path);
  if (!reader) return null;
  const a = read(reader, before);
  const b = read(reader, after);
  if (a?.skeleton === undefined || a.skeleton !== b?.skeleton) return null;
  return a.versions.join('\0') === b.versions.join('\0') ? 'formatting' : 'versions';
}
