import { editDistance } from '../../core/edit-distance.js';
import { isRecord } from '../../core/is-record.js';
import type { SchemaProblem } from './schema-errors.js';
import { loadBundledSchema, type SchemaName } from './schema-registry.js';

/** The known key closest to `key` when it is plausibly a misspelling of it (case, `-`/`_` and a few edits). */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[-_]/g, '');
  let best: { k: string; d: number } | undefined;
  for (const candidate of known) {
    const d = editDistance(norm(key), norm(candidate));
    if (!best || d < best.d) best = { k: candidate, d };
  }
  if (!best) return undefined;
  return best.d <= Math.max(2, Math.floor(key.length / 3)) && best.d < key.length ? best.k : undefined;
}

/** Tools that keep their settings in `[tool.<name>]` of pyproject.toml, beyond those the schema lists. */
const MORE_TOOLS = [
  'coverage',
  'isort',
  'pylint',
  'codespell',
  'bandit',
  'towncrier',
  'bumpversion',
  'commitizen',
  'pydocstyle',
  'docformatter',
  'flake8',
  'pyupgrade',
  'yapf',
  'autopep8',
  'interrogate',
  'vulture',
  'nox',
  'cibuildwheel',
  'setuptools_scm',
];

let pyprojectNames: { tools: Set<string>; project: Set<string> } | null = null;

function pyprojectKnown(): { tools: Set<string>; project: Set<string> } {
  if (pyprojectNames) return pyprojectNames;
  const schema = loadBundledSchema('pyproject');
  const props = isRecord(schema.properties) ? schema.properties : {};
  const tool = isRecord(props.tool) && isRecord(props.tool.properties) ? Object.keys(props.tool.properties) : [];
  const projectProps = isRecord(props.project) && isRecord(props.project.properties) ? props.project.properties : {};
  const project = Object.keys(projectProps);
  pyprojectNames = { tools: new Set([...tool, ...MORE_TOOLS]), project: new Set(project) };
  return pyprojectNames;
}

/**
 * The key the author most likely meant for an unknown key, written as the file would spell it:
 * `check_untyped_defs`, `[tool.coverage]` for a top-level `[coverage]` of pyproject.toml,
 * `project.description` for metadata left outside `[project]`, the top level of ruff.toml for a
 * `[tool.ruff]` table written inside it.
 */
export function didYouMean(schema: SchemaName, problem: SchemaProblem): string | undefined {
  const key = problem.path.at(-1);
  if (typeof key !== 'string') return undefined;
  const parent = problem.path.slice(0, -1);
  if (schema === 'pyproject' && parent.length === 0) {
    const { tools, project } = pyprojectKnown();
    if (tools.has(key.toLowerCase())) return `[tool.${key.toLowerCase()}]`;
    if (project.has(key)) return `project.${key}`;
  }
  if ((schema === 'ruff' || schema === 'uv') && parent.length === 0 && key === 'tool')
    return `the settings at the top level of the file (it is ${schema === 'ruff' ? 'ruff' : 'uv'}'s own file: no [tool.${schema}] table)`;
  const near = closestKey(key, problem.known ?? []);
  return near;
}
