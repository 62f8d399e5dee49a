import type { ChangedFile } from '../../core/patch-set.js';
import type { Guard, GuardFinding } from '../../core/guard.js';
import { parseConfigDocument, type ConfigFormat, type PathSegment } from './config-documents.js';
import { BUNDLED_SCHEMAS, validateBundled, type SchemaName } from './schema-registry.js';
import { formatPath, problemsFrom, type SchemaProblem } from './schema-errors.js';

/** Which bundled schema checks a file, and how the file is parsed. */
export interface SchemaTarget {
  schema: SchemaName;
  format: ConfigFormat;
}

/** Folders whose files are not the repo's own configs (vendored code, test fixtures). */
const FOREIGN_DIR = /(^|\/)(node_modules|vendor|third_party|fixtures|__fixtures__|testdata|test-data)\//;

/** Basename → target, for configs recognised at any depth. */
const BY_BASENAME: Record<string, SchemaTarget> = {
  'package.json': { schema: 'package', format: 'json' },
  'jsconfig.json': { schema: 'jsconfig', format: 'jsonc' },
  '.eslintrc': { schema: 'eslintrc', format: 'json-or-yaml' },
  '.eslintrc.json': { schema: 'eslintrc', format: 'jsonc' },
  '.eslintrc.yml': { schema: 'eslintrc', format: 'yaml' },
  '.eslintrc.yaml': { schema: 'eslintrc', format: 'yaml' },
  '.prettierrc': { schema: 'prettierrc', format: 'json-or-yaml' },
  '.prettierrc.json': { schema: 'prettierrc', format: 'jsonc' },
  '.prettierrc.yml': { schema: 'prettierrc', format: 'yaml' },
  '.prettierrc.yaml': { schema: 'prettierrc', format: 'yaml' },
  'Cargo.toml': { schema: 'cargo', format: 'toml' },
  'rust-toolchain.toml': { schema: 'rust-toolchain', format: 'toml' },
  'pyproject.toml': { schema: 'pyproject', format: 'toml' },
  'ruff.toml': { schema: 'ruff', format: 'toml' },
  '.ruff.toml': { schema: 'ruff', format: 'toml' },
  'uv.toml': { schema: 'uv', format: 'toml' },
  'ty.toml': { schema: 'ty', format: 'toml' },
  'hatch.toml': { schema: 'hatch', format: 'toml' },
  '.pre-commit-config.yaml': { schema: 'pre-commit-config', format: 'yaml' },
  '.pre-commit-config.yml': { schema: 'pre-commit-config', format: 'yaml' },
  '.pre-commit-hooks.yaml': { schema: 'pre-commit-hooks', format: 'yaml' },
  '.pre-commit-hooks.yml': { schema: 'pre-commit-hooks', format: 'yaml' },
  'action.yml': { schema: 'github-action', format: 'yaml' },
  'action.yaml': { schema: 'github-action', format: 'yaml' },
  'mkdocs.yml': { schema: 'mkdocs', format: 'yaml' },
  'mkdocs.yaml': { schema: 'mkdocs', format: 'yaml' },
  '.babelrc': { schema: 'babelrc', format: 'jsonc' },
  '.babelrc.json': { schema: 'babelrc', format: 'jsonc' },
  'babel.config.json': { schema: 'babelrc', format: 'jsonc' },
  '.stylelintrc': { schema: 'stylelintrc', format: 'json-or-yaml' },
  '.stylelintrc.json': { schema: 'stylelintrc', format: 'jsonc' },
  '.stylelintrc.yml': { schema: 'stylelintrc', format: 'yaml' },
  '.stylelintrc.yaml': { schema: 'stylelintrc', format: 'yaml' },
  'jest.config.json': { schema: 'jest', format: 'json' },
  'lerna.json': { schema: 'lerna', format: 'json' },
  'ava.config.json': { schema: 'ava', format: 'json' },
  '.jscpd.json': { schema: 'jscpd', format: 'json' },
  'nodemon.json': { schema: 'nodemon', format: 'json' },
  '.releaserc': { schema: 'semantic-release', format: 'json-or-yaml' },
  '.releaserc.json': { schema: 'semantic-release', format: 'json' },
  '.releaserc.yml': { schema: 'semantic-release', format: 'yaml' },
  '.releaserc.yaml': { schema: 'semantic-release', format: 'yaml' },
};

/** Configs whose place in the repository matters (renovate's own search list, GitHub's folders). */
function byLocation(path: string): SchemaTarget | null {
  if (/^\.github\/workflows\/[^/]+\.ya?ml$/.test(path)) return { schema: 'github-workflow', format: 'yaml' };
  if (/^\.github\/dependabot\.ya?ml$/.test(path)) return { schema: 'dependabot', format: 'yaml' };
  if (/^\.github\/slopgate\.ya?ml$/.test(path)) return { schema: 'slopgate', format: 'yaml' };
  if (path === '.github/slopgate.toml') return { schema: 'slopgate', format: 'toml' };
  if (/^\.github\/ISSUE_TEMPLATE\/[^/]+\.ya?ml$/.test(path) && !/\/config\.ya?ml$/.test(path))
    return { schema: 'github-issue-forms', format: 'yaml' };
  if (/^\.github\/funding\.ya?ml$/i.test(path)) return { schema: 'github-funding', format: 'yaml' };
  if (/^(?:\.github\/|\.gitlab\/)?renovate\.json$/.test(path) || /^\.renovaterc(?:\.json)?$/.test(path))
    return { schema: 'renovate', format: 'jsonc' };
  return null;
}

/**
 * The config files G10 validates and the schema of each. Root and nested copies count (monorepo
 * packages have real package.json/pyproject/Cargo.toml files), except under vendored, fixture or
 * example folders. Workflows are only the direct children of `.github/workflows/` (GitHub ignores
 * deeper files). `.json5` configs are not read (no JSON5 parser is bundled).
 */
export function schemaTargetOf(path: string): SchemaTarget | null {
  const located = byLocation(path);
  if (located) return located;
  if (FOREIGN_DIR.test(path)) return null;
  const base = path.slice(path.lastIndexOf('/') + 1);
  const known = BY_BASENAME[base];
  if (known) return known;
  if (/^tsconfig(\..+)?\.json$/.test(base)) return { schema: 'tsconfig', format: 'jsonc' };
  if (/^jsconfig\..+\.json$/.test(base)) return { schema: 'jsconfig', format: 'jsonc' };
  return null;
}

/** True when `inner` is `outer` or lies below it. */
function under(inner: PathSegment[], outer: PathSegment[]): boolean {
  return outer.length <= inner.length && outer.every((seg, i) => String(seg) === String(inner[i]));
}

/** Problems of one text against its schema; null when the text does not parse (G2 reports that). */
export function schemaProblems(
  text: string,
  target: SchemaTarget,
): { problems: SchemaProblem[]; lineOf: (p: SchemaProblem) => number } | null {
  const doc = parseConfigDocument(text, target.format);
  if (!doc) return null;
  // An empty YAML file is null: nothing to validate (and nothing wrong with the schema's shape).
  if (doc.data === null || doc.data === undefined) return { problems: [], lineOf: () => 1 };
  const errors = validateBundled(target.schema, doc.data);
  const opaque = doc.opaque ?? [];
  const problems = (errors.length === 0 ? [] : problemsFrom(errors, doc.data)).filter((p) => !opaque.some((o) => under(p.path, o)));
  return { problems, lineOf: (p) => doc.lineOf(p.path) };
}

function messageFor(path: string, problem: SchemaProblem, target: SchemaTarget, others: number): string {
  const where = formatPath(problem.path);
  const schema = BUNDLED_SCHEMAS[target.schema];
  const more = others > 0 ? ` (${others} more schema problem${others === 1 ? '' : 's'} in this file)` : '';
  if (problem.keyword === 'additionalProperties') {
    return `${path} has an unknown key \`${where}\`: ${schema} expects ${problem.expected}${more}.`;
  }
  const found = problem.actual === null ? 'it is missing' : `found ${problem.actual}`;
  return `${path} does not match ${schema} at \`${where}\`: expected ${problem.expected}; ${found}${more}.`;
}

function remediationFor(path: string, problem: SchemaProblem): string {
  const key = `\`${formatPath(problem.path)}\``;
  if (problem.keyword === 'additionalProperties')
    return `Remove or rename ${key} in ${path}: the tool does not know this key and will reject or ignore it.`;
  if (problem.keyword === 'required') return `Add ${key} to ${path}; the tool requires it here.`;
  return `Set ${key} in ${path} to ${problem.expected.replace(/ \(found [^)]*\)$/, '')}.`;
}

export const g10: Guard = {
  id: 'G10',
  name: 'config schema',
  appliesTo: (file) => file.status !== 'deleted' && file.head.text !== null && schemaTargetOf(file.path) !== null,
  checkFile(file: ChangedFile): GuardFinding[] {
    const target = schemaTargetOf(file.path);
    if (target === null || file.head.text === null) return []; // appliesTo already left these out
    const head = schemaProblems(file.head.text, target);
    if (!head || head.problems.length === 0) return [];
    // Only problems this PR introduced: the same problem in the base version is not the author's doing.
    const baseText = file.base.text;
    const before = baseText !== null ? schemaProblems(baseText, schemaTargetOf(file.oldPath ?? file.path) ?? target) : null;
    const known = new Set(before?.problems.map((p) => p.key) ?? []);
    const introduced = head.problems.filter((p) => !known.has(p.key));
    const best = introduced[0];
    if (!best) return [];
    const line = head.lineOf(best);
    return [
      {
        category: 'schema-invalid',
        severity: 'fail',
        path: file.path,
        line,
        message: messageFor(file.path, best, target, introduced.length - 1),
        remediation: remediationFor(file.path, best),
        evidence: {
          schema: BUNDLED_SCHEMAS[target.schema],
          path: formatPath(best.path),
          keyword: best.keyword,
          expected: best.expected,
          actual: best.actual,
          others: introduced.slice(1, 6).map((p) => formatPath(p.path)),
        },
      },
    ];
  },
};
