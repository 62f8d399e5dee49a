import { parse as parseYaml } from 'yaml';
import { isRecord } from '../../core/is-record.js';

/** golangci-lint's configuration files, in the order it looks for them. */
export const GOLANGCI_CONFIGS = ['.golangci.yml', '.golangci.yaml', '.golangci.json'];

/** eslint's configuration files (flat and legacy). */
export const ESLINT_CONFIGS = [
  'eslint.config.js',
  'eslint.config.mjs',
  'eslint.config.cjs',
  'eslint.config.ts',
  'eslint.config.mts',
  '.eslintrc',
  '.eslintrc.js',
  '.eslintrc.cjs',
  '.eslintrc.json',
  '.eslintrc.yml',
  '.eslintrc.yaml',
];

/**
 * The formatters golangci-lint's configuration enables (`linters.enable` before v2, `formatters.enable`
 * from v2; `enable-all` without them in `disable`), which fail `golangci-lint run` on a file they would
 * print differently. goimports and gofumpt print what gofmt prints and more, so each is a gofmt check.
 * `tests: false` under `run:` leaves `_test.go` files out.
 */
export function golangciFormatters(files: ReadonlyMap<string, string>): { note: string; tests: boolean } | null {
  const path = GOLANGCI_CONFIGS.find((p) => files.has(p));
  const text = path === undefined ? undefined : files.get(path);
  if (path === undefined || text === undefined) return null;
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch {
    return null;
  }
  if (!isRecord(doc)) return null;
  const names = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const FORMATTERS = ['gofmt', 'goimports', 'gofumpt'];
  const enabled = new Set<string>();
  const v2 = doc.version === 2 || doc.version === '2';
  const section = v2 ? doc.formatters : doc.linters;
  if (isRecord(section)) {
    for (const n of names(section.enable)) if (FORMATTERS.includes(n)) enabled.add(n);
    if (!v2 && section['enable-all'] === true) {
      const off = names(section.disable);
      for (const n of FORMATTERS) if (!off.includes(n)) enabled.add(n);
    }
  }
  if (enabled.size === 0) return null;
  const tests = !(isRecord(doc.run) && doc.run.tests === false);
  return { note: `${[...enabled].join(', ')} enabled in ${path}`, tests };
}

/** Where eslint's configuration runs eslint-plugin-prettier (`plugin:prettier/recommended`, the `prettier/prettier` rule). */
export function eslintRunsPrettier(files: ReadonlyMap<string, string>): string | null {
  const PLUGIN = /plugin:prettier\/recommended|['"]prettier\/prettier['"]|eslint-plugin-prettier(?:\/recommended)?['"]/;
  for (const path of ESLINT_CONFIGS) {
    const text = files.get(path);
    if (text !== undefined && PLUGIN.test(text)) return `eslint-plugin-prettier in ${path}`;
  }
  const pkg = files.get('package.json');
  if (pkg !== undefined) {
    try {
      const doc: unknown = JSON.parse(pkg);
      if (isRecord(doc) && doc.eslintConfig !== undefined && PLUGIN.test(JSON.stringify(doc.eslintConfig)))
        return 'eslint-plugin-prettier in package.json eslintConfig';
    } catch {
      // not JSON: nothing to read
    }
  }
  return null;
}
