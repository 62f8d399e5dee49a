import { readCommittedConfig } from './committed-config.js';
import type { SlopgateConfig } from '../core/config-schema.js';
import { git, gitMaybe } from '../core/git.js';

const KIND: Record<string, string> = { blob: 'file', tree: 'dir', commit: 'submodule' };

/**
 * The committed `.github/slopgate.yml` (or `.yaml`, `.toml`) of a local repository at commit `sha`, read
 * as the App reads it through the API (the same listing and size rules); `file` is null when there is
 * none and the embedded defaults apply.
 */
export function committedConfigAt(repoDir: string, sha: string): Promise<{ config: SlopgateConfig; file: string | null }> {
  return readCommittedConfig({
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
}
