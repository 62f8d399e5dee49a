import { expect } from 'vitest';
import type { SlopgateConfigInput } from '../../../src/core/config-schema.js';
import type { Finding } from '../../../src/core/finding.js';
import type { Guard } from '../../../src/core/guard.js';
import { applySuggestion } from '../../../src/refiner/recipes/line-suggestion.js';
import type { Recipe, RecipeContext, RecipeFix } from '../../../src/refiner/types.js';
import { findingsOf, gate } from '../../helpers/gate.js';
import { prRepo, type FileContent, type TestRepo } from '../../helpers/git-repo.js';

/** The text of `path` at `ref`, or null when the path is not there. */
function show(repo: TestRepo, ref: string, path: string): string | null {
  try {
    return repo.git('show', `${ref}:${path}`);
  } catch {
    return null;
  }
}

/**
 * A recipe context over a test repo: base = `main`, head = `pr`, current = head with `current`
 * overriding paths (the state after earlier fixes).
 */
export function contextOf(repo: TestRepo, current: Record<string, string> = {}): RecipeContext {
  return {
    readBase: async (path) => show(repo, 'main', path),
    readHead: async (path) => show(repo, 'pr', path),
    readCurrent: async (path) => (path in current ? current[path]! : show(repo, 'pr', path)),
    exists: async (path) => path in current || show(repo, 'pr', path) !== null,
  };
}

export interface Case {
  repo: TestRepo;
  findings: Finding[];
}

/** Base on main, the PR's files on `pr`, and the real guard's findings through the real pipeline. */
export async function reproduce(
  guard: Guard,
  base: Record<string, FileContent>,
  pr: Record<string, FileContent>,
  config?: SlopgateConfigInput,
): Promise<Case> {
  const repo = prRepo(base, pr);
  const report = await gate(repo, [guard], config ? { config } : {});
  return { repo, findings: findingsOf(report, guard.id) };
}

/** Commits the fix on `pr` and runs the guard again; returns its findings on the fixed tree. */
export async function applyAndRerun(c: Case, guard: Guard, fix: RecipeFix, config?: SlopgateConfigInput): Promise<Finding[]> {
  const files: Record<string, string> = {};
  for (const f of fix.files) files[f.path] = f.content;
  c.repo.write(files).commit('refine');
  return findingsOf(await gate(c.repo, [guard], config ? { config } : {}), guard.id);
}

/** The one finding the recipe handles, its fix (asserted non-null) and, when given, the suggestion checked exact. */
export async function fixOne(
  c: Case,
  recipe: Recipe,
  pick: (f: Finding) => boolean = () => true,
): Promise<{ finding: Finding; fix: RecipeFix }> {
  const mine = c.findings.filter((f) => pick(f) && recipe.handles(f));
  expect(mine.length).toBeGreaterThan(0);
  const finding = mine[0]!;
  const fix = await recipe.fix(finding, contextOf(c.repo));
  expect(fix).not.toBeNull();
  expect(fix!.recipe).toBe(recipe.id);
  expect(fix!.findingIds).toEqual([finding.id]);
  if (fix!.suggestion) {
    const s = fix!.suggestion;
    const head = show(c.repo, 'pr', s.path)!;
    // a suggestion is exact: applied to the head lines it gives the fixed file
    expect(applySuggestion(head, s)).toBe(fix!.files.find((f) => f.path === s.path)!.content);
  }
  return { finding, fix: fix! };
}
