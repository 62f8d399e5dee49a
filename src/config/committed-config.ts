import { defaultConfig, type SlopgateConfig } from '../core/config-schema.js';
import { CONFIG_PATHS, ConfigError, parseConfigText } from './load.js';

/** How the committed config is read: a listing of `.github/` and one file, both at one revision. */
export interface ConfigSource {
  /** The entries of `.github/` (path from the repository root, type, size in bytes), or null when there is no such folder. */
  listGithubFolder(): Promise<{ path: string; type: string; size?: number }[] | null>;
  /** A file's text, or null when it is not a regular file. */
  readFile(path: string): Promise<string | null>;
}

export interface CommittedConfig {
  config: SlopgateConfig;
  /** The file it came from, or null when there is none (the embedded defaults apply). */
  file: string | null;
}

export const MAX_CONFIG_BYTES = 256 * 1024;

/**
 * Reads a repository's slopgate config at one revision — the App reads the default branch, `slopgate
 * check` the base of the change, never the change itself, so a change cannot switch its own gate off.
 * A broken file throws {@link ConfigError} (file, line, what was expected); there is no silent fallback
 * to defaults. Several config files at once is also an error: which one wins would be a guess.
 */
export async function readCommittedConfig(source: ConfigSource): Promise<CommittedConfig> {
  const listing = await source.listGithubFolder();
  if (!listing) return { config: defaultConfig(), file: null };
  const present = CONFIG_PATHS.filter((p) => listing.some((e) => e.path === p && e.type === 'file'));
  if (present.length === 0) return { config: defaultConfig(), file: null };
  if (present.length > 1) {
    throw new ConfigError(present[0]!, undefined, undefined, `found ${present.join(' and ')}; keep exactly one slopgate config file`);
  }
  const file = present[0]!;
  const size = listing.find((e) => e.path === file)?.size ?? 0;
  if (size > MAX_CONFIG_BYTES)
    throw new ConfigError(
      file,
      undefined,
      undefined,
      `the file is ${size} bytes; a slopgate config may be at most ${MAX_CONFIG_BYTES} bytes`,
    );
  const text = await source.readFile(file);
  if (text === null) throw new ConfigError(file, undefined, undefined, 'expected a regular file');
  return { config: parseConfigText(text, file), file };
}
