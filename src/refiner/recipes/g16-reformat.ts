import { evidenceAs } from '../../core/evidence.js';
import type { Finding } from '../../core/finding.js';
import { g16FormatEvidence } from '../../guards/g16-project-checks/evidence.js';
import { formatText, type FormatterSpec } from '../../guards/g16-project-checks/formatters.js';
import type { Recipe, RecipeContext, RecipeFix } from '../types.js';
import { fixOf } from './line-suggestion.js';

/**
 * G16: a file the pull request left unformatted is run through the same formatter (gofmt, or rustfmt
 * with the crate's edition and the project's rustfmt.toml from the base), exactly as the author's
 * `gofmt -w` would. The file was formatter-clean at the base, so the rewrite only touches what the
 * pull request wrote (and any alignment it disturbed). Nothing when the current content no longer
 * parses or the formatter is missing.
 */
async function reformat(finding: Finding, ctx: RecipeContext): Promise<RecipeFix | null> {
  const path = finding.path;
  const e = evidenceAs(g16FormatEvidence, finding);
  if (!path || !e) return null;
  const tool = e.tool;
  const current = await ctx.readCurrent(path);
  if (current === null) return null;
  let spec: FormatterSpec = { id: 'gofmt' };
  if (tool === 'rustfmt') {
    const configPath = e.config;
    const config = configPath === undefined ? null : await ctx.readBase(configPath);
    if (configPath !== undefined && config === null) return null; // the settings it was judged by are gone
    spec = { id: 'rustfmt', edition: e.edition ?? null, config };
  }
  const out = await formatText(spec, current);
  if (out.kind !== 'formatted' || out.text === current) return null;
  return fixOf(ctx, {
    recipe: 'g16-reformat',
    findingIds: [finding.id],
    path,
    before: current,
    after: out.text,
    summary: `formatted ${path} with ${tool}`,
  });
}

export const g16Reformat: Recipe = {
  id: 'g16-reformat',
  handles: (f) => f.guard === 'G16' && f.category === 'lint-violation' && !!f.path && evidenceAs(g16FormatEvidence, f) !== undefined,
  fix: reformat,
};
