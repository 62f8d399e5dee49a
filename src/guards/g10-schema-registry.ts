import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import Ajv04Module from 'ajv-draft-04';

/** The bundled schemas (files in `schemas/`, shipped with the package). */
export const BUNDLED_SCHEMAS = {
  package: 'package.schema.json',
  tsconfig: 'tsconfig.schema.json',
  eslintrc: 'eslintrc.schema.json',
  prettierrc: 'prettierrc.schema.json',
  'github-workflow': 'github-workflow.schema.json',
  dependabot: 'dependabot.schema.json',
  cargo: 'cargo.schema.json',
  slopgate: 'slopgate.schema.json',
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
    schema = JSON.parse(readFileSync(join(schemasDir(), BUNDLED_SCHEMAS[name]), 'utf8')) as JsonSchema;
    loaded.set(name, schema);
  }
  return schema;
}

type Draft = 'draft-04' | 'draft-07';

function draftOf(schema: JsonSchema): Draft {
  return String(schema.$schema ?? '').includes('draft-04') ? 'draft-04' : 'draft-07';
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

/** Every `$ref` that points outside its own document. */
function externalRefs(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) externalRefs(item, out);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) out.add(value.replace(/#.*$/, ''));
      else externalRefs(value, out);
    }
  }
  return out;
}

// SchemaStore schemas use keywords and formats Ajv does not know; validation must never fetch anything.
const AJV_OPTIONS: Options = {
  strict: false,
  allErrors: true,
  verbose: true,
  validateFormats: false,
  unicodeRegExp: false,
  inlineRefs: true,
};

const Ajv04 = ((Ajv04Module as unknown as { default?: typeof Ajv }).default ?? Ajv04Module) as unknown as typeof Ajv;

let instances: Map<Draft, Ajv> | null = null;

/**
 * One Ajv per draft with every bundled schema of that draft registered under its id. `$ref`s to a
 * bundled schema resolve to it (under either SchemaStore host name); any other external `$ref`
 * resolves to an empty, permissive schema, so nothing is ever fetched.
 */
function ajvInstances(): Map<Draft, Ajv> {
  if (instances) return instances;
  const made = new Map<Draft, Ajv>([
    ['draft-07', new Ajv(AJV_OPTIONS)],
    ['draft-04', new Ajv04(AJV_OPTIONS)],
  ]);
  const byKey = new Map<string, { id: string; draft: Draft }>();
  const names = Object.keys(BUNDLED_SCHEMAS) as SchemaName[];
  const registered = new Set<string>();
  for (const name of names) {
    const schema = loadBundledSchema(name);
    const id = idOf(name, schema);
    byKey.set(urlKey(id), { id, draft: draftOf(schema) });
    made.get(draftOf(schema))!.addSchema(schema, schema.$id || schema.id ? undefined : id);
  }
  for (const name of names) {
    const schema = loadBundledSchema(name);
    const ajv = made.get(draftOf(schema))!;
    for (const ref of externalRefs(schema)) {
      const target = byKey.get(urlKey(ref));
      if (target?.id === ref || registered.has(ref)) continue;
      registered.add(ref);
      ajv.addSchema(target && target.draft === draftOf(schema) ? { $ref: target.id } : {}, ref);
    }
  }
  instances = made;
  return made;
}

const compiled = new Map<SchemaName, ValidateFunction>();

/** The compiled validator of a bundled schema (compiled once per process). */
export function validatorFor(name: SchemaName): ValidateFunction {
  let validate = compiled.get(name);
  if (!validate) {
    const schema = loadBundledSchema(name);
    const ajv = ajvInstances().get(draftOf(schema))!;
    const found = ajv.getSchema(idOf(name, schema));
    if (!found) throw new Error(`bundled schema ${BUNDLED_SCHEMAS[name]} is not registered`);
    validate = found;
    compiled.set(name, validate);
  }
  return validate;
}
