import { parse as parseToml } from 'smol-toml';
import { isRecord } from '../../core/is-record.js';
import type { Revision } from '../../core/revision.js';

/**
 * What `cargo fmt` would pass rustfmt for one file: the edition of the crate that holds it (the
 * nearest Cargo.toml with a `[package]`, following `edition.workspace = true` to the workspace root)
 * and the nearest `rustfmt.toml`/`.rustfmt.toml`. Both are read from the base tree: the settings the
 * project had before the pull request, the same for both sides.
 */
export interface RustSettings {
  /** Null when no Cargo.toml holds the file (rustfmt's config, or its default, decides). */
  edition: string | null;
  /** Path of the rustfmt config used, or null. */
  configPath: string | null;
  config: string | null;
}

function parents(path: string): string[] {
  const parts = path.split('/').slice(0, -1);
  const out: string[] = [];
  for (let i = parts.length; i >= 0; i--) out.push(parts.slice(0, i).join('/'));
  return out;
}

const join = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);

function tomlOf(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    return parseToml(text);
  } catch {
    return null;
  }
}

/** The package's edition, `workspace` for `edition.workspace = true`, or undefined. */
function editionOf(pkg: unknown): string | undefined {
  if (!isRecord(pkg)) return undefined;
  const e = pkg.edition;
  if (typeof e === 'string') return e;
  if (isRecord(e) && e.workspace === true) return 'workspace';
  return undefined;
}

export async function rustSettings(base: Revision, path: string): Promise<RustSettings> {
  let config: { path: string; text: string } | null = null;
  let edition: string | undefined;
  let wantWorkspace = false;
  for (const dir of parents(path)) {
    if (!config) {
      for (const name of ['rustfmt.toml', '.rustfmt.toml']) {
        const text = await base.readText(join(dir, name));
        if (text !== null) {
          config = { path: join(dir, name), text };
          break;
        }
      }
    }
    if (edition !== undefined && !wantWorkspace) continue;
    const manifest = tomlOf(await base.readText(join(dir, 'Cargo.toml')));
    if (!manifest) continue;
    if (wantWorkspace) {
      const ws = isRecord(manifest.workspace) && isRecord(manifest.workspace.package) ? manifest.workspace.package.edition : undefined;
      if (typeof ws === 'string') {
        edition = ws;
        wantWorkspace = false;
      }
    } else if (edition === undefined && isRecord(manifest.package)) {
      const e = editionOf(manifest.package);
      if (e === 'workspace') wantWorkspace = true;
      else edition = e ?? '2015'; // Cargo's default when a package names none
    }
  }
  const resolved = wantWorkspace ? '2015' : (edition ?? null);
  return { edition: resolved, configPath: config?.path ?? null, config: config?.text ?? null };
}
