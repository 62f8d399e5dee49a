import type { Revision } from '../../core/revision.js';
import { isTable, readToml } from '../../repo/manifests/toml-read.js';
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
  const pinned = pinnedRustToolchain((await rev.readText('rust-toolchain.toml')) ?? (await rev.readText('rust-toolchain')));
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
    env,
    notes,
    toolchain: { rustc },
    runEnv,
  };
}
