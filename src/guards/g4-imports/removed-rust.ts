import { posix } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import type { GuardContext, GuardFinding } from '../../core/guard.js';
import { isRecord } from '../../core/is-record.js';
import type { ChangedFile } from '../../core/patch-set.js';
import { isSkippedPath } from '../../repo/manifests/index.js';
import { isRustBuiltinPath } from '../../repo/stdlib/rust.js';
import { dirOf, grepHead, ownerDir, removedFinding } from './removed-shared.js';
import { rustCrateUses } from './rust-crate-uses.js';

/**
 * A dependency the PR removes from a Cargo.toml while .rs files of that crate still name it: Cargo
 * puts only declared dependencies in scope, so the crate stops compiling (`unresolved import`, E0432/
 * E0433). The name the code uses is the dependency's key with `-` read as `_` (a `package = "…"`
 * rename keeps the key), so a dependency re-declared under another key still counts as removed.
 * `[dependencies]` and `[dev-dependencies]` (also per target) count every file but `build.rs`;
 * `[build-dependencies]` count `build.rs` only. An `optional = true` dependency is compiled only with
 * its feature: `risk`. `[workspace.dependencies]` provides nothing by itself (a member inherits with
 * `x.workspace = true`), so it is not read. Unlike npm, Python or Go, a workspace sibling is no
 * provider either: a crate that is not declared is not in scope.
 */

const KINDS = ['dependencies', 'dev-dependencies', 'build-dependencies'] as const;

interface Declared {
  /** The dependency key as written. */
  key: string;
  build: boolean;
  code: boolean;
  optional: boolean;
}

/** Code name (`-` → `_`) → how the manifest declares it. */
function declaredCrates(text: string): Map<string, Declared> {
  const doc: unknown = parseToml(text);
  const out = new Map<string, Declared>();
  const add = (owner: unknown) => {
    if (!isRecord(owner)) return;
    for (const kind of KINDS) {
      const table = owner[kind] ?? owner[kind.replace('-', '_')];
      if (!isRecord(table)) continue;
      for (const [key, spec] of Object.entries(table)) {
        const name = key.replace(/-/g, '_');
        const d = out.get(name) ?? { key, build: false, code: false, optional: true };
        if (kind === 'build-dependencies') d.build = true;
        else d.code = true;
        if (!(isRecord(spec) && spec.optional === true)) d.optional = false;
        out.set(name, d);
      }
    }
  };
  add(doc);
  if (isRecord(doc) && isRecord(doc.target)) for (const body of Object.values(doc.target)) add(body);
  return out;
}

/** The crate's own names ([package].name, [lib].name): its bins, tests and examples `use` them. */
function ownNames(text: string): Set<string> {
  const doc: unknown = parseToml(text);
  const out = new Set<string>();
  if (!isRecord(doc)) return out;
  for (const t of [doc.package, doc.lib]) if (isRecord(t) && typeof t.name === 'string') out.add(t.name.replace(/-/g, '_'));
  return out;
}

export async function removedRustFindings(file: ChangedFile, ctx: GuardContext): Promise<GuardFinding[]> {
  if (posix.basename(file.path) !== 'Cargo.toml' || file.status !== 'modified' || file.base.text === null || file.head.text === null)
    return [];
  let before: Map<string, Declared>;
  let after: Map<string, Declared>;
  let own: Set<string>;
  try {
    before = declaredCrates(file.base.text);
    after = declaredCrates(file.head.text);
    own = ownNames(file.head.text);
  } catch {
    return [];
  }
  const removed = [...before].filter(([name]) => !after.has(name) && !own.has(name) && !isRustBuiltinPath(name));
  if (removed.length === 0) return [];
  const crateDirs = new Set((await ctx.head.paths()).filter((p) => posix.basename(p) === 'Cargo.toml' && !isSkippedPath(p)).map(dirOf));
  const dir = dirOf(file.path);
  const out: GuardFinding[] = [];
  for (const [name, d] of removed.slice(0, 20)) {
    const candidates = (
      await grepHead(ctx, `(^|[^A-Za-z0-9_])${name}::|extern[[:space:]]+crate[[:space:]]+${name}([^A-Za-z0-9_]|$)`, ['*.rs'], dir)
    ).filter((p) => !isSkippedPath(p) && ownerDir(p, crateDirs) === dir && (posix.basename(p) === 'build.rs' ? d.build : d.code));
    if (candidates.length === 0) continue;
    const texts = await ctx.head.readTexts(candidates.slice(0, 400));
    const files: string[] = [];
    for (const path of candidates) {
      const text = texts.get(path);
      if (text !== undefined && (await rustCrateUses(text, name)).length > 0) files.push(path);
    }
    if (files.length === 0) continue;
    out.push(
      removedFinding({
        manifest: file,
        ecosystem: 'rust',
        pkg: d.key,
        importName: name,
        importers: files,
        accidental: d.optional
          ? `it was an optional dependency, so only builds with the feature that enables it break (and any \`[features]\` entry still naming it), which the default build does not show.`
          : null,
        breaks: 'Cargo puts only declared dependencies in scope, so the crate no longer compiles (unresolved import).',
        remediation: `Keep \`${d.key}\` in \`${file.path}\`, or remove its uses from those files in this PR.`,
      }),
    );
  }
  return out;
}
