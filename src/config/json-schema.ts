import { z } from 'zod';
import { configSchema } from '../core/config-schema.js';

/** JSON Schema of the slopgate config, generated from the zod schema (input side: defaults optional). */
export function configJsonSchema(): Record<string, unknown> {
  // cast: library typing gap: zod types the JSON Schema as a union; the CLI treats it as plain JSON
  const schema = z.toJSONSchema(configSchema, { io: 'input', target: 'draft-7' }) as Record<string, unknown>;
  return {
    ...schema,
    $id: 'https://slopgate.dev/schemas/slopgate.schema.json',
    title: 'slopgate configuration (.github/slopgate.yml or .github/slopgate.toml)',
  };
}

/** The JSON Schema as `slopgate schema` prints it and `slopgate init` writes it (two-space JSON, final newline). */
export function configJsonSchemaText(): string {
  return JSON.stringify(configJsonSchema(), null, 2) + '\n';
}
