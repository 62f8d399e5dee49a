import { evidenceAs } from '../../core/evidence.js';
import type { Finding } from '../../core/finding.js';
import { g1ManifestEvidence } from '../../guards/g1-manifest-safety/evidence.js';
import type { Recipe, RecipeContext, RecipeFix } from '../types.js';
import { fixOf } from './line-suggestion.js';

/**
 * G1: a build manifest the PR edited without a sanction and without needing it (G1's evidence says
 * `collateral`: an existing manifest, no dependency added) goes back to its base content. A new
 * manifest is never "reverted" (that would delete it), nor is an edit that adds a dependency.
 */
async function revert(finding: Finding, ctx: RecipeContext): Promise<RecipeFix | null> {
  const path = finding.path;
  if (!path) return null; // every finding this recipe handles names its file
  const [base, current] = await Promise.all([ctx.readBase(path), ctx.readCurrent(path)]);
  if (base === null || current === null || base === current) return null;
  const fix = await fixOf(ctx, {
    recipe: 'g1-revert-manifest',
    findingIds: [finding.id],
    path,
    before: current,
    after: base,
    summary: `reverted the collateral edit of the build manifest ${path}`,
  });
  return { ...fix, restoresBase: true };
}

export const g1RevertManifest: Recipe = {
  id: 'g1-revert-manifest',
  handles(f) {
    const e = evidenceAs(g1ManifestEvidence, f);
    return f.guard === 'G1' && f.category === 'manifest-edit' && !!f.path && e?.collateral === true && e.status === 'modified';
  },
  fix: revert,
};
