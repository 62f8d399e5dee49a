import type { ErrorObject } from 'ajv';
import type { PathSegment } from './config-documents.js';
import { editDistance } from '../../core/edit-distance.js';
import { isRecord } from '../../core/is-record.js';

/** One schema violation, reduced to what a PR author needs. */
export interface SchemaProblem {
  /** Path of the offending key (for a missing or unknown key: that key). */
  path: PathSegment[];
  keyword: string;
  /** What the schema expects, in plain words. */
  expected: string;
  /** The value found (JSON, shortened), or null when the key is missing. */
  actual: string | null;
  /** Identity for comparing base and head: path + keyword + key involved. */
  key: string;
  /** For an unknown key: the keys the schema knows at that level (for "did you mean"). */
  known?: string[];
  /** For a wrong value: the JSON type found and the types the schema wanted (`type` errors only). */
  types?: { found: string; wanted: string[] };
}

/** Keywords that only summarise their branches' errors (or reject a branch as a whole); the branch errors say more. */
const SUMMARY = new Set(['anyOf', 'oneOf', 'if', 'then', 'else', 'allOf', '$ref', 'dependencies', 'dependentSchemas', 'not']);

const KEYWORD_RANK: Record<string, number> = { required: 0, enum: 1, const: 1, type: 2, additionalProperties: 3 };

function decodePointer(pointer: string, data: unknown): PathSegment[] {
  if (!pointer) return [];
  const out: PathSegment[] = [];
  let cursor: unknown = data;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const isIndex = Array.isArray(cursor) && /^\d+$/.test(seg);
    out.push(isIndex ? Number(seg) : seg);
    cursor = fieldOf(cursor, seg);
  }
  return out;
}

/** `compilerOptions.target`, `jobs.build.steps[0].uses`, `scripts["pre.build"]`. */
export function formatPath(path: PathSegment[]): string {
  if (path.length === 0) return '(top level)';
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

function shorten(value: unknown, max = 80): string {
  // JSON.stringify returns undefined for undefined, functions and symbols, whatever its declared type says.
  const text = (JSON.stringify(value) as string | undefined) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function listValues(values: unknown[], max = 12): string {
  const shown = values.slice(0, max).map((v) => shorten(v, 40));
  return values.length > max ? `${shown.join(', ')}, … (${values.length} allowed values)` : shown.join(', ');
}

/** The allowed string closest to `value` when it is plausibly a typo of it (at most 2 edits, or a third of its length). */
function closest(value: string, allowed: unknown[]): string | undefined {
  let best: { v: string; d: number } | undefined;
  for (const candidate of allowed) {
    if (typeof candidate !== 'string') continue;
    const d = editDistance(value.toLowerCase(), candidate.toLowerCase());
    if (!best || d < best.d) best = { v: candidate, d };
  }
  return best && best.d <= Math.max(2, Math.floor(value.length / 3)) && best.d < value.length ? best.v : undefined;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

// Ajv types an error's params, and the schema that raised it, as records of `any`: each field below is
// read as `unknown` and checked for the shape that keyword documents.

/** The params field `name` of an Ajv error (`allowedValues` of enum, `missingProperty` of required, …). */
function param(e: ErrorObject, name: string): unknown {
  const params: Record<string, unknown> = e.params;
  return params[name];
}

function stringParam(e: ErrorObject, name: string): string | undefined {
  const v = param(e, name);
  return typeof v === 'string' ? v : undefined;
}

function listParam(e: ErrorObject, name: string): unknown[] {
  const v = param(e, name);
  return Array.isArray(v) ? v : [];
}

/** The JSON types a `type` error wanted (its `type` param is one name or a list). */
function typesWanted(e: ErrorObject): string[] {
  const v = param(e, 'type');
  return typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((t): t is string => typeof t === 'string') : [];
}

/** The field `name` of the (sub)schema that raised the error. */
function parentSchemaField(e: ErrorObject, name: string): unknown {
  const schema: Record<string, unknown> | undefined = e.parentSchema;
  return schema?.[name];
}

/** The keys the raising schema declares in `properties`. */
function knownKeys(e: ErrorObject): string[] {
  const props = parentSchemaField(e, 'properties');
  return isRecord(props) ? Object.keys(props) : [];
}

function describe(errors: ErrorObject[], value: unknown): string {
  const first = errors[0]!;
  switch (first.keyword) {
    case 'enum': {
      const allowed = [...new Set(errors.flatMap((e) => listParam(e, 'allowedValues')))];
      const near = typeof value === 'string' ? closest(value, allowed) : undefined;
      return `one of ${listValues(allowed)}${near !== undefined ? ` (closest: ${JSON.stringify(near)})` : ''}`;
    }
    case 'const':
      return `exactly ${shorten(param(first, 'allowedValue'))}`;
    case 'type': {
      const types = [...new Set(errors.flatMap(typesWanted))];
      const allowed = parentSchemaField(first, 'enum');
      const values = Array.isArray(allowed) ? `, one of ${listValues(allowed)}` : '';
      return `a ${types.join(' or ')}${values} (found ${typeOf(value)})`;
    }
    case 'required':
      return `the key "${stringParam(first, 'missingProperty') ?? ''}" to be present`;
    case 'additionalProperties': {
      const known = knownKeys(first);
      return known.length ? `only known keys (${listValues(known, 15)})` : 'no keys besides the documented ones';
    }
    default:
      return first.message
        ? `a value that ${first.message.replace(/^must /, 'does ').replace(/^does be /, 'is ')}`
        : `a value accepted by "${first.keyword}"`;
  }
}

/**
 * Turns Ajv's raw error list (allErrors) into problems, most useful first:
 * summary errors of anyOf/oneOf are dropped (their branches say more); a `type` error is dropped
 * when another branch accepted the type and failed deeper or on another keyword; among branches
 * failing at the same path the one with the fewest errors wins (the shape the author most likely
 * meant); deeper paths and then required/enum/type/unknown-key errors rank first.
 */
export function problemsFrom(rawErrors: ErrorObject[], data: unknown): SchemaProblem[] {
  const errors = rawErrors.filter((e) => !SUMMARY.has(e.keyword));
  // Errors raised by the same (sub)schema at the same place belong to one branch of an anyOf/oneOf.
  const branchKey = (e: ErrorObject) => `${e.instancePath}\u0000${identityOf(e.parentSchema)}`;
  const groupSize = new Map<string, number>();
  for (const e of errors) groupSize.set(branchKey(e), (groupSize.get(branchKey(e)) ?? 0) + 1);
  const sizeOf = (e: ErrorObject) => groupSize.get(branchKey(e)) ?? 1;
  // A type error is noise when another branch accepted the type and failed later (same place or deeper).
  const otherBranchWentFurther = (e: ErrorObject) =>
    errors.some(
      (o) =>
        o.keyword !== 'type' &&
        identityOf(o.parentSchema) !== identityOf(e.parentSchema) &&
        (o.instancePath === e.instancePath || o.instancePath.startsWith(`${e.instancePath}/`)),
    );
  // An enum/const error next to a type error of the same subschema repeats it (the type error names the values).
  const typeErrors = errors.filter((e) => e.keyword === 'type' && !otherBranchWentFurther(e));
  const typeErrorBeside = (e: ErrorObject) =>
    typeErrors.some((o) => o.instancePath === e.instancePath && o.parentSchema === e.parentSchema);
  const kept = errors.filter((e) =>
    e.keyword === 'type' ? typeErrors.includes(e) : !((e.keyword === 'enum' || e.keyword === 'const') && typeErrorBeside(e)),
  );
  const byPath = new Map<string, ErrorObject[]>();
  for (const e of kept) {
    const extra =
      e.keyword === 'required'
        ? (stringParam(e, 'missingProperty') ?? '')
        : e.keyword === 'additionalProperties'
          ? (stringParam(e, 'additionalProperty') ?? '')
          : '';
    const slot = `${e.instancePath}\u0000${e.keyword}\u0000${extra}`;
    byPath.set(slot, [...(byPath.get(slot) ?? []), e]);
  }
  const minGroupAt = new Map<string, number>();
  for (const e of kept) minGroupAt.set(e.instancePath, Math.min(minGroupAt.get(e.instancePath) ?? Infinity, sizeOf(e)));
  const problems: { problem: SchemaProblem; rank: number[] }[] = [];
  for (const [slot, group] of byPath) {
    const first = group[0]!;
    const base = decodePointer(first.instancePath, data);
    const child =
      first.keyword === 'required'
        ? stringParam(first, 'missingProperty')
        : first.keyword === 'additionalProperties'
          ? stringParam(first, 'additionalProperty')
          : undefined;
    const path = child === undefined ? base : [...base, child];
    const value = valueAt(data, path);
    const problem: SchemaProblem = {
      path,
      keyword: first.keyword,
      expected: describe(group, valueAt(data, base)),
      actual: first.keyword === 'required' ? null : shorten(value),
      key: slot,
    };
    if (first.keyword === 'additionalProperties') {
      problem.known = knownKeys(first);
    }
    if (first.keyword === 'type') {
      const wanted = [...new Set(group.flatMap(typesWanted))];
      problem.types = { found: typeOf(valueAt(data, base)), wanted };
    }
    const branchPenalty = Math.min(...group.map(sizeOf)) - (minGroupAt.get(first.instancePath) ?? 0);
    problems.push({ problem, rank: [-base.length, branchPenalty, KEYWORD_RANK[first.keyword] ?? 5] });
  }
  problems.sort((a, b) => a.rank[0]! - b.rank[0]! || a.rank[1]! - b.rank[1]! || a.rank[2]! - b.rank[2]!);
  return problems.map((p) => p.problem);
}

const identities = new WeakMap<object, number>();
let nextIdentity = 1;

function identityOf(schema: unknown): number {
  if (!schema || typeof schema !== 'object') return 0;
  let id = identities.get(schema);
  if (id === undefined) {
    id = nextIdentity++;
    identities.set(schema, id);
  }
  return id;
}

function valueAt(data: unknown, path: PathSegment[]): unknown {
  let cursor = data;
  for (const seg of path) cursor = fieldOf(cursor, String(seg));
  return cursor;
}

/** A key of a parsed object, or an element of a parsed array (`seg` is its index); undefined for anything else. */
function fieldOf(value: unknown, seg: string): unknown {
  return value && typeof value === 'object' ? Reflect.get(value, seg) : undefined;
}
