import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import picomatch from 'picomatch';
import type { Revision } from '../../core/revision.js';
import { readIni } from '../../repo/manifests/ini-read.js';
import { pep503, requirementName } from '../../repo/manifests/python-names.js';
import { dig, isTable, keysOf, readToml, stringsOf, type Table } from '../../repo/manifests/toml-read.js';
import { poetryRequirement } from './poetry-constraint.js';

/**
 * What a Python project's tests need installed, read from the tree without running any of its code:
 * the project's dependencies and its test extras and dependency groups (PEP 621, PEP 735, Poetry,
 * setup.cfg), the requirements files its CI, tox or Makefile installs, tox's `deps`, and the versions
 * a lockfile pins (used as constraints). The project itself is never installed: the test gate imports
 * it from the tree under test.
 */

/** Extras and dependency groups that hold what tests need. */
export const TEST_GROUPS = ['test', 'tests', 'testing', 'dev'];

/**
 * The groups of `names` the tests need: the test ones (`test`, `tests`, `testing`, any name with
 * "test"); `dev` only when there is none, since a `dev` beside a `test` group is everything a
 * developer uses (docs, release tools, type checkers), often for another Python.
 */
export function testGroups(names: string[]): string[] {
  const tests = names.filter((g) => (TEST_GROUPS.includes(g.toLowerCase()) && g.toLowerCase() !== 'dev') || /test/i.test(g));
  return tests.length ? tests : names.filter((g) => g.toLowerCase() === 'dev');
}

export interface PythonRequirements {
  /** The project's distribution name (PEP 503), when it declares one. */
  name: string | null;
  /** PEP 508 requirement lines (the project itself excluded). */
  requirements: string[];
  /** `name==version` lines from a lockfile, used as pip constraints. */
  constraints: string[];
  /** Where the constraints come from. */
  lockfile: string | null;
  /** The dependencies are computed by setup.py or a build backend: the project must be built to learn them. */
  dynamic: boolean;
  /** The extras to ask for when the project has to be built. */
  extras: string[];
  /** `requires-python`, when declared. */
  requiresPython: string | null;
  /** Every file read (for the cache key and for blaming a failed install on what the PR changed). */
  inputs: string[];
  notes: string[];
}

const CONVENTIONAL_REQUIREMENTS = [
  'requirements.txt',
  'requirements-dev.txt',
  'requirements_dev.txt',
  'requirements-test.txt',
  'requirements_test.txt',
  'requirements-tests.txt',
  'requirements_tests.txt',
  'requirements-testing.txt',
  'test-requirements.txt',
  'test_requirements.txt',
  'dev-requirements.txt',
  'dev_requirements.txt',
  'requirements/test.txt',
  'requirements/tests.txt',
  'requirements/testing.txt',
  'requirements/dev.txt',
  'requirements/base.txt',
  'tests/requirements.txt',
];

/** `-r file` / `--requirement file` in CI steps, tox and Makefiles. */
const REQ_REF = /(?:^|\s)(?:-r|--requirement)(?:\s*=?\s*)["']?(?:\{toxinidir\}\/)?([\w./-]+\.(?:txt|in))/g;
/** `pip install -e ".[test,dev]"`, `pip install .[tests]`. */
const SELF_EXTRAS = /pip3?\s+install\b[^\n]*?(?:^|\s)(?:-e\s+)?["']?\.\[([\w,\s-]+)\]/g;

function isDocsPath(p: string): boolean {
  return (
    /(^|\/)(docs?|documentation)(\/|[-_.])/i.test(p) || /(^|[-_/])docs?[-_.]?requirements/i.test(p) || /requirements[-_/]docs?\b/i.test(p)
  );
}

/** A requirement that names the project itself, with the extras it asks for. */
function selfReference(req: string, name: string | null): string[] | null {
  if (!name || requirementName(req) !== name) return null;
  const extras = /^[^[;]*\[([^\]]*)\]/.exec(req)?.[1];
  return extras
    ? extras
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean)
    : [];
}

/** Dependency groups (PEP 735), with `{include-group = "x"}` followed. */
function groupRequirements(groups: unknown, name: string, seen = new Set<string>()): string[] {
  if (seen.has(name) || !isTable(groups)) return [];
  seen.add(name);
  const items = groups[name];
  if (!Array.isArray(items)) return [];
  const out: string[] = [];
  for (const item of items) {
    if (typeof item === 'string') out.push(item);
    else if (isTable(item) && typeof item['include-group'] === 'string')
      out.push(...groupRequirements(groups, item['include-group'], seen));
  }
  return out;
}

/** One requirements file's lines, includes followed (within the tree); the project itself and index options dropped. */
async function requirementsFile(
  rev: Revision,
  path: string,
  name: string | null,
  out: { reqs: string[]; constraints: string[]; extras: Set<string>; inputs: Set<string>; notes: string[] },
  depth = 0,
): Promise<void> {
  if (out.inputs.has(path) || depth > 5) return;
  const text = await rev.readText(path);
  if (text === null) return;
  out.inputs.add(path);
  const dir = posix.dirname(path);
  for (const raw of text.replace(/\\\r?\n/g, ' ').split(/\r?\n/)) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!line) continue;
    const include = /^(-r|--requirement|-c|--constraint)(?:\s+|=)(\S+)/.exec(line);
    if (include) {
      const target = posix.normalize(posix.join(dir, include[2]!));
      if (target.startsWith('../') || posix.isAbsolute(include[2]!)) continue;
      if (include[1]!.startsWith('-c') || include[1] === '--constraint') {
        const ctext = await rev.readText(target);
        if (ctext !== null) {
          out.inputs.add(target);
          for (const c of ctext.split(/\r?\n/)) {
            const l = c.replace(/(^|\s)#.*$/, '').trim();
            if (l && !l.startsWith('-')) out.constraints.push(l);
          }
        }
      } else await requirementsFile(rev, target, name, out, depth + 1);
      continue;
    }
    const editable = /^(?:-e|--editable)(?:\s+|=)(\S+)$/.exec(line);
    const target = editable ? editable[1]! : line;
    // The project itself (`.`, `-e .[test]`, `file:.`): its extras are wanted, the project is not.
    const local = /^(?:file:)?\.\/?(?:\[([^\]]*)\])?$/.exec(target);
    if (local) {
      for (const e of (local[1] ?? '').split(',')) if (e.trim()) out.extras.add(e.trim());
      continue;
    }
    if (editable || target.startsWith('.') || target.startsWith('/')) {
      out.notes.push(`\`${line.slice(0, 80)}\` in ${path} is a local or editable path; it was not installed`);
      continue;
    }
    if (line.startsWith('-')) {
      if (/^(-i|--index-url|--extra-index-url|-f|--find-links|--trusted-host)\b/.test(line))
        out.notes.push(`${path} sets its own package index (\`${line.split(/\s+/)[0]}\`); the operator's index was used instead`);
      continue;
    }
    const self = selfReference(line, name);
    if (self) {
      for (const e of self) out.extras.add(e);
      continue;
    }
    out.reqs.push(line.replace(/\s--hash[= ]\S+/g, '').trim());
  }
}

/** Files of the CI, tox and make setup that say which requirements files and extras the tests install. */
async function ciSources(rev: Revision, paths: string[]): Promise<{ files: string[]; extras: string[]; texts: string[] }> {
  const sources = paths.filter(
    (p) =>
      /^\.github\/workflows\/[^/]+\.ya?ml$/.test(p) || p === 'tox.ini' || p === 'Makefile' || p === 'noxfile.py' || p === '.gitlab-ci.yml',
  );
  const texts = [...(await rev.readTexts(sources)).values()];
  const files = new Set<string>();
  const extras = new Set<string>();
  for (const t of texts) {
    for (const m of t.matchAll(REQ_REF)) files.add(posix.normalize(m[1]!));
    for (const m of t.matchAll(SELF_EXTRAS)) for (const e of m[1]!.split(',')) if (e.trim()) extras.add(e.trim());
  }
  return { files: [...files].filter((f) => paths.includes(f) && !isDocsPath(f)), extras: [...extras], texts };
}

/** tox's `[testenv] deps` (plain requirement lines and `-r` includes) and `extras`. */
function toxTestenv(toxIni: string | null): { deps: string[]; extras: string[] } {
  if (!toxIni) return { deps: [], extras: [] };
  const env = readIni(toxIni).get('testenv');
  const lines = (v: string | undefined) =>
    (v ?? '')
      .split(/\r?\n/)
      .map((l) => l.replace(/(^|\s)#.*$/, '').trim())
      .filter(Boolean);
  // `coverage: coverage`, `py{310}-x: y`: a line for some environments only (a factor condition) is not the test env's.
  const deps = lines(env?.get('deps')).filter((l) => !/^[\w!{},.-]+:\s/.test(l) && (!l.includes('{') || /^-r\s*\{toxinidir\}\//.test(l)));
  const extras = lines(env?.get('extras')).flatMap((l) => l.split(',').map((e) => e.trim()));
  return { deps, extras: extras.filter(Boolean) };
}

/** Pins from a lockfile: one `name==version` per package that has a single version in it. */
export function lockConstraints(path: string, text: string): string[] {
  const versions = new Map<string, Set<string>>();
  const add = (name: unknown, version: unknown) => {
    if (typeof name !== 'string' || typeof version !== 'string') return;
    const n = pep503(name);
    const seen = versions.get(n) ?? new Set<string>();
    seen.add(version);
    versions.set(n, seen);
  };
  if (path.endsWith('Pipfile.lock')) {
    try {
      const doc: unknown = JSON.parse(text);
      for (const section of ['default', 'develop']) {
        const s = dig(doc, section);
        if (isTable(s))
          for (const [n, v] of Object.entries(s))
            add(n, typeof dig(v, 'version') === 'string' ? String(dig(v, 'version')).replace(/^==/, '') : undefined);
      }
    } catch {
      return [];
    }
  } else {
    const doc = readToml(text);
    const pkgs = doc.package;
    if (Array.isArray(pkgs))
      for (const p of pkgs) {
        if (!isTable(p)) continue;
        const source = p.source;
        // uv: the project itself and path/git sources are not on an index.
        if (isTable(source) && !('registry' in source)) continue;
        add(p.name, p.version);
      }
  }
  return [...versions]
    .filter(([, v]) => v.size === 1)
    .map(([n, v]) => `${n}==${[...v][0]!}`)
    .sort();
}

const LOCKFILES = ['uv.lock', 'poetry.lock', 'pdm.lock', 'Pipfile.lock'];

/**
 * Lockfiles are large (click's uv.lock: 250 KB of TOML, a quarter of a second to parse) and the base
 * and the head of a PR nearly always hold the same one: each content is read once per process.
 */
const lockMemo = new Map<string, string[]>();
const LOCK_MEMO_MAX = 8;

function lockConstraintsOnce(path: string, text: string): string[] {
  const key = `${path}\0${createHash('sha256').update(text).digest('hex')}`;
  let pins = lockMemo.get(key);
  if (!pins) {
    pins = lockConstraints(path, text);
    const oldest = lockMemo.keys().next();
    if (lockMemo.size >= LOCK_MEMO_MAX && !oldest.done) lockMemo.delete(oldest.value);
    lockMemo.set(key, pins);
  }
  return [...pins];
}

export async function readPythonRequirements(rev: Revision): Promise<PythonRequirements> {
  const paths = await rev.paths();
  const has = new Set(paths);
  const notes: string[] = [];
  const inputs = new Set<string>();
  const reqs: string[] = [];
  const extras = new Set<string>();
  const pyText = await rev.readText('pyproject.toml');
  const py: Table = pyText ? readToml(pyText) : {};
  if (pyText) inputs.add('pyproject.toml');
  const project = isTable(py.project) ? py.project : null;
  const poetry = dig(py, 'tool', 'poetry');
  const cfgText = await rev.readText('setup.cfg');
  const cfg = cfgText ? readIni(cfgText) : null;
  if (cfgText) inputs.add('setup.cfg');
  const rawName =
    (typeof project?.name === 'string' ? project.name : null) ??
    (typeof dig(poetry, 'name') === 'string' ? (dig(poetry, 'name') as string) : null) ?? // cast: checked to be a string just before
    cfg?.get('metadata')?.get('name') ??
    null;
  const name = rawName ? pep503(rawName) : null;
  let dynamic = false;
  let requiresPython = typeof project?.['requires-python'] === 'string' ? project['requires-python'] : null;

  const declaredExtras = new Set<string>();
  if (project) {
    const dyn = stringsOf(project.dynamic);
    if (dyn.includes('dependencies') || dyn.includes('optional-dependencies')) dynamic = true;
    reqs.push(...stringsOf(project.dependencies));
    for (const e of keysOf(project['optional-dependencies'])) declaredExtras.add(e);
  } else if (isTable(poetry)) {
    const deps = dig(poetry, 'dependencies');
    if (isTable(deps)) {
      for (const [n, spec] of Object.entries(deps)) {
        if (n.toLowerCase() === 'python') {
          requiresPython ??= typeof spec === 'string' ? (poetryRequirement('python', spec)?.replace(/^python/, '') ?? null) : null;
          continue;
        }
        const r = poetryRequirement(n, spec);
        if (r) reqs.push(r);
        else notes.push(`Poetry dependency \`${n}\` is a path, git or URL source; it was not installed`);
      }
    }
    const groups = dig(poetry, 'group');
    const legacy = dig(poetry, 'dev-dependencies');
    const groupTables = [...TEST_GROUPS.map((g) => dig(groups, g, 'dependencies')), legacy];
    for (const t of groupTables)
      if (isTable(t))
        for (const [n, spec] of Object.entries(t)) {
          const r = poetryRequirement(n, spec);
          if (r) reqs.push(r);
        }
    for (const e of keysOf(dig(poetry, 'extras'))) declaredExtras.add(e);
  } else if (cfg?.get('options')?.has('install_requires') || cfg?.has('options.extras_require')) {
    const lines = (v: string | undefined) =>
      (v ?? '')
        .split(/\r?\n|;(?=\s*\w+\s*[<>=!~])/)
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith('#'));
    reqs.push(...lines(cfg.get('options')?.get('install_requires')));
    requiresPython ??= cfg.get('options')?.get('python_requires')?.trim() ?? null;
    for (const e of cfg.get('options.extras_require')?.keys() ?? []) declaredExtras.add(e);
  } else if (has.has('setup.py')) {
    dynamic = true;
  }
  if (has.has('setup.py')) inputs.add('setup.py');

  // Extras: the test-ish ones the project declares, and the ones its CI installs (`pip install -e .[test]`).
  const ci = await ciSources(rev, paths);
  const tox = toxTestenv(await rev.readText('tox.ini'));
  for (const e of [...ci.extras, ...tox.extras]) extras.add(e);
  for (const e of declaredExtras) if (TEST_GROUPS.includes(e.toLowerCase()) || /test/i.test(e)) extras.add(e);

  // PEP 735 dependency groups, and uv's older dev-dependencies.
  const groups = py['dependency-groups'];
  for (const g of testGroups(keysOf(groups))) reqs.push(...groupRequirements(groups, g));
  reqs.push(...stringsOf(dig(py, 'tool', 'uv', 'dev-dependencies')));
  reqs.push(
    ...stringsOf(dig(py, 'tool', 'pdm', 'dev-dependencies', 'test')),
    ...stringsOf(dig(py, 'tool', 'pdm', 'dev-dependencies', 'dev')),
  );

  // A uv workspace: the members' own dependencies and test groups too (their tests live in this tree).
  const members = stringsOf(dig(py, 'tool', 'uv', 'workspace', 'members'));
  if (members.length) {
    const isMember = picomatch(members.map((m) => `${m.replace(/\/+$/, '')}/pyproject.toml`));
    for (const mp of paths.filter((p) => p !== 'pyproject.toml' && isMember(p)).slice(0, 20)) {
      const text = await rev.readText(mp);
      if (text === null) continue;
      inputs.add(mp);
      const m = readToml(text);
      reqs.push(...stringsOf(dig(m, 'project', 'dependencies')));
      const mg = m['dependency-groups'];
      for (const g of testGroups(keysOf(mg))) reqs.push(...groupRequirements(mg, g));
    }
  }

  // Requirements files: what CI/tox/make name, else the conventional ones.
  const files = new Set(ci.files);
  if (files.size === 0) for (const f of CONVENTIONAL_REQUIREMENTS) if (has.has(f)) files.add(f);
  const fromFiles = { reqs: [] as string[], constraints: [] as string[], extras, inputs, notes };
  for (const f of [...files].sort()) await requirementsFile(rev, f, name, fromFiles);
  for (const d of tox.deps) {
    const include = /^-r\s*(?:\{toxinidir\}\/)?(\S+)$/.exec(d);
    if (include) await requirementsFile(rev, posix.normalize(include[1]!), name, fromFiles);
    else if (!d.startsWith('-')) reqs.push(d);
  }
  if (has.has('tox.ini')) inputs.add('tox.ini');
  reqs.push(...fromFiles.reqs);

  // The extras' own requirements, when they are static (a self-referencing extra expands to its parts).
  const expandExtra = (extra: string, seen: Set<string>): string[] => {
    if (seen.has(extra)) return [];
    seen.add(extra);
    const list = project
      ? stringsOf(dig(project, 'optional-dependencies', extra))
      : (cfg
          ?.get('options.extras_require')
          ?.get(extra)
          ?.split(/\r?\n/)
          .map((l) => l.trim())
          .filter(Boolean) ?? []);
    return list.flatMap((r) => {
      const self = selfReference(r, name);
      return self ? self.flatMap((e) => expandExtra(e, seen)) : [r];
    });
  };
  if (!dynamic) {
    const seen = new Set<string>();
    for (const e of extras) reqs.push(...expandExtra(e, seen));
  }

  const lockfile = LOCKFILES.find((l) => has.has(l)) ?? null;
  let constraints = [...fromFiles.constraints];
  if (lockfile) {
    const text = await rev.readText(lockfile);
    if (text !== null) {
      inputs.add(lockfile);
      constraints = [...constraints, ...lockConstraintsOnce(lockfile, text).filter((c) => !name || !c.startsWith(`${name}==`))];
    }
  }
  const requirements = [...new Set(reqs.map((r) => r.trim()).filter((r) => r && !selfReference(r, name)))];
  return {
    name,
    requirements,
    constraints,
    lockfile,
    dynamic,
    extras: [...extras].sort(),
    requiresPython,
    inputs: [...inputs].sort(),
    notes,
  };
}
