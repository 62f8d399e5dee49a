import { isRecord } from '../../core/is-record.js';
import { editDistance } from '../../core/edit-distance.js';
import type { SchemaProblem } from './schema-errors.js';
import { loadBundledSchema, type SchemaName } from './schema-registry.js';

/**
 * Tables whose tool accepts a fixed set of keys although the bundled schema leaves them open (the
 * schemas allow extra keys for plugins or future versions). An unknown key in one of these is a
 * schema problem like any other; `tool-behaviour.ts` decides what it costs.
 *   - `.eslintrc*` top level: ESLint's own legacy config schema (@eslint/eslintrc `conf/config-schema.js`).
 *   - `.pre-commit-config.yaml` top level: pre-commit's `CONFIG_SCHEMA` (plus `ci` for pre-commit.ci).
 *   - `mkdocs.yml` top level: the schema's own property list (MkDocs 1.6).
 *   - `.prettierrc*` top level: Prettier's options from the schema, only when the file loads no
 *     plugin (plugins add options of their own).
 *   - tsconfig/jsconfig top level: the keys tsc reads; other tools keep keys there too (`ts-node`,
 *     `angularCompilerOptions`), so only a near miss of a tsc key (`includes`) is reported.
 */
interface ClosedTable {
  schema: SchemaName;
  keys: () => readonly string[];
  /** The table applies to this file (e.g. no Prettier plugin). */
  when?: (data: Record<string, unknown>) => boolean;
  /** Other tools share the table: only a key close to a known one (a misspelling) is reported. */
  onlyNear?: boolean;
}

const ESLINTRC_KEYS = [
  '$schema',
  'env',
  'extends',
  'globals',
  'overrides',
  'parser',
  'parserOptions',
  'plugins',
  'processor',
  'rules',
  'settings',
  'noInlineConfig',
  'reportUnusedDisableDirectives',
  'ecmaFeatures',
  'root',
  'ignorePatterns',
];

function schemaKeys(name: SchemaName, extra: string[] = []): () => readonly string[] {
  let cached: string[] | null = null;
  return () => {
    if (cached) return cached;
    const schema = loadBundledSchema(name);
    const props = isRecord(schema.properties) ? Object.keys(schema.properties) : [];
    cached = [...props, ...extra];
    return cached;
  };
}

function prettierKeys(): () => readonly string[] {
  let cached: string[] | null = null;
  return () => {
    if (cached) return cached;
    const schema = loadBundledSchema('prettierrc');
    const defs = isRecord(schema.definitions) ? schema.definitions : {};
    const options =
      isRecord(defs.optionsDefinition) && isRecord(defs.optionsDefinition.properties) ? defs.optionsDefinition.properties : {};
    cached = [...Object.keys(options), '$schema', 'overrides', 'plugins'];
    return cached;
  };
}

const TSCONFIG_KEYS = [
  '$schema',
  'compilerOptions',
  'include',
  'exclude',
  'files',
  'extends',
  'references',
  'watchOptions',
  'typeAcquisition',
  'compileOnSave',
  'buildOptions',
];

const CLOSED: ClosedTable[] = [
  { schema: 'tsconfig', keys: () => TSCONFIG_KEYS, onlyNear: true },
  { schema: 'jsconfig', keys: () => TSCONFIG_KEYS, onlyNear: true },
  { schema: 'eslintrc', keys: () => ESLINTRC_KEYS },
  { schema: 'pre-commit-config', keys: schemaKeys('pre-commit-config', ['ci']) },
  { schema: 'mkdocs', keys: schemaKeys('mkdocs', ['$schema']) },
  { schema: 'prettierrc', keys: prettierKeys(), when: (data) => !('plugins' in data) },
];

/** A misspelling of a known key (`includes`), not another tool's key (`vueCompilerOptions` is three edits away). */
function nearMiss(key: string, known: readonly string[]): boolean {
  const k = key.toLowerCase();
  return known.some((n) => editDistance(k, n.toLowerCase()) <= 2);
}

/** Unknown top-level keys of a file whose tool has a closed key set the schema does not enforce. */
export function closedTableProblems(schema: SchemaName, data: unknown): SchemaProblem[] {
  if (!isRecord(data)) return [];
  const out: SchemaProblem[] = [];
  for (const table of CLOSED) {
    if (table.schema !== schema || (table.when && !table.when(data))) continue;
    const known = table.keys();
    if (known.length === 0) continue;
    for (const key of Object.keys(data)) {
      if (known.includes(key) || (table.onlyNear && !nearMiss(key, known))) continue;
      out.push({
        path: [key],
        keyword: 'additionalProperties',
        expected: `only the keys the tool knows (${known.slice(0, 15).join(', ')}${known.length > 15 ? ', …' : ''})`,
        actual: null,
        key: `\u0000additionalProperties\u0000${key}`,
        known: [...known],
      });
    }
  }
  return out;
}
