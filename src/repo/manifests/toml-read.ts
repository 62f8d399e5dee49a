import { parse } from 'smol-toml';

export type Table = Record<string, unknown>;

export function isTable(v: unknown): v is Table {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** Parses TOML; a file that does not parse contributes nothing (G2 reports the syntax error). */
export function readToml(text: string): Table {
  try {
    return parse(text);
  } catch {
    return {};
  }
}

/** Follows a dotted key path through nested tables; undefined when any step is missing. */
export function dig(table: unknown, ...keys: string[]): unknown {
  let cur: unknown = table;
  for (const k of keys) {
    if (!isTable(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

export function stringsOf(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export function keysOf(v: unknown): string[] {
  return isTable(v) ? Object.keys(v) : [];
}
