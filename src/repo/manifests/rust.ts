import type { ManifestInfo } from '../fingerprint-types.js';
import { dig, isTable, keysOf, readToml, type Table } from './toml-read.js';

const DEP_TABLES = ['dependencies', 'dev-dependencies', 'build-dependencies', 'dev_dependencies', 'build_dependencies'];

/** Adds each dependency key and, for renames (`foo = { package = "bar" }`), the real crate name too. */
function addTable(into: Set<string>, table: unknown): void {
  if (!isTable(table)) return;
  for (const [key, spec] of Object.entries(table)) {
    into.add(key.toLowerCase());
    const renamed = isTable(spec) ? spec.package : undefined;
    if (typeof renamed === 'string' && renamed.trim()) into.add(renamed.trim().toLowerCase());
  }
}

function addAllTables(into: Set<string>, owner: unknown): void {
  for (const t of DEP_TABLES) addTable(into, dig(owner, t));
}

/**
 * Cargo.toml: `[dependencies]`, `[dev-dependencies]`, `[build-dependencies]`, the same under every
 * `[target.'cfg(…)'.…]`, and `[workspace.dependencies]`. Names are kept as written (lower case); a
 * `use` path spells them with `_` for `-`, which the import check accounts for. The crate's own
 * `[package].name` and `[lib].name` are recorded as local crates.
 */
export function parseCargoToml(_path: string, text: string): ManifestInfo {
  const doc: Table = readToml(text);
  const deps = new Set<string>();
  addAllTables(deps, doc);
  const targets = doc.target;
  for (const cfg of keysOf(targets)) addAllTables(deps, dig(targets, cfg));
  addTable(deps, dig(doc, 'workspace', 'dependencies'));
  const crates: string[] = [];
  for (const name of [dig(doc, 'package', 'name'), dig(doc, 'lib', 'name')]) {
    if (typeof name === 'string' && name.trim()) crates.push(name.trim());
  }
  return { ecosystem: 'rust', deps: [...deps], rustCrates: crates };
}
