import { posix } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import type { GuardContext, GuardFinding } from '../../core/guard.js';
import { isRecord } from '../../core/is-record.js';
import type { ChangedFile } from '../../core/patch-set.js';
import { computeFingerprint } from '../../repo/fingerprint.js';
import { dependencyReaderFor, type DepMap } from '../../repo/manifests/dependency-specs.js';
import { isSkippedPath } from '../../repo/manifests/index.js';
import { pep503 } from '../../repo/manifests/python-names.js';
import { isPythonStdlib } from '../../repo/stdlib/python.js';
import { isTestPath } from '../shared/test-paths.js';
import { extractImports } from './import-extract.js';
import { localModulesAt } from './local-modules.js';
import { PYTHON_TOOLING, distributionProvides, pythonModuleDeclared, topModuleCandidates } from './python-names.js';
import { dirOf, escapeRegex, grepHead, ownerDir, removedFinding } from './removed-shared.js';
import { lockedDependent } from './python-lock-deps.js';

/**
 * A distribution the PR removes from a Python manifest (pyproject.toml, requirements*.txt, Pipfile)
 * while files of that project still import it: they raise ImportError once installed from the new
 * manifest. Only where the distribution → module mapping is certain (see `distributionProvides`), and
 * not when something else still provides the module: the standard library, one of the repository's own
 * modules, another distribution still declared by any manifest of the tree, or the project itself.
 * Runtime dependencies (`[project].dependencies`, `[tool.poetry.dependencies]`, requirements files,
 * Pipfile `[packages]`) count every importing file; extras, dependency groups and dev tables count only
 * test files (what runs with them installed). Imports under `try:` or `if TYPE_CHECKING:` break nothing.
 * Where another locked package still requires it (`python-lock-deps.ts`), it keeps working by accident: `risk`.
 */

const PROJECT_FILES = new Set(['pyproject.toml', 'setup.py', 'setup.cfg', 'pipfile']);

/** True for a requirements file: `requirements*.txt|in`, or any .txt/.in file in a `requirements/` folder. */
export function isRequirementsFile(path: string): boolean {
  const base = posix.basename(path).toLowerCase();
  if (/^requirements.*\.(txt|in)$/.test(base)) return true;
  return /\.(txt|in)$/.test(base) && posix.basename(posix.dirname(path)).toLowerCase() === 'requirements';
}

/** True for a manifest this rule reads. */
export function isPythonManifest(path: string): boolean {
  const base = posix.basename(path).toLowerCase();
  return base === 'pyproject.toml' || base === 'pipfile' || isRequirementsFile(path);
}

/** The folder whose files a Python manifest installs for: its own, or the parent of a `requirements/` folder. */
function scopeOf(path: string): string {
  const dir = dirOf(path);
  return posix.basename(dir).toLowerCase() === 'requirements' ? dirOf(dir) : dir;
}

type Kind = 'runtime' | 'tests';

/** Which files a dependency table installs for; null for tables that install nothing the code imports. */
function kindOf(group: string): Kind | null {
  if (group === 'build-system.requires') return null;
  if (group === 'project.dependencies' || group === 'tool.poetry.dependencies' || group === 'requirements' || group === 'packages')
    return 'runtime';
  return 'tests';
}

/** Poetry dependencies marked `optional = true` (extras), which install nothing by default. */
function poetryOptional(text: string): Set<string> {
  const out = new Set<string>();
  try {
    const doc: unknown = parseToml(text);
    const deps = isRecord(doc) && isRecord(doc.tool) && isRecord(doc.tool.poetry) ? doc.tool.poetry.dependencies : null;
    if (isRecord(deps))
      for (const [name, spec] of Object.entries(deps)) if (isRecord(spec) && spec.optional === true) out.add(pep503(name));
  } catch {
    // unreadable: G2 reports it
  }
  return out;
}

/** Distribution (PEP 503) → the broadest kind of table it was declared in. */
function declared(map: DepMap, optional: ReadonlySet<string>): Map<string, Kind> {
  const out = new Map<string, Kind>();
  for (const key of map.keys()) {
    const [group, raw] = key.split('\0') as [string, string];
    const name = pep503(raw);
    if (name === 'python') continue;
    let kind = kindOf(group);
    if (kind === 'runtime' && group === 'tool.poetry.dependencies' && optional.has(name)) kind = 'tests';
    if (kind && out.get(name) !== 'runtime') out.set(name, kind);
  }
  return out;
}

const LOCKS = ['uv.lock', 'poetry.lock', 'pdm.lock'];

/**
 * Why `dist` is still installed although the manifest dropped it, or null: a lockfile in the
 * manifest's folder where another locked package requires it (read at head, updated or not: a
 * dependency of a dependency stays one), or a lockfile the PR updated that still pins it.
 */
async function stillInstalled(
  ctx: GuardContext,
  all: ChangedFile[],
  dir: string,
  dist: string,
  own: ReadonlySet<string>,
): Promise<string | null> {
  const locks = LOCKS.map((l) => (dir ? `${dir}/${l}` : l));
  const texts = await ctx.head.readTexts(locks);
  for (const [path, text] of texts) {
    const by = lockedDependent(text, dist, own);
    if (by) return `it is still installed only because \`${by}\` requires it (\`${path}\`), which nothing guarantees.`;
  }
  for (const f of all) {
    if (f.head.text === null || dirOf(f.path) !== dir) continue;
    const base = posix.basename(f.path);
    const names = LOCKS.includes(base)
      ? f.head.text.matchAll(/^name\s*=\s*"([^"]+)"/gm)
      : base === 'Pipfile.lock'
        ? f.head.text.matchAll(/^\s*"([A-Za-z0-9._-]+)"\s*:\s*\{/gm)
        : [];
    for (const m of names)
      if (pep503(m[1]!) === dist)
        return `it is still installed only because \`${f.path}\` pins it for another dependency, which nothing guarantees.`;
  }
  return null;
}

/** Head .py files of the project (below `dir`, owned by it) whose run-time imports certainly come from `dist`, with the module. */
async function importersOf(ctx: GuardContext, dist: string, dir: string, projectDirs: ReadonlySet<string>, kind: Kind) {
  const tops = topModuleCandidates(dist).map(escapeRegex).join('|');
  const re = `^[[:space:]]*(from|import)[[:space:]](.*[^A-Za-z0-9_.])?(${tops})([^A-Za-z0-9_]|$)`;
  const candidates = (await grepHead(ctx, re, ['*.py'], dir, { ignoreCase: true })).filter(
    (p) => !isSkippedPath(p) && ownerDir(p, projectDirs) === dir && (kind === 'runtime' || isTestPath(p)),
  );
  const texts = await ctx.head.readTexts(candidates.slice(0, 400));
  const files: string[] = [];
  const modules = new Set<string>();
  for (const path of candidates) {
    const text = texts.get(path);
    if (text === undefined) continue;
    const hit = (await extractImports('python', text)).find(
      (r) => !r.typeOnly && !r.spec.startsWith('.') && distributionProvides(dist, r.spec),
    );
    if (!hit) continue;
    files.push(path);
    modules.add(hit.spec);
  }
  return { files, modules: [...modules] };
}

export async function removedPythonFindings(file: ChangedFile, all: ChangedFile[], ctx: GuardContext): Promise<GuardFinding[]> {
  if (file.status !== 'modified' || file.base.text === null || file.head.text === null) return [];
  const read = dependencyReaderFor(isRequirementsFile(file.path) ? 'requirements.txt' : file.path);
  if (!read) return [];
  let before: Map<string, Kind>;
  let kept: Set<string>;
  try {
    before = declared(read(file.base.text), poetryOptional(file.base.text));
    kept = new Set([...read(file.head.text).keys()].map((k) => pep503(k.split('\0')[1]!)));
  } catch {
    return [];
  }
  const removed = [...before].filter(([d]) => !kept.has(d));
  if (removed.length === 0) return [];

  const head = await ctx.memo('g4:head-fingerprint', () => computeFingerprint(ctx.head));
  const stillDeclared = new Set([...head.deps.python, ...head.pythonProjects]);
  const local = await ctx.memo('g4:head-local-modules', () => localModulesAt(ctx.head));
  const paths = (await ctx.head.paths()).filter((p) => !isSkippedPath(p));
  const projectDirs = new Set(
    paths.filter((p) => PROJECT_FILES.has(posix.basename(p).toLowerCase()) || isRequirementsFile(p)).map(scopeOf),
  );
  const dir = scopeOf(file.path);
  projectDirs.add(dir);

  const out: GuardFinding[] = [];
  for (const [dist, kind] of removed.slice(0, 20)) {
    if (stillDeclared.has(dist)) continue; // another manifest (or the project itself) still provides it
    const { files, modules } = await importersOf(ctx, dist, dir, projectDirs, kind);
    // Something else provides the module: the standard library, a module of the repository, packaging tools, another distribution.
    const provided = (m: string) => {
      const top = m.split('.')[0]!;
      return isPythonStdlib(top) || local.python.has(top) || PYTHON_TOOLING.has(top) || pythonModuleDeclared(m, stillDeclared);
    };
    if (files.length === 0 || modules.some(provided)) continue;
    const accidental = await stillInstalled(ctx, all, dirOf(file.path), dist, new Set(head.pythonProjects));
    out.push(
      removedFinding({
        manifest: file,
        ecosystem: 'python',
        pkg: dist,
        importName: modules.map((m) => m.split('.')[0]).sort()[0],
        importers: files,
        accidental,
        breaks:
          kind === 'runtime'
            ? 'once installed from this manifest, importing them raises ModuleNotFoundError.'
            : 'the tests that import it fail to collect (ModuleNotFoundError) once installed from this manifest.',
      }),
    );
  }
  return out;
}
