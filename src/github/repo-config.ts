import { CONFIG_PATHS, ConfigError, parseConfigText } from '../config/load.js';
import { defaultConfig, type SlopgateConfig } from '../core/config-schema.js';
import type { GitHubClient, RepoTarget } from './check-run.js';

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
export async function loadRepoConfig(gh: GitHubClient, target: RepoTarget, defaultBranch: string): Promise<RepoConfig> {
  let listing: { name: string; path: string; type: string; size?: number }[];
  try {
    const res = await gh.rest.repos.getContent({ ...target, path: '.github', ref: defaultBranch });
    listing = Array.isArray(res.data) ? res.data : [];
  } catch (err) {
    if ((err as { status?: number }).status === 404) return { config: defaultConfig(), file: null };
    throw err;
  }
  const present = CONFIG_PATHS.filter((p) => listing.some((e) => e.path === p && e.type === 'file'));
  if (present.length === 0) return { config: defaultConfig(), file: null };
  if (present.length > 1) {
    throw new ConfigError(present[0]!, undefined, undefined, `found ${present.join(' and ')}; keep exactly one slopgate config file`);
  }
  const file = present[0]!;
  const size = listing.find((e) => e.path === file)?.size ?? 0;
  if (size > MAX_CONFIG_BYTES) throw new ConfigError(file, undefined, undefined, `the file is ${size} bytes; a slopgate config may be at most ${MAX_CONFIG_BYTES} bytes`);
  const res = await gh.rest.repos.getContent({ ...target, path: file, ref: defaultBranch });
  const data = res.data as { type?: string; content?: string; encoding?: string };
  if (data.type !== 'file' || typeof data.content !== 'string') throw new ConfigError(file, undefined, undefined, 'expected a regular file');
  const text = data.encoding === 'base64' ? Buffer.from(data.content, 'base64').toString('utf8') : data.content;
  return { config: parseConfigText(text, file), file };
}
