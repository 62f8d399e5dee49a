import { findNodeAtLocation, parseTree, type Node as JsonNode, type ParseError } from 'jsonc-parser';
import { isMap, isNode, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, type Document } from 'yaml';
import { parse as parseToml } from 'smol-toml';

/** How a config file is written. `json-or-yaml` is for extension-less rc files (`.prettierrc`, `.eslintrc`). */
export type ConfigFormat = 'json' | 'jsonc' | 'yaml' | 'toml' | 'json-or-yaml';

export type PathSegment = string | number;

/** A parsed config file: its data and a way to find the line of a key. */
export interface ConfigDocument {
  data: unknown;
  /**
   * Paths whose value carries a YAML tag this reader cannot resolve (`!!python/name:…` and `!ENV` in
   * mkdocs.yml, `!reference` in CI files): the tool computes that value, so it is not checked.
   */
  opaque?: PathSegment[][];
  /** 1-based line of the key at `path` (or of its closest existing ancestor); 1 when unknown. */
  lineOf(path: PathSegment[]): number;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function parseJson(text: string): ConfigDocument | null {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (!root || errors.length > 0) return null;
  const valueOf = (node: JsonNode): unknown => {
    switch (node.type) {
      case 'object': {
        const out: Record<string, unknown> = {};
        for (const prop of node.children ?? []) {
          const [key, value] = prop.children ?? [];
          if (key && value) out[String(key.value)] = valueOf(value);
        }
        return out;
      }
      case 'array':
        return (node.children ?? []).map(valueOf);
      default:
        return node.value;
    }
  };
  return {
    data: valueOf(root),
    lineOf(path) {
      for (let depth = path.length; depth > 0; depth--) {
        const node = findNodeAtLocation(root, path.slice(0, depth));
        if (!node) continue;
        // For an object member, point at its key rather than at the value.
        const at = node.parent?.type === 'property' ? node.parent : node;
        return lineAt(text, at.offset);
      }
      return 1;
    },
  };
}

function parseYaml(text: string): ConfigDocument | null {
  const counter = new LineCounter();
  // YAML 1.2 core schema (the library default): `on:` and `yes:` stay strings, as GitHub reads them.
  const docs = parseAllDocuments(text, { lineCounter: counter, prettyErrors: false });
  if (!Array.isArray(docs) || docs.length !== 1) return null;
  const doc = docs[0] as Document.Parsed; // cast: library typing gap: yaml returns Parsed documents from parseAllDocuments
  if (doc.errors.length > 0) return null;
  const data: unknown = doc.toJS({ maxAliasCount: 1000 });
  return {
    data,
    opaque: unresolvedTagPaths(doc.contents),
    lineOf(path) {
      for (let depth = path.length; depth > 0; depth--) {
        const parent = depth === 1 ? doc.contents : doc.getIn(path.slice(0, depth - 1), true);
        const last = path[depth - 1]!;
        if (isMap(parent)) {
          const pair = parent.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(last));
          // cast: library typing gap: yaml nodes carry a range the pair type does not show
          const range = (pair?.key as { range?: [number, number] } | undefined)?.range;
          if (range) return counter.linePos(range[0]).line;
        } else if (isSeq(parent) && typeof last === 'number') {
          // cast: library typing gap: yaml nodes carry a range the item type does not show
          const range = (parent.items[last] as { range?: [number, number] } | undefined)?.range;
          if (range) return counter.linePos(range[0]).line;
        }
      }
      return 1;
    },
  };
}

/** Tags the YAML 1.2 core schema resolves; any other tag is the reading tool's business. */
const CORE_TAGS = /^tag:yaml\.org,2002:(?:str|int|float|bool|null|map|seq|binary|timestamp|set|omap|pairs|merge)$/;

/** Paths of nodes with a tag outside the core schema (depth-first; bounded by the document size). */
function unresolvedTagPaths(root: unknown): PathSegment[][] {
  const out: PathSegment[][] = [];
  const walk = (node: unknown, path: PathSegment[]) => {
    if (!isNode(node)) return;
    const tag = (node as { tag?: string }).tag; // cast: library typing gap: yaml nodes carry a tag the type does not show
    if (tag && !CORE_TAGS.test(tag)) {
      out.push(path);
      return;
    }
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        walk(pair.value, [...path, key]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item, [...path, i]));
    }
  };
  walk(root, []);
  return out;
}

/** TOML values as plain JSON data (dates become ISO strings, big integers numbers). */
function plainToml(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(plainToml);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainToml(v)]));
  return value;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Line of a TOML key by searching the text: the `[table]` header for the leading keys, then the
 * key (bare, quoted or as the first part of a dotted key) inside that table. Good enough for
 * pointing a reviewer at the right spot; falls back to the table header.
 */
function tomlLine(lines: string[], path: PathSegment[]): number {
  const keys = path.filter((p): p is string => typeof p === 'string');
  for (let split = keys.length - 1; split >= 0; split--) {
    const table = keys.slice(0, split);
    const key = keys[split]!;
    let start = 0;
    let end = lines.length;
    if (table.length > 0) {
      const header = new RegExp(`^\\s*\\[\\[?\\s*${table.map((k) => `["']?${escapeRe(k)}["']?`).join('\\s*\\.\\s*')}\\s*\\]\\]?`);
      const at = lines.findIndex((l) => header.test(l));
      if (at < 0) continue;
      start = at + 1;
      const next = lines.findIndex((l, i) => i >= start && /^\s*\[/.test(l));
      end = next < 0 ? lines.length : next;
    }
    const keyRe = new RegExp(`^\\s*["']?${escapeRe(key)}["']?\\s*(=|\\.)`);
    for (let i = start; i < end; i++) if (keyRe.test(lines[i]!)) return i + 1;
    // `[package]` header itself when the key is missing (e.g. a required key)
    if (split === keys.length - 1 && table.length > 0 && start > 0) return start;
  }
  return 1;
}

function parseTomlDoc(text: string): ConfigDocument | null {
  let data: unknown;
  try {
    data = plainToml(parseToml(text));
  } catch {
    return null;
  }
  const lines = text.split('\n');
  return { data, lineOf: (path) => tomlLine(lines, path) };
}

/** Parses config text; null when it does not parse (syntax is G2's job, not G10's). */
export function parseConfigDocument(text: string, format: ConfigFormat): ConfigDocument | null {
  switch (format) {
    case 'json':
    case 'jsonc':
      return parseJson(text);
    case 'yaml':
      return parseYaml(text);
    case 'toml':
      return parseTomlDoc(text);
    case 'json-or-yaml':
      return /^\s*[{[]/.test(text) ? parseJson(text) : parseYaml(text);
  }
}
