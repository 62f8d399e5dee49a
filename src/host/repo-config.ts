import { readCommittedConfig, type CommittedConfig } from '../config/committed-config.js';
import type { ReviewHost } from './review-host.js';

export type RepoConfig = CommittedConfig;

/**
 * Reads the repository's slopgate config from the DEFAULT branch — never from the PR head, so a
 * pull request cannot switch its own gate off. One listing of `.github/` and at most one file read.
 */
export function loadRepoConfig(host: ReviewHost, defaultBranch: string): Promise<RepoConfig> {
  return readCommittedConfig({
    listGithubFolder: () => host.listDirectory('.github', defaultBranch),
    readFile: (path) => host.readFile(path, defaultBranch),
  });
}
