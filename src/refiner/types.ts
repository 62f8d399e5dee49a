import type { Finding } from '../core/finding.js';

/**
 * Contracts of the refiner. Recipes (deterministic known fixes, `recipes/`) and the LLM step both
 * produce full-file contents for a small set of paths; the refiner loop applies them on a scratch tree
 * and keeps them only when the same guards that gate a PR say the tree strictly improved.
 */

/**
 * The new full content of one repo-relative path (never outside the repository; never a manifest,
 * except the base content itself in a fix marked `restoresBase`).
 */
export interface FileContent {
  path: string;
  content: string;
}

/** What a recipe may read: the merge-base and the current working state (head plus earlier fixes). */
export interface RecipeContext {
  /** Content of `path` in the merge-base tree, or null when it does not exist there (or is not text). */
  readBase(path: string): Promise<string | null>;
  /** Content of `path` as the refiner currently has it: the PR head with the fixes applied so far. */
  readCurrent(path: string): Promise<string | null>;
  /** True when `path` exists in the current working state (any file type). */
  exists(path: string): Promise<boolean>;
  /**
   * Content of `path` at the PR head, before any fix. Optional: when given and the current content
   * differs from it, recipes leave out `suggestion` (its lines would not be head lines).
   */
  readHead?(path: string): Promise<string | null>;
}

/** A known fix for one finding. */
export interface RecipeFix {
  /** The recipe's id, e.g. `g7-restore-definitions`. */
  recipe: string;
  /** The findings this fix addresses (usually one). */
  findingIds: string[];
  /** Full new contents of the files it changes. */
  files: FileContent[];
  /**
   * The same fix as a review suggestion on head lines, when it can be expressed as one contiguous
   * replacement (for forks and `refiner.push: false`).
   */
  suggestion?: { path: string; startLine: number; endLine: number; replacement: string };
  /** One line for the commit message and the report, e.g. "restored `parse_header` from the base". */
  summary: string;
  /**
   * Every file of the fix is byte for byte its merge-base content (a revert). The only way a recipe
   * writes a build manifest: the G1 recipe undoes a collateral manifest edit this way.
   */
  restoresBase?: boolean;
}

export interface Recipe {
  id: string;
  /** Cheap test on the finding's guard, category and evidence. */
  handles(finding: Finding): boolean;
  /** The fix, or null when this instance cannot be fixed safely (the LLM step may still try). */
  fix(finding: Finding, ctx: RecipeContext): Promise<RecipeFix | null>;
}
