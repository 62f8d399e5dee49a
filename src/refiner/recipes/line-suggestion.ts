import { lineSuggestion, type LineSuggestion } from '../../core/line-suggestion.js';
import type { RecipeContext, RecipeFix } from '../types.js';

export { applySuggestion, lineSuggestion, type LineSuggestion } from '../../core/line-suggestion.js';

/**
 * The suggestion for a fix of `path`, when the content it was computed on is still the PR head's
 * (a suggestion's lines are head lines).
 */
export async function suggestionFor(ctx: RecipeContext, path: string, before: string, after: string): Promise<LineSuggestion | undefined> {
  if (ctx.readHead) {
    const head = await ctx.readHead(path);
    if (head !== before) return undefined;
  }
  return lineSuggestion(path, before, after) ?? undefined;
}

/** The fix object with its suggestion when there is one (exactOptionalPropertyTypes-friendly). */
export async function fixOf(
  ctx: RecipeContext,
  fix: Omit<RecipeFix, 'suggestion' | 'files'> & { path: string; before: string; after: string },
): Promise<RecipeFix> {
  const { path, before, after, ...rest } = fix;
  const suggestion = await suggestionFor(ctx, path, before, after);
  return { ...rest, files: [{ path, content: after }], ...(suggestion ? { suggestion } : {}) };
}
