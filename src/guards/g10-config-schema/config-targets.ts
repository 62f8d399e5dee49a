import type { ConfigFormat } from './config-documents.js';
import type { SchemaName } from './schema-registry.js';

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
