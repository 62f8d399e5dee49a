import { z } from 'zod';

/** Data read from a file, a tool's output or a store that does not have the shape the code needs. */
export class DataShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataShapeError';
  }
}

/** The first few problems zod found, as `at path: what` phrases. */
function issuesText(error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((i) => `${i.path.length ? `at ${i.path.join('.')}` : 'at the top level'}: ${i.message}`);
  const more = error.issues.length > 3 ? `; and ${error.issues.length - 3} more` : '';
  return `${shown.join('; ')}${more}`;
}

/**
 * `value` (already parsed from JSON, TOML or YAML) checked against `schema`. Throws a {@link DataShapeError}
 * that names `what` was read and what is wrong with it.
 */
export function shapedAs<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new DataShapeError(`${what} does not have the expected shape (${issuesText(parsed.error)})`);
}

/** `text` parsed as JSON and checked against `schema`; a syntax error or a wrong shape throws a {@link DataShapeError} naming `what`. */
export function parseJsonAs<T>(schema: z.ZodType<T>, text: string, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new DataShapeError(`${what} is not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  return shapedAs(schema, value, what);
}

/** A JSON object (a manifest, a config file): any keys, values read field by field by the caller. */
export const jsonObject = z.record(z.string(), z.unknown());

/** An optional field that a tool may also write as `null`: both read as absent. */
export function optional<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((v) => v ?? undefined);
}
