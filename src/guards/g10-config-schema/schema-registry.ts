import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import Ajv04Module from 'ajv-draft-04';
import { isRecord } from '../../core/is-record.js';
import { jsonObject, parseJsonAs } from '../../core/parse-data.js';
import { patchSchema } from './schema-patches.js';

/**
 * The bundled schemas (files in `schemas/`, shipped with the package; see schemas/NOTICE.md). The
 * first group validates files directly; the second group is only reached through `$ref`s of the
 * first (pyproject's `[tool.*]` tables, Cargo's `[lints.*]`, package.json's tool keys), and every
 * one of them is registered so no reference is ever fetched.
 */
export const BUNDLED_SCHEMAS = {
  package: 'package.schema.json',
  tsconfig: 'tsconfig.schema.json',
  jsconfig: 'jsconfig.schema.json',
  eslintrc: 'eslintrc.schema.json',
  prettierrc: 'prettierrc.schema.json',
  'github-workflow': 'github-workflow.schema.json',
  'github-action': 'github-action.schema.json',
  'github-issue-forms': 'github-issue-forms.schema.json',
  'github-funding': 'github-funding.schema.json',
  dependabot: 'dependabot.schema.json',
  cargo: 'cargo.schema.json',
  'rust-toolchain': 'rust-toolchain.schema.json',
  pyproject: 'pyproject.schema.json',
  ruff: 'ruff.schema.json',
  uv: 'uv.schema.json',
  ty: 'ty.schema.json',
  hatch: 'hatch.schema.json',
  'pre-commit-config': 'pre-commit-config.schema.json',
  'pre-commit-hooks': 'pre-commit-hooks.schema.json',
  mkdocs: 'mkdocs-1.6.schema.json',
  babelrc: 'babelrc.schema.json',
  stylelintrc: 'stylelintrc.schema.json',
  jest: 'jest.schema.json',
  lerna: 'lerna.schema.json',
  renovate: 'renovate-43.schema.json',
  ava: 'ava.schema.json',
  jscpd: 'jscpd.schema.json',
  nodemon: 'nodemon.schema.json',
  'semantic-release': 'semantic-release.schema.json',
  slopgate: 'slopgate.schema.json',
  // reached through $ref only
  maturin: 'maturin.schema.json',
  tox: 'tox.schema.json',
  tombi: 'tombi.schema.json',
  quikrun: 'quikrun.schema.json',
  'partial-black': 'partial-black.schema.json',
  'partial-cibuildwheel': 'partial-cibuildwheel.schema.json',
  'partial-dfc': 'partial-dfc.schema.json',
  'partial-fastapi': 'partial-fastapi.schema.json',
  'partial-mypy': 'partial-mypy.schema.json',
  'partial-pdm': 'partial-pdm.schema.json',
  'partial-pdm-dockerize': 'partial-pdm-dockerize.schema.json',
  'partial-pixi': 'partial-pixi.schema.json',
  'partial-poe': 'partial-poe.schema.json',
  'partial-poetry': 'partial-poetry.schema.json',
  'partial-pyright': 'partial-pyright.schema.json',
  'partial-pytest': 'partial-pytest.schema.json',
  'partial-repo-review': 'partial-repo-review.schema.json',
  'partial-scheduled': 'partial-scheduled.schema.json',
  'partial-scikit-build': 'partial-scikit-build.schema.json',
  'partial-setuptools': 'partial-setuptools.schema.json',
  'partial-setuptools-scm': 'partial-setuptools-scm.schema.json',
  'partial-taskipy': 'partial-taskipy.schema.json',
  'partial-eslint-plugins': 'partial-eslint-plugins.schema.json',
  'cargo-lints-cargo': 'cargo-lints-cargo.schema.json',
  'cargo-lints-clippy': 'cargo-lints-clippy.schema.json',
  'cargo-lints-rust': 'cargo-lints-rust.schema.json',
  'cargo-lints-rustdoc': 'cargo-lints-rustdoc.schema.json',
} as const;

export type SchemaName = keyof typeof BUNDLED_SCHEMAS;

type JsonSchema = Record<string, unknown>;

/** `schemas/` at the package root (found by walking up from this module, so it works from src/ and dist/). */
export function schemasDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    dir = dirname(dir);
    try {
      readFileSync(join(dir, 'schemas', 'NOTICE.md'));
      return join(dir, 'schemas');
    } catch {
      // keep walking up
    }
  }
  throw new Error('bundled schemas folder (schemas/) not found next to the slopgate package');
}

const loaded = new Map<SchemaName, JsonSchema>();

export function loadBundledSchema(name: SchemaName): JsonSchema {
  let schema = loaded.get(name);
  if (!schema) {
    const file = BUNDLED_SCHEMAS[name];
    schema = patchSchema(name, parseJsonAs(jsonObject, readFileSync(join(schemasDir(), file), 'utf8'), `the bundled schema ${file}`));
    loaded.set(name, schema);
  }
  return schema;
}

type Draft = 'draft-04' | 'draft-07';

function draftOf(schema: JsonSchema): Draft {
  return typeof schema.$schema === 'string' && schema.$schema.includes('draft-04') ? 'draft-04' : 'draft-07';
}

/** The id a schema declares (`$id` in draft-07, `id` in draft-04), or a local stand-in. */
function idOf(name: SchemaName, schema: JsonSchema): string {
  const id = schema.$id ?? schema.id;
  return typeof id === 'string' && id ? id.replace(/#$/, '') : `urn:slopgate:bundled:${name}`;
}

/** Host-insensitive key for SchemaStore URLs (json.schemastore.org and www.schemastore.org serve the same files). */
function urlKey(url: string): string {
  return url
    .replace(/#.*$/, '')
    .replace(/^https?:\/\/(json|www)\.schemastore\.org\//, 'schemastore:')
    .replace(/\.json$/, '');
}

/** Every `$ref` that points outside its own document, resolved against the document's id. */
function externalRefs(node: unknown, baseId: string, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) externalRefs(item, baseId, out);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) out.add(resolveRef(value, baseId));
      else externalRefs(value, baseId, out);
    }
  }
  return out;
}

/** A `$ref` as an absolute URL without fragment (`partial-black.json` inside pyproject → its SchemaStore URL). */
function resolveRef(ref: string, baseId: string): string {
  try {
    return new URL(ref, baseId).href.replace(/#.*$/, '');
  } catch {
    return ref.replace(/#.*$/, '');
  }
}

// SchemaStore schemas use keywords and formats Ajv does not know; validation must never fetch anything.
const AJV_OPTIONS: Options = {
  strict: false,
  allErrors: true,
  verbose: true,
  validateFormats: false,
  unicodeRegExp: false,
  inlineRefs: false,
  validateSchema: false,
  code: { optimize: false },
};

// cast: library typing gap: ajv-draft-04 is CommonJS; ESM sees its class on default
const Ajv04 = ((Ajv04Module as unknown as { default?: typeof Ajv }).default ?? Ajv04Module) as unknown as typeof Ajv;

let instances: Record<Draft, Ajv> | null = null;

/**
 * One Ajv per draft with every bundled schema of that draft registered under its id. `$ref`s to a
 * bundled schema resolve to it (under either SchemaStore host name); any other external `$ref`
 * resolves to an empty, permissive schema, so nothing is ever fetched.
 */
function ajvInstances(): Record<Draft, Ajv> {
  if (instances) return instances;
  const made: Record<Draft, Ajv> = { 'draft-07': new Ajv(AJV_OPTIONS), 'draft-04': new Ajv04(AJV_OPTIONS) };
  const byKey = new Map<string, { id: string; draft: Draft }>();
  // cast: Object.keys types its result as string[]; SchemaName is defined as the keys of BUNDLED_SCHEMAS
  const names = Object.keys(BUNDLED_SCHEMAS) as SchemaName[];
  const registered = new Set<string>();
  for (const name of names) {
    const schema = loadBundledSchema(name);
    const id = idOf(name, schema);
    byKey.set(urlKey(id), { id, draft: draftOf(schema) });
    made[draftOf(schema)].addSchema(schema, schema.$id || schema.id ? undefined : id);
  }
  for (const name of names) {
    const schema = loadBundledSchema(name);
    const ajv = made[draftOf(schema)];
    for (const ref of externalRefs(schema, idOf(name, schema))) {
      const target = byKey.get(urlKey(ref));
      if (target?.id === ref || registered.has(`${draftOf(schema)} ${ref}`)) continue;
      registered.add(`${draftOf(schema)} ${ref}`);
      // Another host spelling of a bundled schema points at it; anything not bundled accepts everything.
      ajv.addSchema(target?.draft === draftOf(schema) ? { $ref: target.id } : {}, ref);
    }
  }
  instances = made;
  return made;
}

/** A property whose schema is another bundled document (pyproject `tool.ruff` → ruff.json). */
interface Split {
  dataPath: string[];
  ref: string;
}

/**
 * The schema with every property that `$ref`s another document (followed through nested
 * `properties` only) replaced by an empty schema, and the list of those properties. pyproject's
 * `[tool.*]` tables and package.json's tool keys point at schemas of hundreds of kilobytes; compiling
 * all of them for every file costs seconds, so each is compiled only when a file has that key.
 */
function splitSchema(schema: JsonSchema, baseId: string): { shell: JsonSchema; splits: Split[] } {
  const splits: Split[] = [];
  const copy = (node: JsonSchema, path: string[], depth: number): JsonSchema => {
    const props = node.properties;
    if (!isRecord(props) || depth > 3) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(props)) {
      const ref = isRecord(value) ? value.$ref : undefined;
      if (typeof ref === 'string' && !ref.startsWith('#')) {
        splits.push({ dataPath: [...path, key], ref: resolveRef(ref, baseId) });
        out[key] = {};
      } else out[key] = isRecord(value) ? copy(value, [...path, key], depth + 1) : value;
    }
    return { ...node, properties: out };
  };
  return { shell: copy(schema, [], 0), splits };
}

interface SplitValidator {
  shell: ValidateFunction;
  splits: Split[];
  ajv: Ajv;
}

const splitCompiled = new Map<SchemaName, SplitValidator>();

function splitValidator(name: SchemaName): SplitValidator {
  let v = splitCompiled.get(name);
  if (!v) {
    const schema = loadBundledSchema(name);
    const ajv = ajvInstances()[draftOf(schema)];
    const id = idOf(name, schema);
    const { shell, splits } = splitSchema(schema, id);
    // A distinct id that still resolves relative refs against the original location.
    const shellId = `${id}?slopgate-shell`;
    if (!ajv.getSchema(shellId)) ajv.addSchema({ ...shell, $id: shellId, id: undefined }, shellId);
    const compiledShell = ajv.getSchema(shellId);
    if (!compiledShell) throw new Error(`the shell of bundled schema ${BUNDLED_SCHEMAS[name]} did not compile`);
    v = { shell: compiledShell, splits, ajv };
    splitCompiled.set(name, v);
  }
  return v;
}

const pointer = (path: string[]) => path.map((p) => `/${p.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

function valueAt(data: unknown, path: string[]): unknown {
  let cursor = data;
  for (const key of path) {
    if (!isRecord(cursor)) return undefined;
    cursor = cursor[key];
  }
  return cursor;
}

/**
 * Validates `data` against a bundled schema; returns Ajv's errors (empty when valid). Properties
 * that refer to other bundled documents are validated on their own, with their errors' instance
 * paths made absolute, so the result reads as one validation of the whole file.
 */
export function validateBundled(name: SchemaName, data: unknown): ErrorObject[] {
  const v = splitValidator(name);
  const errors: ErrorObject[] = [];
  if (!v.shell(data)) errors.push(...(v.shell.errors ?? []));
  for (const split of v.splits) {
    const value = valueAt(data, split.dataPath);
    if (value === undefined) continue;
    const sub = v.ajv.getSchema(split.ref);
    if (!sub || sub(value)) continue;
    const prefix = pointer(split.dataPath);
    for (const e of sub.errors ?? []) errors.push({ ...e, instancePath: `${prefix}${e.instancePath}` });
  }
  return errors;
}
