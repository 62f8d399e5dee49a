import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const require = createRequire(import.meta.url);

/** GitHub's own OpenAPI descriptions, as shipped by `@octokit/openapi`. */
export function openApiFile(name = 'api.github.com'): string {
  return join(dirname(require.resolve('@octokit/openapi/package.json')), 'generated', `${name}.json`);
}

/** One operation of the description, with a matcher for concrete request paths. */
export interface ApiOperation {
  method: string;
  template: string;
  operationId: string;
  regex: RegExp;
  paramNames: string[];
  literalSegments: number;
}

export interface OperationMatch {
  operation: ApiOperation;
  params: Record<string, string>;
}

/**
 * OpenAPI 3.0 `nullable: true` is not JSON Schema: turn it into a `null` type (or an `anyOf` with
 * `null` when the schema has no `type`), everywhere in the description, once.
 */
function rewriteNullable(node: Json): Json {
  if (Array.isArray(node)) return node.map(rewriteNullable);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) if (k !== 'nullable') out[k] = rewriteNullable(v);
  if (node.nullable !== true) return out;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}

function pointer(...parts: string[]): string {
  return parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const extra =
      e.keyword === 'enum'
        ? ` (allowed: ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')})`
        : '';
    const prop = e.keyword === 'additionalProperties' ? ` '${(e.params as { additionalProperty: string }).additionalProperty}'` : '';
    return `${e.instancePath || '(root)'} ${e.message}${prop}${extra}`;
  });
}

/**
 * Validates requests against GitHub's OpenAPI description: request bodies with the operation's
 * `requestBody` schema, path and query parameters with their declared schemas (coerced from strings,
 * unknown query parameters rejected). Validators are compiled on first use and cached.
 */
export class OpenApiValidator {
  private readonly spec: Json;
  private readonly ajv: Ajv;
  private readonly paramAjv: Ajv;
  private readonly operations: ApiOperation[] = [];
  private readonly bodyCache = new Map<string, ValidateFunction | null>();
  private readonly paramCache = new Map<string, { path: ValidateFunction; query: ValidateFunction }>();

  constructor(file = openApiFile()) {
    this.spec = rewriteNullable(JSON.parse(readFileSync(file, 'utf8')));
    const opts = { strict: false, validateSchema: false, allErrors: true, logger: false as const };
    this.ajv = new Ajv(opts);
    this.paramAjv = new Ajv({ ...opts, coerceTypes: true });
    for (const ajv of [this.ajv, this.paramAjv]) {
      ajv.addFormat('date-time', DATE_TIME);
      ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:[^\s]*$/i);
      ajv.addFormat('email', /^[^\s@]+@[^\s@]+$/);
      ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
      for (const f of ['int64', 'int32', 'double', 'repo.nwo', 'binary', 'uri-template', 'timestamp']) ajv.addFormat(f, true);
    }
    this.ajv.addSchema({ $id: 'gh', components: this.spec.components, paths: this.spec.paths } as Json, 'gh');
    for (const [template, item] of Object.entries<Json>(this.spec.paths)) {
      for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
        if (!item[method]) continue;
        const segs = template.split('/').slice(1);
        const paramNames: string[] = [];
        const last = segs.length - 1;
        const source = segs
          .map((s, i) => {
            const m = /^\{([^}]+)\}$/.exec(s);
            if (!m) return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
            paramNames.push(m[1]!);
            // A file path may hold slashes (Octokit sends them unescaped).
            return i === last && m[1] === 'path' ? '(.+)' : '([^/]+)';
          })
          .join('/');
        this.operations.push({
          method: method.toUpperCase(),
          template,
          operationId: item[method].operationId,
          regex: new RegExp(`^/${source}$`),
          paramNames,
          literalSegments: segs.filter((s) => !s.startsWith('{')).length,
        });
      }
    }
    // Literal segments win over parameters (issues/comments/{id} before issues/{number}/comments).
    this.operations.sort((a, b) => b.literalSegments - a.literalSegments);
  }

  /** The operation a request goes to (path without the `/api/v3` prefix and without the query). */
  match(method: string, path: string): OperationMatch | null {
    for (const op of this.operations) {
      if (op.method !== method.toUpperCase()) continue;
      const m = op.regex.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      op.paramNames.forEach((n, i) => (params[n] = decodeURIComponent(m[i + 1]!)));
      return { operation: op, params };
    }
    return null;
  }

  /** Problems with one request; empty when it conforms. */
  validate(match: OperationMatch, query: URLSearchParams, body: unknown): string[] {
    const { operation } = match;
    const problems: string[] = [];
    const params = this.paramValidators(operation);
    const pathValues: Record<string, unknown> = { ...match.params };
    if (!params.path(pathValues)) problems.push(...describe(params.path.errors).map((e) => `path parameter ${e}`));
    const queryValues: Record<string, unknown> = {};
    for (const [k, v] of query) queryValues[k] = v;
    if (!params.query(queryValues)) problems.push(...describe(params.query.errors).map((e) => `query ${e}`));
    const op = this.spec.paths[operation.template][operation.method.toLowerCase()];
    const bodySpec = op.requestBody;
    if (body === undefined) {
      if (bodySpec?.required) problems.push('request body is required but none was sent');
      return problems;
    }
    if (!bodySpec) {
      problems.push('this operation takes no request body');
      return problems;
    }
    const validate = this.bodyValidator(operation);
    if (validate && !validate(body)) problems.push(...describe(validate.errors).map((e) => `body ${e}`));
    return problems;
  }

  private bodyValidator(operation: ApiOperation): ValidateFunction | null {
    const key = `${operation.method} ${operation.template}`;
    if (this.bodyCache.has(key)) return this.bodyCache.get(key)!;
    const content = this.spec.paths[operation.template][operation.method.toLowerCase()].requestBody?.content ?? {};
    const type = content['application/json'] ? 'application/json' : Object.keys(content)[0];
    const fn = type
      ? this.ajv.compile({
          $ref: `gh#/${pointer('paths', operation.template, operation.method.toLowerCase(), 'requestBody', 'content', type, 'schema')}`,
        })
      : null;
    this.bodyCache.set(key, fn);
    return fn;
  }

  private paramValidators(operation: ApiOperation) {
    const key = `${operation.method} ${operation.template}`;
    const cached = this.paramCache.get(key);
    if (cached) return cached;
    const item = this.spec.paths[operation.template];
    const declared: Json[] = [...(item.parameters ?? []), ...(item[operation.method.toLowerCase()].parameters ?? [])].map((p: Json) =>
      this.deref(p),
    );
    const build = (where: 'path' | 'query') => {
      const list = declared.filter((p) => p.in === where);
      const schema = {
        type: 'object',
        properties: Object.fromEntries(list.map((p) => [p.name, this.inline(p.schema ?? {})])),
        required: list.filter((p) => p.required).map((p) => p.name),
        additionalProperties: false,
      };
      return this.paramAjv.compile(schema);
    };
    const v = { path: build('path'), query: build('query') };
    this.paramCache.set(key, v);
    return v;
  }

  private deref(node: Json): Json {
    let cur = node;
    while (cur && typeof cur.$ref === 'string') {
      cur = cur.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((o: Json, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], this.spec);
    }
    return cur;
  }

  /** Parameter schemas are small: inline their refs so the coercing validator needs no spec. */
  private inline(node: Json): Json {
    if (Array.isArray(node)) return node.map((n) => this.inline(n));
    if (!node || typeof node !== 'object') return node;
    if (typeof node.$ref === 'string') return this.inline(this.deref(node));
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, this.inline(v)]));
  }
}
