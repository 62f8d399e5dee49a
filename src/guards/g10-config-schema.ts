import type { ChangedFile } from '../core/patch-set.js';
import type { Guard, GuardFinding } from '../core/guard.js';
import { parseConfigDocument, type ConfigFormat } from './g10-config-documents.js';
import { BUNDLED_SCHEMAS, validatorFor, type SchemaName } from './g10-schema-registry.js';
import { formatPath, problemsFrom, type SchemaProblem } from './g10-schema-errors.js';

/** Which bundled schema checks a file, and how the file is parsed. */
export interface SchemaTarget {
  schema: SchemaName;
  format: ConfigFormat;
}

/** Folders whose files are not the repo's own configs (vendored code, test fixtures). */
const FOREIGN_DIR = /(^|\/)(node_modules|vendor|third_party|fixtures|__fixtures__|testdata)\//;

/**
 * The config files G10 validates. Root and nested copies count (monorepo packages have real
 * package.json/tsconfig/Cargo.toml files), except under vendored or fixture folders. Workflows are
 * only the direct children of `.github/workflows/` (GitHub ignores deeper files).
 */
export function schemaTargetOf(path: string): SchemaTarget | null {
  const slash = path.lastIndexOf('/');
  const base = path.slice(slash + 1);
  if (/^\.github\/workflows\/[^/]+\.ya?ml$/.test(path)) return { schema: 'github-workflow', format: 'yaml' };
  if (/^\.github\/dependabot\.ya?ml$/.test(path)) return { schema: 'dependabot', format: 'yaml' };
  if (/^\.github\/slopgate\.ya?ml$/.test(path)) return { schema: 'slopgate', format: 'yaml' };
  if (path === '.github/slopgate.toml') return { schema: 'slopgate', format: 'toml' };
  if (FOREIGN_DIR.test(path)) return null;
  if (base === 'package.json') return { schema: 'package', format: 'json' };
  if (/^(tsconfig|jsconfig)(\..+)?\.json$/.test(base)) return { schema: 'tsconfig', format: 'jsonc' };
  if (base === '.eslintrc') return { schema: 'eslintrc', format: 'json-or-yaml' };
  if (base === '.eslintrc.json') return { schema: 'eslintrc', format: 'jsonc' };
  if (/^\.eslintrc\.ya?ml$/.test(base)) return { schema: 'eslintrc', format: 'yaml' };
  if (base === '.prettierrc') return { schema: 'prettierrc', format: 'json-or-yaml' };
  if (base === '.prettierrc.json') return { schema: 'prettierrc', format: 'jsonc' };
  if (/^\.prettierrc\.ya?ml$/.test(base)) return { schema: 'prettierrc', format: 'yaml' };
  if (base === 'Cargo.toml') return { schema: 'cargo', format: 'toml' };
  return null;
}

/** Problems of one text against its schema; null when the text does not parse (G2 reports that). */
export function schemaProblems(text: string, target: SchemaTarget): { problems: SchemaProblem[]; lineOf: (p: SchemaProblem) => number } | null {
  const doc = parseConfigDocument(text, target.format);
  if (!doc) return null;
  // An empty YAML file is null: nothing to validate (and nothing wrong with the schema's shape).
  if (doc.data === null || doc.data === undefined) return { problems: [], lineOf: () => 1 };
  const validate = validatorFor(target.schema);
  const ok = validate(doc.data);
  const problems = ok ? [] : problemsFrom(validate.errors ?? [], doc.data);
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
  if (problem.keyword === 'additionalProperties') return `Remove or rename ${key} in ${path}: the tool does not know this key and will reject or ignore it.`;
  if (problem.keyword === 'required') return `Add ${key} to ${path}; the tool requires it here.`;
  return `Set ${key} in ${path} to ${problem.expected.replace(/ \(found [^)]*\)$/, '')}.`;
}

export const g10: Guard = {
  id: 'G10',
  name: 'config schema',
  appliesTo: (file) => file.status !== 'deleted' && file.head.text !== null && schemaTargetOf(file.path) !== null,
  checkFile(file: ChangedFile): GuardFinding[] {
    const target = schemaTargetOf(file.path)!;
    const head = schemaProblems(file.head.text!, target);
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
