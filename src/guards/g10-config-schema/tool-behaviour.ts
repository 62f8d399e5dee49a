import { isRecord } from '../../core/is-record.js';
import type { PathSegment } from './config-documents.js';
import type { SchemaProblem } from './schema-errors.js';
import type { SchemaName } from './schema-registry.js';

/**
 * What each tool does with a config problem, so that G10's severity follows the tool: `fail` where
 * the tool refuses the file and stops (the build or the check breaks), `risk` where it warns and
 * carries on, or never reads the place at all (the setting is dead, nothing breaks).
 *
 * ONE table, a row per tool and place. Every claim was checked by running the tool on a file with
 * that problem (versions in `source`); `test/guards/g10-tool-behaviour.test.ts` has a test per row.
 * The first row whose scope holds the problem decides. A problem no row covers keeps the schema's
 * word with the cautious reading: a wrong value `fail`s (most tools stop on a value they cannot
 * read), an unknown key is a `risk` (whether the tool refuses or ignores it is not verified).
 */
export type ToolVerdict = 'rejects' | 'warns' | 'ignores';

export interface ToolScope {
  schema: SchemaName;
  /** The table the row is about, as a path in the parsed document (`['tool', 'mypy']`). */
  under: string[];
  /** Only keys directly in `under`, not deeper (for a top level whose sub-tables other rows own). */
  exact?: boolean;
}

/** What a verdict function sees: the problem and the whole parsed file. */
export interface RowInput {
  problem: SchemaProblem;
  data: unknown;
}

export interface ToolRow {
  /** Stable id (tests and the README refer to it). */
  id: string;
  tool: string;
  /** The files and tables the row covers, for people. */
  where: string;
  scopes: ToolScope[];
  unknownKey: ToolVerdict | ((input: RowInput) => ToolVerdict);
  wrongValue: ToolVerdict | ((input: RowInput) => ToolVerdict);
  /** What the tool does, in a few words, for messages: `[unknown key, wrong value]` (per verdict where it varies). */
  says: [string | ((verdict: ToolVerdict) => string), string];
  /** Where the claim comes from. */
  source: string;
}

const get = (data: unknown, path: string[]): unknown => {
  let cursor = data;
  for (const key of path) cursor = isRecord(cursor) ? cursor[key] : undefined;
  return cursor;
};

/** pytest turns unknown-option warnings into errors with `--strict-config` or `strict(_config) = true`. */
function pytestStrict(data: unknown): boolean {
  const legacy = get(data, ['tool', 'pytest', 'ini_options']);
  const native = get(data, ['tool', 'pytest']);
  for (const table of [legacy, native]) {
    if (!isRecord(table)) continue;
    const addopts = table.addopts;
    const opts = Array.isArray(addopts) ? addopts.join(' ') : typeof addopts === 'string' ? addopts : '';
    if (/(?:^|\s)--strict-config\b/.test(opts)) return true;
    for (const key of ['strict_config', 'strict']) if (table[key] === true || table[key] === 'true') return true;
  }
  return false;
}

/** mypy reads these as paths or patterns with string methods: another type crashes it (exit 2). */
const MYPY_STRING_OPTIONS = /^(?:cache_dir|custom_typeshed_dir|python_executable|quickstart_file|junit_xml|exclude|\w+_report)$/;

/** The build backend a pyproject.toml names (setuptools when it names none, as pip does). */
function buildBackend(data: unknown): string {
  const backend = get(data, ['build-system', 'build-backend']);
  return typeof backend === 'string' ? backend : 'setuptools.build_meta:__legacy__';
}

const isArrayType = (t: string) => t === 'array';

export const TOOL_ROWS: readonly ToolRow[] = [
  {
    id: 'ruff',
    tool: 'ruff',
    where: '`ruff.toml`, `.ruff.toml`, `[tool.ruff]` in pyproject.toml',
    scopes: [
      { schema: 'ruff', under: [] },
      { schema: 'pyproject', under: ['tool', 'ruff'] },
    ],
    unknownKey: 'rejects',
    wrongValue: 'rejects',
    says: ['ruff stops on it ("unknown field", exit 2)', 'ruff stops on it (a TOML parse error, exit 2)'],
    source: 'ruff 0.17.6, `ruff check` and `ruff format --check`',
  },
  {
    id: 'mypy',
    tool: 'mypy',
    where: '`[tool.mypy]` (and its `overrides`) in pyproject.toml',
    scopes: [{ schema: 'pyproject', under: ['tool', 'mypy'] }],
    unknownKey: 'warns',
    // "Not a boolean: 3", "invalid choice", "Expected a list …" are warnings; path and pattern options
    // taken as something other than a string crash mypy with a TypeError.
    wrongValue: ({ problem }) => {
      const key = String(problem.path.find((p, i) => i >= 2 && typeof p === 'string' && p !== 'overrides') ?? '');
      return MYPY_STRING_OPTIONS.test(key) ? 'rejects' : 'warns';
    },
    says: [
      'mypy prints "Unrecognized option" and ignores it',
      'mypy prints a warning ("Not a boolean", "invalid choice") and ignores the value',
    ],
    source: 'mypy 2.4.1 (exit 0 with the warning; exit 2 for `cache_dir = 5`, `exclude = [5]`, `junit_xml = 5`)',
  },
  {
    id: 'black',
    tool: 'black',
    where: '`[tool.black]` in pyproject.toml',
    scopes: [{ schema: 'pyproject', under: ['tool', 'black'] }],
    unknownKey: 'warns',
    // Click converts scalars it can ("88" for an int, "yes" for a flag); a list for a string option, a
    // string for a list option or a target version it does not know stop black (exit 2).
    wrongValue: ({ problem }) => {
      if (problem.keyword !== 'type' || !problem.types) return 'rejects';
      return isArrayType(problem.types.found) !== problem.types.wanted.some(isArrayType) ? 'rejects' : 'warns';
    },
    says: ['black prints "Invalid config keys detected" and ignores it', 'black stops ("Config key … must be a string", exit 2)'],
    source: 'black 26.10.1 (`exclude = [...]` and `target-version = "py311"` exit 2; `line-length = "88"` is accepted)',
  },
  {
    id: 'coverage',
    tool: 'coverage.py',
    where: '`[tool.coverage.run]`, `.report]`, `.html]`, `.xml]`, `.json]`, `.lcov]` in pyproject.toml',
    scopes: [{ schema: 'pyproject', under: ['tool', 'coverage'] }],
    unknownKey: 'warns',
    wrongValue: 'rejects',
    says: [
      'coverage prints "Unrecognized option" and ignores it',
      'coverage stops ("Couldn\'t read config file … couldn\'t convert", exit 1)',
    ],
    source: 'coverage 7.17.5, `coverage run`',
  },
  {
    id: 'pytest',
    tool: 'pytest',
    where: '`[tool.pytest.ini_options]` and `[tool.pytest]` in pyproject.toml',
    scopes: [{ schema: 'pyproject', under: ['tool', 'pytest'] }],
    // Plugins register ini options of their own, so the schema leaves both tables open and an unknown
    // key never reaches this row; were it to, pytest warns unless `--strict-config`/`strict = true`.
    unknownKey: ({ data }) => (pytestStrict(data) ? 'rejects' : 'warns'),
    // The native [tool.pytest] table (pytest 9) checks types and stops. In ini_options, `addopts` and
    // `minversion` of the wrong type stop pytest; other values it converts, or warns and ignores.
    wrongValue: ({ problem }) =>
      problem.path[2] !== 'ini_options' || /^(?:addopts|minversion)$/.test(String(problem.path[3])) ? 'rejects' : 'warns',
    says: [
      'pytest warns "Unknown config option" and ignores it (an error only with --strict-config or `strict = true`)',
      'pytest stops ("config option … expects a string", exit 4) or, for most ini options, warns and ignores the value',
    ],
    source: 'pytest 9.2.0 (`[tool.pytest] minversion = 6` and ini `addopts = 5` exit 4; ini `testpaths = 5` only warns)',
  },
  {
    id: 'uv-file',
    tool: 'uv',
    where: '`uv.toml`',
    scopes: [{ schema: 'uv', under: [] }],
    unknownKey: 'rejects',
    wrongValue: 'rejects',
    says: ['uv stops ("Failed to parse: uv.toml", exit 2)', 'uv stops ("Failed to parse", exit 2)'],
    source: 'uv 0.13.9, `uv lock`',
  },
  {
    id: 'uv-pyproject',
    tool: 'uv',
    where: '`[tool.uv]` in pyproject.toml',
    scopes: [{ schema: 'pyproject', under: ['tool', 'uv'] }],
    unknownKey: 'warns',
    wrongValue: 'rejects',
    says: [
      'uv warns "Failed to parse pyproject.toml during settings discovery" and ignores all of [tool.uv]',
      'uv stops ("Failed to parse", exit 2)',
    ],
    source: 'uv 0.13.9, `uv lock`',
  },
  {
    id: 'pyproject-project',
    tool: 'the build backend',
    where: '`[project]` in pyproject.toml',
    scopes: [{ schema: 'pyproject', under: ['project'] }],
    // setuptools (validate-pyproject) and flit refuse an unknown [project] key; hatchling ignores it.
    unknownKey: ({ data }) => (buildBackend(data).startsWith('hatchling') ? 'ignores' : 'rejects'),
    wrongValue: 'rejects',
    says: [
      (v) =>
        v === 'ignores'
          ? 'hatchling, the build backend here, builds without reading it'
          : 'the build backend refuses it (setuptools: "`project` must not contain … properties"; flit: "Unrecognised key(s) in [project] table")',
      'every build backend refuses it ("`project.dependencies` must be array")',
    ],
    source: 'pip wheel with setuptools, flit_core and hatchling (hatchling builds despite an unknown [project] key)',
  },
  {
    id: 'pyproject-build-system',
    tool: 'pip and the build backends',
    where: '`[build-system]` in pyproject.toml',
    scopes: [{ schema: 'pyproject', under: ['build-system'], exact: true }],
    unknownKey: 'ignores',
    wrongValue: 'rejects',
    says: ['pip and the build backends ignore it', 'pip refuses it ("invalid `build-system.requires`")'],
    source: 'pip wheel with setuptools, flit_core and hatchling (an unknown [build-system] key builds)',
  },
  {
    id: 'pyproject-top-level',
    tool: 'no tool',
    where: 'the top level of pyproject.toml (`[coverage]`, `[mypy]`, `name = …` outside `[project]`)',
    scopes: [{ schema: 'pyproject', under: [], exact: true }],
    unknownKey: 'ignores',
    wrongValue: 'rejects',
    says: ['tools read only `[project]`, `[build-system]` and their own `[tool.<name>]` table', 'the tools that read it stop on it'],
    source:
      'pip wheel with setuptools, flit_core and hatchling, mypy 2.4.1 and coverage 7.17.5 (top-level [mypy], [coverage] and metadata keys are ignored)',
  },
  {
    id: 'tsconfig-options',
    tool: 'tsc',
    where: '`compilerOptions` and `watchOptions` of tsconfig*.json and jsconfig*.json',
    scopes: [
      { schema: 'tsconfig', under: ['compilerOptions'] },
      { schema: 'tsconfig', under: ['watchOptions'] },
      { schema: 'jsconfig', under: ['compilerOptions'] },
      { schema: 'jsconfig', under: ['watchOptions'] },
    ],
    unknownKey: 'rejects',
    wrongValue: 'rejects',
    says: ['tsc stops (TS5023 "Unknown compiler option", exit 2)', 'tsc stops (TS5024 "requires a value of type …", exit 2)'],
    source: 'TypeScript 5.9.3, `tsc -p . --noEmit`',
  },
  {
    id: 'tsconfig-top-level',
    tool: 'tsc',
    where: 'the top level of tsconfig*.json and jsconfig*.json',
    scopes: [
      { schema: 'tsconfig', under: [], exact: true },
      { schema: 'jsconfig', under: [], exact: true },
    ],
    unknownKey: 'ignores',
    wrongValue: 'rejects',
    says: ['tsc ignores it (only compilerOptions, include, exclude, files, extends, references, … are read)', 'tsc stops (TS5024, exit 2)'],
    source: 'TypeScript 5.9.3 (`"foo": 1` at the top level exits 0; `"include": "src"` exits 2)',
  },
  {
    id: 'eslintrc',
    tool: 'ESLint',
    where: '`.eslintrc`, `.eslintrc.json`, `.eslintrc.yml`',
    scopes: [{ schema: 'eslintrc', under: [] }],
    unknownKey: 'rejects',
    wrongValue: 'rejects',
    says: ['ESLint stops ("Unexpected top-level property", exit 2)', 'ESLint stops ("configuration … is invalid", exit 2)'],
    source: 'ESLint 9.39.5 with ESLINT_USE_FLAT_CONFIG=false',
  },
  {
    id: 'eslint-flat',
    tool: 'ESLint',
    where: '`eslint.config.{js,mjs,cjs,ts,mts,cts}` (object literals of the exported config, read by `eslint-flat.ts`)',
    scopes: [],
    unknownKey: 'rejects',
    wrongValue: 'rejects',
    says: ['ESLint stops ("Unexpected key … found", exit 2)', 'ESLint stops ("Expected value to be a non-empty array", exit 2)'],
    source: 'ESLint 9.39.5, `eslint a.js` with an eslint.config.mjs',
  },
  {
    id: 'prettier',
    tool: 'Prettier',
    where: '`.prettierrc`, `.prettierrc.json`, `.prettierrc.yml`, `prettier` in package.json',
    scopes: [
      { schema: 'prettierrc', under: [] },
      { schema: 'package', under: ['prettier'] },
    ],
    unknownKey: 'warns',
    wrongValue: 'rejects',
    says: ['Prettier prints "Ignored unknown option" and carries on', 'Prettier stops ("Invalid … value", exit 2)'],
    source: 'Prettier 3.10.1, `prettier --check`',
  },
  {
    id: 'cargo',
    tool: 'cargo',
    where: '`Cargo.toml`',
    scopes: [{ schema: 'cargo', under: [] }],
    unknownKey: 'warns',
    wrongValue: 'rejects',
    says: ['cargo prints "unused manifest key" and carries on', 'cargo stops ("invalid type", exit 101)'],
    source: 'cargo 1.95.0, `cargo check --offline`',
  },
  {
    id: 'pre-commit',
    tool: 'pre-commit',
    where: '`.pre-commit-config.yaml`',
    scopes: [{ schema: 'pre-commit-config', under: [] }],
    unknownKey: 'warns',
    wrongValue: 'rejects',
    says: ['pre-commit warns "Unexpected key(s) present" and carries on', 'pre-commit stops ("Expected string got int")'],
    source: 'pre-commit 4, `pre-commit validate-config`',
  },
  {
    id: 'mkdocs',
    tool: 'MkDocs',
    where: '`mkdocs.yml`',
    scopes: [{ schema: 'mkdocs', under: [] }],
    // With `strict: true` every configuration warning aborts the build.
    unknownKey: ({ data }) => (get(data, ['strict']) === true ? 'rejects' : 'warns'),
    wrongValue: 'rejects',
    says: [
      'MkDocs warns "Unrecognised configuration name" (and aborts under `strict: true`)',
      'MkDocs aborts ("Aborted with a configuration error")',
    ],
    source: 'MkDocs 1.6, `mkdocs build`',
  },
  {
    id: 'github-actions',
    tool: 'GitHub Actions',
    where: '`.github/workflows/*.yml`, `action.yml`, `.github/dependabot.yml`',
    scopes: [
      { schema: 'github-workflow', under: [] },
      { schema: 'github-action', under: [] },
      { schema: 'dependabot', under: [] },
    ],
    unknownKey: 'rejects',
    wrongValue: 'rejects',
    says: ['GitHub refuses the file ("Invalid workflow file: Unexpected value")', 'GitHub refuses the file'],
    source: 'GitHub documentation of the workflow and Dependabot syntax (not runnable here)',
  },
  {
    id: 'slopgate',
    tool: 'slopgate',
    where: '`.github/slopgate.yml`, `.github/slopgate.toml`',
    scopes: [{ schema: 'slopgate', under: [] }],
    unknownKey: 'rejects',
    wrongValue: 'rejects',
    says: ['slopgate refuses the config (config-invalid)', 'slopgate refuses the config (config-invalid)'],
    source: 'src/core/config-schema.ts (zod, strict)',
  },
];

function inScope(scope: ToolScope, schema: SchemaName, parent: PathSegment[]): boolean {
  if (scope.schema !== schema) return false;
  if (scope.exact) return parent.length === scope.under.length && scope.under.every((k, i) => parent[i] === k);
  return parent.length >= scope.under.length && scope.under.every((k, i) => parent[i] === k);
}

/** The table a problem sits in: the parent of the unknown, missing or wrong key. */
function tableOf(problem: SchemaProblem): PathSegment[] {
  return problem.path.slice(0, -1);
}

export interface Behaviour {
  row: ToolRow | null;
  verdict: ToolVerdict;
  /** What the tool does with it, for the message. */
  says: string | null;
}

/** How the tool reading this file treats `problem`. */
export function behaviourOf(schema: SchemaName, problem: SchemaProblem, data: unknown): Behaviour {
  const unknown = problem.keyword === 'additionalProperties';
  const parent = tableOf(problem);
  const row = TOOL_ROWS.find((r) => r.scopes.some((s) => inScope(s, schema, parent))) ?? null;
  if (!row) return { row: null, verdict: unknown ? 'warns' : 'rejects', says: null };
  const rule = unknown ? row.unknownKey : row.wrongValue;
  const verdict = typeof rule === 'function' ? rule({ problem, data }) : rule;
  const says = row.says[unknown ? 0 : 1];
  return { row, verdict, says: typeof says === 'function' ? says(verdict) : says };
}
