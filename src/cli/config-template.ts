import { configJsonSchema } from '../config/json-schema.js';

/**
 * The commented `.github/slopgate.yml` that `slopgate init` writes: every key of the config schema at
 * its default, each under a comment made from the schema's description and limits. It is generated
 * from the zod schema (through its JSON Schema), so a new key shows up here without anyone editing
 * this file; keys without a default (e.g. `tests.command`) are written commented out.
 */

interface JsonSchemaNode {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  properties?: Record<string, JsonSchemaNode>;
}

/**
 * The JSON Schema file `slopgate init` writes next to the config, and the `$schema` path to it in the
 * config's first line. The YAML language server resolves a relative `$schema` from the YAML file's own
 * folder, so the editor finds it in any checkout without a network or a published package.
 */
export const SCHEMA_FILE = 'slopgate.schema.json';
const SCHEMA_MODELINE = `# yaml-language-server: $schema=./${SCHEMA_FILE}`;

function limits(node: JsonSchemaNode): string {
  if (node.enum) return `one of ${node.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  const lo = node.minimum !== undefined ? `≥ ${node.minimum}` : node.exclusiveMinimum !== undefined ? `> ${node.exclusiveMinimum}` : '';
  const hi = node.maximum !== undefined ? `≤ ${node.maximum}` : node.exclusiveMaximum !== undefined ? `< ${node.exclusiveMaximum}` : '';
  return [lo, hi].filter(Boolean).join(', ');
}

function comment(node: JsonSchemaNode, indent: string): string {
  const text = (node.description ?? '').replace(/\s+/g, ' ').trim();
  const range = limits(node);
  const line = [text, range ? `(${range})` : ''].filter(Boolean).join(' ');
  return line ? `${indent}# ${line}\n` : '';
}

const isSection = (node: JsonSchemaNode): node is JsonSchemaNode & { properties: Record<string, JsonSchemaNode> } =>
  node.type === 'object' && node.properties !== undefined;

function placeholder(node: JsonSchemaNode): string {
  const type = Array.isArray(node.type) ? node.type[0] : node.type;
  return type === 'string' ? '"…"' : type === 'array' ? '[]' : `<${type ?? 'value'}>`;
}

function entries(properties: Record<string, JsonSchemaNode>, depth: number): string {
  const indent = '  '.repeat(depth);
  let out = '';
  for (const [key, node] of Object.entries(properties)) {
    if (isSection(node)) {
      out += `\n${comment(node, indent)}${indent}${key}:\n${entries(node.properties, depth + 1)}`;
      continue;
    }
    out += comment(node, indent);
    const value = node.default !== undefined ? node.default : node.const;
    // JSON is valid YAML for every default the schema has (scalars, lists, strings with quotes).
    out += value === undefined ? `${indent}# ${key}: ${placeholder(node)}   (no default)\n` : `${indent}${key}: ${JSON.stringify(value)}\n`;
  }
  return out;
}

export function configTemplate(): string {
  // cast: library typing gap: zod types the JSON Schema as a union; read here as plain JSON
  const schema = configJsonSchema() as JsonSchemaNode;
  return (
    `${SCHEMA_MODELINE}\n` +
    '# slopgate configuration. The App reads it from the default branch and `slopgate check` from the base\n' +
    '# of the change, as committed (`--config FILE` reads another file). Every key is optional and shown\n' +
    '# here at its default: change what you need, delete the rest. An unknown key or a wrong value is an\n' +
    '# error that names the line.\n' +
    `# Editors with the YAML language server complete and check this file against ${SCHEMA_FILE} next to\n` +
    `# it (the line above; \`slopgate init\` wrote both). After upgrading slopgate, refresh that schema with\n` +
    `# \`slopgate schema > .github/${SCHEMA_FILE}\` and commit it with this file.\n\n` +
    entries(schema.properties ?? {}, 0).replace(/^\n/, '')
  );
}
