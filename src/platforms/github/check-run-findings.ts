import { isCategory } from '../../core/categories.js';
import { CHECK_NAME, type RepoTarget } from '../../host/check-outcome.js';
import type { DismissableFinding } from '../../host/dismiss-finding.js';
import type { GitHubClient } from './check-run.js';
import { findingBlockInText } from './explain-finding.js';

/**
 * The id and category of finding `id` as the latest `slopgate` check run on `headSha` shows it (its
 * heading reads `### <icon> <severity> · <category> · <place>`); empty when no run shows it. Used by
 * `/slopgate dismiss` when the store holds no run of the head.
 */
export async function checkRunFindings(gh: GitHubClient, target: RepoTarget, headSha: string, id: string): Promise<DismissableFinding[]> {
  const runs = await gh.rest.checks.listForRef({ ...target, ref: headSha, check_name: CHECK_NAME, filter: 'latest', per_page: 10 });
  for (const run of runs.data.check_runs) {
    const block = findingBlockInText(run.output.text ?? '', id);
    const heading = block?.split('\n', 1)[0] ?? '';
    if (!heading.startsWith('### ')) continue;
    const category = heading.split(' · ')[1]?.replace(/\\/g, '').trim();
    // A heading we cannot read names no known category: the id is treated as not found.
    if (isCategory(category)) return [{ id, category }];
  }
  return [];
}
