import { resolve } from 'node:path';
import { loadConfigFile } from '../config/load.js';
import { readCommittedConfig } from '../config/committed-config.js';
import type { SlopgateConfig } from '../core/config-schema.js';
import { git, gitMaybe } from '../core/git.js';
import { assertRepo, resolveCommit } from '../core/patch-set.js';

export interface CliConfig {
  config: SlopgateConfig;
  /** What the report says about where the config came from. */
  source: string;
  /** The committed file that was read, or null (a `--config` file or the embedded defaults). */
  committed: string | null;
}

const KIND: Record<string, string> = { blob: 'file', tree: 'dir', commit: 'submodule' };

/**
 * The config `slopgate check` and `refine` use: `--config FILE` when given, else the repository's
 * committed `.github/slopgate.yml` (or `.yaml`, `.toml`) at the base of the change — as the App reads
 * it from the default branch, never from the change itself.
 */
export async function cliConfig(repoDir: string, baseRef: string, override: string | undefined): Promise<CliConfig> {
  if (override) return { config: await loadConfigFile(resolve(override)), source: `${override} (--config)`, committed: null };
  await assertRepo(repoDir);
  const sha = await resolveCommit(repoDir, baseRef);
  const { config, file } = await readCommittedConfig({
    async listGithubFolder() {
      const out = await gitMaybe(repoDir, ['ls-tree', '-l', '-z', sha, '--', '.github/']);
      if (!out) return null;
      return out
        .split('\0')
        .filter(Boolean)
        .map((line) => {
          const [meta = '', path = ''] = line.split('\t');
          const [mode, type = '', , size] = meta.split(/\s+/);
          return {
            path,
            type: mode === '120000' ? 'symlink' : (KIND[type] ?? type),
            ...(size && size !== '-' ? { size: Number(size) } : {}),
          };
        });
    },
    readFile: (path) => git(repoDir, ['cat-file', 'blob', `${sha}:${path}`]),
  });
  const at = `${baseRef} (${sha.slice(0, 7)})`;
  return {
    config,
    source: file ? `${file} at ${at}` : `the embedded defaults (no .github/slopgate.yml at ${at})`,
    committed: file,
  };
}
