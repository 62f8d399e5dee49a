import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument, isNode } from 'yaml';
import { parse as parseToml, TomlError } from 'smol-toml';
import type { z } from 'zod';
import { errorMessage, InputError } from '../core/errors.js';
import { configSchema, type SlopgateConfig } from '../core/config-schema.js';

/** Where the repo-level config may live (read from the default branch only). */
export const CONFIG_PATHS = ['.github/slopgate.yml', '.github/slopgate.yaml', '.github/slopgate.toml'] as const;

/** A config file that does not parse or does not match the schema: names the file, line and what was expected. */
export class ConfigError extends InputError {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly column: number | undefined,
    readonly detail: string,
  ) {
    super(
      `${file}${line ? `:${line}${column ? `:${column}` : ''}` : ''}: ${detail}`,
      'fix the slopgate config; every key is documented in docs/configuration-reference.md',
    );
    this.name = 'ConfigError';
  }
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.length ? issue.path.join('.') : '(top level)';
  return `${where}: ${issue.message}`;
}

function yamlLineOf(text: string, path: PropertyKey[]): { line?: number; column?: number } {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter });
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) {
      const pos = counter.linePos(node.range[0]);
      return { line: pos.line, column: pos.col };
    }
  }
  return {};
}

function tomlLineOf(text: string, path: PropertyKey[]): { line?: number } {
  const lines = text.split('\n');
  const key = path.filter((p) => typeof p === 'string').at(-1);
  if (typeof key !== 'string') return {};
  const re = new RegExp(`^\\s*(?:${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*=|\\[[^\\]]*\\b${key}\\b)`);
  const idx = lines.findIndex((l) => re.test(l));
  return idx >= 0 ? { line: idx + 1 } : {};
}

/** Parses and validates config text. `file` decides the format (.toml → TOML, else YAML). */
export function parseConfigText(text: string, file: string): SlopgateConfig {
  const isToml = file.endsWith('.toml');
  let data: unknown;
  if (isToml) {
    try {
      data = parseToml(text);
    } catch (err) {
      if (err instanceof TomlError) throw new ConfigError(file, err.line, err.column, `invalid TOML: ${err.message.split('\n')[0]}`);
      throw err;
    }
  } else {
    const counter = new LineCounter();
    const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
    const first = doc.errors[0];
    if (first) {
      const pos = counter.linePos(first.pos[0]);
      throw new ConfigError(file, pos.line, pos.col, `invalid YAML: ${first.message.split('\n')[0]}`);
    }
    data = doc.toJS() ?? {};
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new ConfigError(file, 1, undefined, 'expected a mapping of settings at the top level');
  }
  const parsed = configSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // For an unknown key, point at the key itself rather than at its parent mapping.
    const path = issue.code === 'unrecognized_keys' && issue.keys[0] ? [...issue.path, issue.keys[0]] : issue.path;
    const pos = isToml ? tomlLineOf(text, path) : yamlLineOf(text, path);
    // cast: library typing gap: the position type does not declare column on every branch
    throw new ConfigError(file, pos.line, 'column' in pos ? (pos.column as number | undefined) : undefined, describeIssue(issue));
  }
  return parsed.data;
}

export async function loadConfigFile(file: string): Promise<SlopgateConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new InputError(`cannot read config file ${file}: ${errorMessage(err)}`);
  }
  return parseConfigText(text, file);
}
