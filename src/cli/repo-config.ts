import { resolve } from 'node:path';
import { loadConfigFile } from '../config/load.js';
import { committedConfigAt } from '../config/committed-config-at.js';
import type { SlopgateConfig } from '../core/config-schema.js';
import { resolveCommit } from '../core/patch-set.js';

export interface CliConfig {
  config: SlopgateConfig;
  /** What the report says about where the config came from. */
  source: string;
  /** The committed file that was read, or null (a `--config` file or the embedded defaults). */
  committed: string | null;
}

/**
 * The config `slopgate check` and `refine` use: `--config FILE` when given, else the repository's
 * committed `.github/slopgate.yml` (or `.yaml`, `.toml`) at the base of the change — as the App reads
 * it from the default branch, never from the change itself. The caller has checked that `repoDir` is a
 * repository (assertRepo).
 */
export async function cliConfig(repoDir: string, baseRef: string, override: string | undefined): Promise<CliConfig> {
  if (override) return { config: await loadConfigFile(resolve(override)), source: `${override} (--config)`, committed: null };
  const sha = await resolveCommit(repoDir, baseRef);
  const { config, file } = await committedConfigAt(repoDir, sha);
  const at = `${baseRef} (${sha.slice(0, 7)})`;
  return {
    config,
    source: file ? `${file} at ${at}` : `the embedded defaults (no .github/slopgate.yml at ${at})`,
    committed: file,
  };
}
