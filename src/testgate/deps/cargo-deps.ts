import { parse, stringify } from 'smol-toml';
import type { Revision } from '../../core/revision.js';
import { isTable, readToml, type Table } from '../../repo/manifests/toml-read.js';
import { hashTexts } from './hash-texts.js';
import { DEPS_MOUNT, type DepsPlan, type NoInstall } from './deps-plan.js';

/**
 * A Cargo package or workspace: `cargo vendor` into {@link DEPS_MOUNT}/vendor (registry and git
 * dependencies alike), and the source replacement it prints becomes the config of the test run's
 * private CARGO_HOME, so the tests build offline from a read-only copy. A `rust-toolchain.toml` that
 * names a toolchain this machine does not have is reported and the default toolchain is used.
 */

export const CARGO_VENDOR = `${DEPS_MOUNT}/vendor`;

/** The toolchain a `rust-toolchain(.toml)` file asks for (`channel`, or the legacy one-line file). */
export function pinnedRustToolchain(text: string | null): string | null {
  if (text === null) return null;
  const doc = readToml(text);
  if (isTable(doc.toolchain) && typeof doc.toolchain.channel === 'string') return doc.toolchain.channel;
  const line = text.trim();
  return /^[\w.-]+$/.test(line) ? line : null;
}

/** An installed toolchain name that the pinned channel names (`1.80` matches `1.80.1-x86_64-…`). */
export function matchToolchain(pinned: string, installed: string[]): string | null {
  for (const t of installed) {
    const name = t.replace(/\s*\(.*\)$/, '').trim();
    if (name === pinned || name.startsWith(`${pinned}-`) || name.startsWith(`${pinned}.`)) return name;
  }
  return null;
}

/** `.cargo/config.toml` settings that change only how cargo builds or prints, never which program it runs or where crates come from. */
const INERT_CARGO_CONFIG: Record<string, true | string[]> = {
  alias: true,
  term: true,
  profile: true,
  'cargo-new': true,
  'future-incompat-report': true,
  net: ['retry', 'git-fetch-with-cli', 'offline'],
  build: ['target', 'jobs', 'rustflags', 'rustdocflags', 'target-dir', 'incremental', 'pipelining', 'dep-info-basedir'],
};

/**
 * Why running cargo in this tree runs code of the tree (cargo vendor asks rustc for its version, through
 * any wrapper the repository's config names; a toolchain file may name a toolchain folder of the tree),
 * or null.
 */
function cargoProjectCode(config: string | null, toolchainFile: string | null): string | null {
  if (toolchainFile && /^\s*path\s*=/m.test(toolchainFile)) return 'rust-toolchain.toml names a toolchain by path';
  if (config === null) return null;
  const doc = readToml(config);
  for (const [table, value] of Object.entries(doc)) {
    const inert = INERT_CARGO_CONFIG[table];
    if (inert === true) continue;
    if (table === 'target' && isTable(value)) {
      const bad = Object.values(value).some((t) => !isTable(t) || Object.keys(t).some((k) => k !== 'rustflags'));
      if (!bad) continue;
    } else if (inert && isTable(value) && Object.keys(value).every((k) => inert.includes(k))) continue;
    return `.cargo/config.toml sets [${table}], which can make cargo run the repository's programs or read its crates`;
  }
  return null;
}

function projectCodeOf(config: string | null, toolchainFile: string | null): { projectCode: string } | null {
  const why = cargoProjectCode(config, toolchainFile);
  return why ? { projectCode: why } : null;
}

/** A cargo source table: where crates come from. */
const SOURCE_KEYS = new Set(['registry', 'git', 'branch', 'tag', 'rev', 'replace-with', 'directory']);

/**
 * The source replacement `cargo vendor` printed, as a config slopgate writes itself: only `[source.*]`
 * tables with the keys a source has, and the one directory source pointing at {@link CARGO_VENDOR}.
 * What the install printed is PR output: anything else (a runner, a wrapper, an `[env]`, another
 * directory) is refused, and the install with it. Nothing printed (only path dependencies): no config.
 */
export function vendoredSourceConfig(printed: string): string | undefined {
  // Path dependencies alone: cargo vendors nothing and prints nothing.
  if (printed.trim() === '') return undefined;
  let doc: Table;
  try {
    doc = parse(printed);
  } catch (err) {
    throw new Error(`cargo vendor printed a config that does not parse: ${String(err)}`);
  }
  const extra = Object.keys(doc).filter((k) => k !== 'source');
  if (extra.length) throw new Error(`cargo vendor printed more than a source replacement ([${extra.join('], [')}])`);
  const sources = isTable(doc.source) ? doc.source : {};
  const out: Table = {};
  for (const [name, table] of Object.entries(sources)) {
    if (!isTable(table)) throw new Error(`source.${name} is not a table`);
    const entry: Table = {};
    for (const [k, v] of Object.entries(table)) {
      if (!SOURCE_KEYS.has(k) || typeof v !== 'string') throw new Error(`source.${name}.${k} is not a source setting`);
      if (k === 'directory' && v !== CARGO_VENDOR) throw new Error(`source.${name} points at ${v}, not at the vendored crates`);
      entry[k] = v;
    }
    out[name] = entry;
  }
  if (!Object.values(out).some((t) => isTable(t) && t.directory === CARGO_VENDOR))
    throw new Error('no source points at the vendored crates');
  return stringify({ source: out });
}

export async function planCargo(rev: Revision, rustc: string, installedToolchains: string[]): Promise<DepsPlan | NoInstall | null> {
  const root = await rev.readText('Cargo.toml');
  if (root === null) return null;
  const paths = await rev.paths();
  const manifests = paths.filter((p) => /(^|\/)Cargo\.(toml|lock)$/.test(p) && !/(^|\/)(target|vendor|tests?\/fixtures?)\//.test(p));
  const config = (await rev.readText('.cargo/config.toml')) ?? (await rev.readText('.cargo/config'));
  if (config && /\bdirectory\s*=/.test(config) && paths.some((p) => p.startsWith('vendor/'))) {
    return { none: 'the project vendors its crates (.cargo/config with a directory source)', toolchain: { rustc } };
  }
  const texts = await rev.readTexts(manifests);
  const hasDeps = [...texts].some(
    ([p, t]) => p.endsWith('.lock') || /^\[(?:[\w.-]+\.)?(?:dev-|build-)?dependencies(?:\.[^\]]+)?\]/m.test(t),
  );
  const notes: string[] = [];
  const env: Record<string, string> = {
    CARGO_HOME: '$TMPDIR/cargo-home',
    CARGO_NET_OFFLINE: 'false',
    CARGO_NET_GIT_FETCH_WITH_CLI: 'false',
  };
  const runEnv: Record<string, string> = {};
  const toolchainFile = (await rev.readText('rust-toolchain.toml')) ?? (await rev.readText('rust-toolchain'));
  const pinned = pinnedRustToolchain(toolchainFile);
  if (pinned) {
    const match = matchToolchain(pinned, installedToolchains);
    if (!match) {
      const fallback = installedToolchains.find((t) => t.includes('(default)'))?.replace(/\s*\(.*\)$/, '') ?? 'stable';
      notes.push(`rust-toolchain asks for ${pinned}, which is not installed here; the tests ran with ${fallback} (rustc ${rustc})`);
      env.RUSTUP_TOOLCHAIN = fallback;
      runEnv.RUSTUP_TOOLCHAIN = fallback;
    }
  }
  if (!hasDeps) return { none: 'Cargo.toml declares no dependencies', notes, toolchain: { rustc }, runEnv };
  const h = hashTexts(config ? new Map([...texts, ['.cargo/config.toml', config]]) : texts);
  if (!paths.includes('Cargo.lock'))
    notes.push('no Cargo.lock: crates were resolved to the newest versions the manifests allow, as CI without a lockfile does');
  return {
    ecosystem: 'cargo',
    keyMaterial: `rustc=${rustc}\n${env.RUSTUP_TOOLCHAIN ?? ''}\n${h}`,
    inputs: [...texts.keys()].sort(),
    script: `cargo vendor --versioned-dirs ${CARGO_VENDOR} > ${DEPS_MOUNT}/cargo-config.toml`,
    ...(projectCodeOf(config, toolchainFile) ?? {}),
    env,
    notes,
    toolchain: { rustc },
    runEnv,
  };
}
