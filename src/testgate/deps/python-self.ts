import type { Revision } from '../../core/revision.js';
import { dig, isTable, readToml, stringsOf } from '../../repo/manifests/toml-read.js';

/**
 * What a Python project's own build adds to its tests, read from pyproject.toml:
 * - `[build-system] requires`: installed into the test venv with the dependencies, so that the project
 *   can be built offline in the sandbox, and so that a backend version no index has fails the install
 *   (a build of the project could not start) instead of passing unnoticed;
 * - whether the tests need the project installed: its build writes a file the package imports that the
 *   tree does not hold (setuptools-scm's and hatch-vcs's version file), or the package reads its own
 *   installed metadata when imported (`importlib.metadata.version(...)`). Such a project is installed,
 *   editable and without its dependencies, into each test run's own layer, as its CI's `pip install -e .`.
 */

export interface PythonSelf {
  buildRequires: string[];
  /** Why the tests need the project installed, or null. */
  install: string | null;
}

/** Where build backends are told to write a version file. */
const VERSION_FILE_KEYS = [
  ['tool', 'hatch', 'build', 'hooks', 'vcs', 'version-file'],
  ['tool', 'setuptools_scm', 'version_file'],
  ['tool', 'setuptools_scm', 'write_to'],
  ['tool', 'pdm', 'version', 'write_to'],
];

/** A package that asks for its installed version when imported. */
const READS_OWN_METADATA = /\b(?:importlib[._]metadata|importlib_metadata|pkg_resources)\b[\s\S]{0,400}\b(?:version|get_distribution)\s*\(/;

function packageName(doc: Record<string, unknown>): string | null {
  const name = dig(doc, 'project', 'name') ?? dig(doc, 'tool', 'poetry', 'name');
  return typeof name === 'string' ? name.toLowerCase().replace(/[-.]+/g, '_') : null;
}

export async function readPythonSelf(rev: Revision): Promise<PythonSelf> {
  const text = await rev.readText('pyproject.toml');
  if (text === null) return { buildRequires: [], install: null };
  const doc = readToml(text);
  const buildSystem = isTable(doc['build-system']) ? doc['build-system'] : {};
  const declared = stringsOf(buildSystem.requires).filter((r) => /^[A-Za-z0-9][\w.-]*(\[[^\]]*\])?\s*([<>=!~;]|$)/.test(r.trim()));
  // What a backend asks for besides itself to build an editable install (pip's isolated builds add it):
  // setuptools before 70.1 builds through `wheel`, hatchling through `editables`.
  const has = (name: RegExp) => declared.some((r) => name.test(r.trim()));
  const buildRequires = [
    ...declared,
    ...(has(/^setuptools\b(?!-)/i) && !has(/^wheel\b/i) ? ['wheel'] : []),
    ...(has(/^hatchling\b/i) && !has(/^editables\b/i) ? ['editables'] : []),
  ];
  const paths = new Set(await rev.paths());
  for (const keys of VERSION_FILE_KEYS) {
    const file = dig(doc, ...keys);
    if (typeof file === 'string' && file.trim() && !paths.has(file.trim().replace(/^\.\//, '')))
      return { buildRequires, install: `its build writes ${file.trim()}, which the tree does not hold` };
  }
  const name = packageName(doc);
  if (name) {
    for (const init of [`src/${name}/__init__.py`, `${name}/__init__.py`]) {
      const body = paths.has(init) ? await rev.readText(init) : null;
      if (body && READS_OWN_METADATA.test(body)) return { buildRequires, install: `${init} reads the installed package's own metadata` };
    }
  }
  return { buildRequires, install: null };
}
