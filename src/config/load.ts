import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument, isMap, isNode, isScalar, type Document } from 'yaml';
import { parse as parseToml, TomlError } from 'smol-toml';
import type { z } from 'zod';
import { errorMessage, InputError } from '../core/errors.js';
import { configSchema, type SlopgateConfig } from '../core/config-schema.js';

/** Where the repo-level config may live (read from the default branch only). */
export const CONFIG_PATHS = ['.github/slopgate.yml', '.github/slopgate.yaml', '.github/slopgate.toml'] as const;

/** One thing wrong in a config file, with where it is (1-based line and column) when that is known. */
export interface ConfigProblem {
  line?: number | undefined;
  column?: number | undefined;
  detail: string;
}

/** What a user reads to fix a config: a command every install of the package has. */
export const CONFIG_HINT = 'fix the slopgate config; `slopgate schema --format markdown` lists every key with its type and default';

function at(file: string, p: ConfigProblem): string {
  return `${file}${p.line ? `:${p.line}${p.column ? `:${p.column}` : ''}` : ''}`;
}

/**
 * A config file that does not parse or does not match the schema: names the file and, for each problem
 * found (all of them, not only the first), its line, column and what was expected. `line`, `column` and
 * `detail` are the first problem's.
 */
export class ConfigError extends InputError {
  readonly problems: ConfigProblem[];

  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly column: number | undefined,
    readonly detail: string,
    more: ConfigProblem[] = [],
  ) {
    const problems = [{ line, column, detail }, ...more];
    super(
      problems.length === 1
        ? `${at(file, problems[0]!)}: ${detail}`
        : `${file}: ${problems.length} problems:\n${problems.map((p) => `  ${at(file, p)}: ${p.detail}`).join('\n')}`,
      CONFIG_HINT,
    );
    this.problems = problems;
    this.name = 'ConfigError';
  }

  /** One error for every problem found (at least one). */
  static of(file: string, problems: ConfigProblem[]): ConfigError {
    const [first, ...more] = problems;
    if (!first) throw new Error('a config error needs a problem');
    return new ConfigError(file, first.line, first.column, first.detail, more);
  }
}

/** At most this many problems are listed; a file that wrong is best fixed from the top. */
const MAX_PROBLEMS = 20;

function describeIssue(issue: z.core.$ZodIssue, path: PropertyKey[] = issue.path): string {
  const where = path.length ? path.map(String).join('.') : '(top level)';
  if (issue.code === 'unrecognized_keys') return `${where}: unknown key`;
  return `${where}: ${issue.message}`;
}

interface Position {
  line?: number;
  column?: number;
}

/** The YAML node at `path` (the key itself for `asKey`), or the nearest of its parents that exists. */
function yamlPosition(doc: Document, counter: LineCounter, path: PropertyKey[], asKey: boolean): Position {
  const pos = (offset: number): Position => {
    const p = counter.linePos(offset);
    return { line: p.line, column: p.col };
  };
  if (asKey && path.length > 0) {
    const parent = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
    if (isMap(parent)) {
      const pair = parent.items.find((it) => isScalar(it.key) && String(it.key.value) === String(path.at(-1)));
      if (pair && isNode(pair.key) && pair.key.range) return pos(pair.key.range[0]);
    }
  }
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) return pos(node.range[0]);
  }
  return {};
}

/** The key names of a TOML header or dotted key (`a."b.c".d` → a, b.c, d). */
function tomlKeys(text: string): string[] {
  return [...text.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/**
 * Where the TOML key at `path` is: the line that assigns it (or the deepest of its parents: a `key =`
 * line or a `[table]` header), column of the key. Numeric steps (array items) stay on their key's line.
 */
function tomlPosition(text: string, path: PropertyKey[]): Position {
  const want = path.filter((p): p is string => typeof p === 'string');
  let table: string[] = [];
  let best: { depth: number; line: number; column: number } | undefined;
  const consider = (keys: string[], line: number, column: number) => {
    let depth = 0;
    while (depth < keys.length && depth < want.length && keys[depth] === want[depth]) depth++;
    if (depth === keys.length && depth > 0 && (!best || depth > best.depth)) best = { depth, line, column };
  };
  text.split('\n').forEach((raw, i) => {
    const column = raw.length - raw.trimStart().length + 1;
    const header = /^\s*\[\[?([^\]]+)\]\]?/.exec(raw);
    if (header) {
      table = tomlKeys(header[1]!);
      consider(table, i + 1, column);
      return;
    }
    const assign = /^\s*((?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_.\s-])+?)\s*=/.exec(raw);
    if (assign) consider([...table, ...tomlKeys(assign[1]!)], i + 1, column);
  });
  return best ? { line: best.line, column: best.column } : {};
}

/** Parses and validates config text. `file` decides the format (.toml → TOML, else YAML). */
export function parseConfigText(text: string, file: string): SlopgateConfig {
  const isToml = file.endsWith('.toml');
  let data: unknown;
  let locate: (path: PropertyKey[], asKey: boolean) => Position;
  if (isToml) {
    try {
      data = parseToml(text);
    } catch (err) {
      if (err instanceof TomlError) throw new ConfigError(file, err.line, err.column, `invalid TOML: ${err.message.split('\n')[0]}`);
      throw err;
    }
    locate = (path) => tomlPosition(text, path);
  } else {
    const counter = new LineCounter();
    const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
    if (doc.errors.length > 0) {
      throw ConfigError.of(
        file,
        doc.errors.slice(0, MAX_PROBLEMS).map((e) => {
          const pos = counter.linePos(e.pos[0]);
          return { line: pos.line, column: pos.col, detail: `invalid YAML: ${e.message.split('\n')[0]}` };
        }),
      );
    }
    data = doc.toJS() ?? {};
    locate = (path, asKey) => yamlPosition(doc, counter, path, asKey);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new ConfigError(file, 1, undefined, 'expected a mapping of settings at the top level');
  }
  const parsed = configSchema.safeParse(data);
  if (!parsed.success) {
    const problems: ConfigProblem[] = [];
    for (const issue of parsed.error.issues) {
      // An unknown key is pointed at itself, not at its parent mapping; each unknown key is a problem.
      const paths = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
      for (const path of paths) {
        const pos = locate(path, issue.code === 'unrecognized_keys');
        problems.push({ line: pos.line, column: pos.column, detail: describeIssue(issue, path) });
      }
    }
    problems.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity) || (a.column ?? 0) - (b.column ?? 0));
    throw ConfigError.of(file, problems.slice(0, MAX_PROBLEMS));
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
