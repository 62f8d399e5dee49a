import { CONFIG_PATHS, ConfigError, parseConfigText } from '../config/load.js';
import { defaultConfig, type SlopgateConfig } from '../core/config-schema.js';
import type { ReviewHost } from './review-host.js';

export interface RepoConfig {
  config: SlopgateConfig;
  /** The file it came from, or null when the repo has none (defaults apply). */
  file: string | null;
}

const MAX_CONFIG_BYTES = 256 * 1024;

/**
 * Reads the repository's slopgate config from the DEFAULT branch — never from the PR head, so a
 * pull request cannot switch its own gate off. One listing of `.github/` and at most one file read.
 * A broken file throws {@link ConfigError} (file, line, what was expected); there is no silent
 * fallback to defaults. Several config files at once is also an error: which one wins would be a guess.
 */
export async function loadRepoConfig(host: ReviewHost, defaultBranch: string): Promise<RepoConfig> {
  const listing = await host.listDirectory('.github', defaultBranch);
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
  const text = await host.readFile(file, defaultBranch);
  if (text === null) throw new ConfigError(file, undefined, undefined, 'expected a regular file');
  return { config: parseConfigText(text, file), file };
}
