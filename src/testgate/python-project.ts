import type { Revision } from '../core/revision.js';
import { readIni } from '../repo/manifests/ini-read.js';
import { dig, isTable, readToml, stringsOf, type Table } from '../repo/manifests/toml-read.js';

/**
 * What the test gate needs to know about a Python project to import its code the way CI does:
 * the project's own top-level import names, where they live when installed (`src/` in a src layout),
 * and pytest's own `pythonpath` setting. Read from the base tree only.
 */
export interface PythonProject {
  /** Top-level import names of the project's own packages and modules. */
  packages: string[];
  /**
   * Repo-relative directories that an install of the project puts on the import path (`src` in a
   * src layout). Never `.`: the repository root is only on the path when pytest's config says so.
   */
  packageRoots: string[];
  /**
   * Repo-relative top-level package directories at the root (a flat layout), which an install makes
   * importable without putting the whole root on the path.
   */
  flatPackages: string[];
  /** pytest's `pythonpath` ini setting (null when not configured). */
  pytestPythonpath: string[] | null;
  /** The project declares itself installable (pyproject `[project]`/`[build-system]`, setup.py, setup.cfg). */
  installable: boolean;
}

/** Directories that hold tests, docs or tooling, never the package under test. */
const NOT_PACKAGES = new Set([
  'tests',
  'test',
  'testing',
  'docs',
  'doc',
  'examples',
  'example',
  'scripts',
  'tools',
  'benchmarks',
  'bench',
  'build',
  'dist',
  'site-packages',
  'conftest',
  'setup',
  'noxfile',
  'tasks',
]);

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

function clean(dir: string): string {
  return dir.replace(/^\.\/+/, '').replace(/\/+$/, '');
}

/** Roots named by packaging config (setuptools `package-dir`/`where`, Poetry `from`, Hatch paths). */
function configuredRoots(pyproject: Table, setupCfg: Map<string, Map<string, string>>): { roots: string[]; names: string[] } {
  const roots: string[] = [];
  const names: string[] = [];
  const pkgDir = dig(pyproject, 'tool', 'setuptools', 'package-dir');
  if (isTable(pkgDir) && typeof pkgDir[''] === 'string') roots.push(pkgDir['']);
  roots.push(...stringsOf(dig(pyproject, 'tool', 'setuptools', 'packages', 'find', 'where')));
  const setuptoolsPackages = dig(pyproject, 'tool', 'setuptools', 'packages');
  names.push(...stringsOf(setuptoolsPackages).map((p) => p.split('.')[0]!));
  // cast: checked with Array.isArray just before
  for (const entry of Array.isArray(dig(pyproject, 'tool', 'poetry', 'packages'))
    ? (dig(pyproject, 'tool', 'poetry', 'packages') as unknown[])
    : []) {
    if (!isTable(entry) || typeof entry.include !== 'string') continue;
    names.push(entry.include.split(/[./]/)[0]!);
    if (typeof entry.from === 'string') roots.push(entry.from);
  }
  for (const p of stringsOf(dig(pyproject, 'tool', 'hatch', 'build', 'targets', 'wheel', 'packages'))) {
    const parts = clean(p).split('/');
    names.push(parts.pop() ?? '');
    if (parts.length) roots.push(parts.join('/'));
  }
  const flit = dig(pyproject, 'tool', 'flit', 'module', 'name');
  if (typeof flit === 'string') names.push(flit.split('.')[0]!);
  const options = setupCfg.get('options');
  const cfgDir = options?.get('package_dir');
  const eq = cfgDir && /(?:^|\n)\s*=\s*(\S+)/.exec(cfgDir);
  if (eq) roots.push(eq[1]!);
  const where = setupCfg.get('options.packages.find')?.get('where');
  if (where) roots.push(where.trim());
  const cfgPackages = options?.get('packages');
  if (cfgPackages && !cfgPackages.includes('find'))
    names.push(
      ...cfgPackages
        .split(/[\s,]+/)
        .filter(Boolean)
        .map((p) => p.split('.')[0]!),
    );
  return { roots: roots.map(clean).filter((r) => r && r !== '.'), names };
}

/** pytest's `pythonpath` from the config file pytest would pick (pytest.ini, pyproject, tox.ini, setup.cfg). */
function pytestPythonpath(
  pytestIni: string | null,
  pyproject: Table,
  toxIni: string | null,
  setupCfg: Map<string, Map<string, string>>,
): string[] | null {
  const split = (v: string | undefined) => (v === undefined ? null : v.split(/\s+/).filter(Boolean));
  if (pytestIni !== null) {
    const ini = readIni(pytestIni);
    return split((ini.get('pytest') ?? ini.get('tool:pytest'))?.get('pythonpath'));
  }
  const native = dig(pyproject, 'tool', 'pytest');
  if (isTable(native)) {
    const legacy = dig(native, 'ini_options', 'pythonpath');
    const v = legacy ?? native.pythonpath;
    if (typeof v === 'string') return split(v);
    return Array.isArray(v) ? stringsOf(v) : null;
  }
  if (toxIni !== null) {
    const section = readIni(toxIni).get('pytest');
    if (section) return split(section.get('pythonpath'));
  }
  return split(setupCfg.get('tool:pytest')?.get('pythonpath'));
}

export async function readPythonProject(base: Revision): Promise<PythonProject> {
  const paths = await base.paths();
  const texts = await base.readTexts(['pyproject.toml', 'setup.cfg', 'pytest.ini', 'tox.ini', 'setup.py'].filter((p) => paths.includes(p)));
  const pyproject = readToml(texts.get('pyproject.toml') ?? '');
  const setupCfg = readIni(texts.get('setup.cfg') ?? '');
  const installable =
    isTable(pyproject.project) ||
    isTable(pyproject['build-system']) ||
    isTable(dig(pyproject, 'tool', 'poetry')) ||
    texts.has('setup.py') ||
    setupCfg.has('metadata') ||
    setupCfg.has('options');
  const configured = configuredRoots(pyproject, setupCfg);

  /** Top-level packages (dirs with `__init__.py`) and modules directly under `root`. */
  const topLevelUnder = (root: string): string[] => {
    const prefix = root ? `${root}/` : '';
    const found = new Set<string>();
    for (const p of paths) {
      if (!p.startsWith(prefix)) continue;
      const rest = p.slice(prefix.length).split('/');
      if (rest.length === 2 && rest[1] === '__init__.py') found.add(rest[0]!);
      else if (rest.length === 1 && root && rest[0]!.endsWith('.py')) found.add(rest[0]!.slice(0, -3));
    }
    return [...found].filter((n) => IDENT.test(n) && !NOT_PACKAGES.has(n.toLowerCase()));
  };

  const roots = [...new Set(configured.roots)];
  if (roots.length === 0 && topLevelUnder('src').length > 0) roots.push('src');
  const packages = new Set<string>(configured.names.filter((n) => IDENT.test(n)));
  for (const r of roots) for (const n of topLevelUnder(r)) packages.add(n);
  for (const n of topLevelUnder('')) packages.add(n);
  const projectName =
    dig(pyproject, 'project', 'name') ?? dig(pyproject, 'tool', 'poetry', 'name') ?? setupCfg.get('metadata')?.get('name');
  if (typeof projectName === 'string') {
    const n = projectName.trim().toLowerCase().replace(/[-.]+/g, '_');
    // Only when the tree has it: a distribution name is often not an import name.
    if (
      IDENT.test(n) &&
      [...roots, ''].some((r) => paths.includes(`${r ? r + '/' : ''}${n}/__init__.py`) || paths.includes(`${r ? r + '/' : ''}${n}.py`))
    )
      packages.add(n);
  }
  const flatPackages = [...packages].filter((n) => paths.includes(`${n}/__init__.py`)).sort();
  return {
    packages: [...packages].sort(),
    flatPackages,
    packageRoots: roots.filter((r) => paths.some((p) => p.startsWith(`${r}/`))),
    pytestPythonpath: pytestPythonpath(texts.get('pytest.ini') ?? null, pyproject, texts.get('tox.ini') ?? null, setupCfg),
    installable,
  };
}
