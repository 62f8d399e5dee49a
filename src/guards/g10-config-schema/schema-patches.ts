/**
 * Load-time adjustments of bundled SchemaStore schemas where the schema is stricter than the tool
 * that reads the file (the files in schemas/ stay byte-for-byte SchemaStore's; see schemas/NOTICE.md).
 * Each one was found by validating real, working configs of public projects: G10 must not call a
 * config invalid that its tool accepts.
 */
import { isRecord } from '../../core/is-record.js';

type JsonSchema = Record<string, unknown>;

const obj = (v: unknown): JsonSchema | undefined => (isRecord(v) ? v : undefined);

/** `schema` also accepting a single string (GitHub accepts `branches: main` for `[main]`). */
function orString(schema: JsonSchema | undefined): JsonSchema | undefined {
  return schema ? { anyOf: [{ type: 'string' }, { ...schema }] } : undefined;
}

/** Calls `fn` on every object node of the schema (depth-first). */
function eachNode(node: unknown, fn: (n: JsonSchema) => void): void {
  if (Array.isArray(node)) for (const x of node) eachNode(x, fn);
  else if (isRecord(node)) {
    fn(node);
    for (const v of Object.values(node)) eachNode(v, fn);
  }
}

const PATCHES: Record<string, (schema: JsonSchema) => void> = {
  // GitHub Actions reads a single string wherever a list of globs or activity types is expected.
  'github-workflow': (s) => {
    const defs = obj(s.definitions);
    if (!defs) return;
    for (const name of ['globs', 'types']) {
      const patched = orString(obj(defs[name]));
      if (patched) defs[name] = patched;
    }
  },
  // The runner takes any YAML scalar as an input default (`default: false`), and local actions
  // (`uses: ./.github/actions/x`) run without `name`/`description`.
  'github-action': (s) => {
    s.required = ['runs'];
    const inputs = obj(obj(obj(s.properties)?.inputs)?.patternProperties);
    for (const input of Object.values(inputs ?? {})) {
      const props = obj(obj(input)?.properties);
      if (props?.default) props.default = { type: ['string', 'boolean', 'number'] };
      if (isRecord(input)) delete input.required;
    }
  },
  // `INHERIT: ../en/mkdocs.yml` takes site_name (and the rest) from the parent config.
  mkdocs: (s) => {
    if (!Array.isArray(s.required)) return;
    const rest = s.required.filter((k) => k !== 'site_name');
    s.required = rest;
    s.if = { not: { required: ['INHERIT'] } };
    s.then = { required: ['site_name'] };
  },
  // Hatch accepts `sources = ["src"]` (a list of prefixes to strip) as well as the table form.
  hatch: (s) =>
    eachNode(s, (n) => {
      const props = obj(n.properties);
      const sources = obj(props?.sources);
      if (props && sources?.type === 'object') props.sources = { anyOf: [sources, { type: 'array', items: { type: 'string' } }] };
    }),
  // The rule list changes with every ruff release (rules are added, redirected and removed); a config
  // written for another ruff version is not invalid. Keep the shape of a selector, not the list.
  ruff: (s) => {
    const defs = obj(s.definitions);
    if (defs?.RuleSelector) defs.RuleSelector = { type: 'string', pattern: '^(?:ALL|[A-Z]{1,6}[0-9]{0,4})$' };
  },
};

/** Applies the adjustments of `name` (in place) and returns the schema. */
export function patchSchema(name: string, schema: JsonSchema): JsonSchema {
  PATCHES[name]?.(schema);
  return schema;
}
