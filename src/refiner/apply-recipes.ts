import { bucketOf } from '../core/categories.js';
import { errorMessage } from '../core/errors.js';
import { git } from '../core/git.js';
import type { Finding } from '../core/finding.js';
import type { ChangedFileSummary } from '../core/report.js';
import type { RefineAttempt, RefineState } from './attempt.js';
import type { Evaluation, GateSetup } from './evaluate.js';
import { unsafePathReason } from './patch-schema.js';
import { outsidePrReason, prPaths } from './scope.js';
import { existsAt, readAt } from './scratch-tree.js';
import type { FileContent, Recipe, RecipeContext } from './types.js';
import { looseKey } from './verdict.js';

export interface RecipeRun {
  setup: GateSetup;
  recipes: readonly Recipe[];
  state: RefineState;
  changed: readonly ChangedFileSummary[];
  evaluate(parent: string, files: readonly FileContent[], fence: readonly string[]): Promise<Evaluation>;
  accept(ev: Evaluation, files: readonly FileContent[], summary: string): void;
  record(a: Omit<RefineAttempt, 'n'>): Promise<void>;
}

/** Blocking first, then by guard and path, so the most important finding gets the first recipe. */
function order(findings: readonly Finding[]): Finding[] {
  const rank = (f: Finding) => (f.severity === 'fail' ? 0 : f.severity === 'risk' ? 1 : 2);
  return [...findings].sort((a, b) => rank(a) - rank(b) || a.guard.localeCompare(b.guard) || (a.path ?? '').localeCompare(b.path ?? ''));
}

/**
 * Why a recipe's file may not be written, or null. A recipe writes only files the PR changed, and of
 * those only the paths of the findings it fixes; an unsafe path (a manifest, say) is accepted only as an exact revert to the base content,
 * which is what the G1 recipe does.
 */
async function recipeFileProblem(run: RecipeRun, file: FileContent, targets: readonly Finding[], baseSha: string): Promise<string | null> {
  const outside = outsidePrReason(file.path, prPaths(run.changed));
  if (outside) return `'${file.path}' is ${outside}`;
  const fence = new Set(targets.flatMap((f) => (f.path ? [f.path] : [])));
  if (targets.some((f) => f.category === 'test-regression' || f.category === 'build-broken')) {
    for (const c of run.changed) fence.add(c.path);
  }
  if (!fence.has(file.path)) return `'${file.path}' is not a path of the findings it fixes`;
  const unsafe = unsafePathReason(file.path);
  if (unsafe && (await readAt(run.setup.repoDir, baseSha, file.path)) !== file.content) {
    return `'${file.path}': ${unsafe}, and the fix is not a revert to the base`;
  }
  return null;
}

/** Runs every recipe that handles a still-open finding; each fix is gated on its own and kept only on strict improvement. */
export async function applyRecipes(run: RecipeRun): Promise<void> {
  const { state } = run;
  const baseSha = await baseOf(run);
  const ctx: RecipeContext = {
    readBase: (p) => readAt(run.setup.repoDir, baseSha, p),
    readCurrent: (p) => readAt(run.setup.repoDir, state.sha, p),
    exists: (p) => existsAt(run.setup.repoDir, state.sha, p),
  };
  const tried = new Set<string>();
  for (const first of order(state.findings.filter((f) => !f.dismissed && bucketOf(f.category) !== 'stuck'))) {
    for (const recipe of run.recipes) {
      // After a kept fix the state holds the findings of the gate run on it: the same finding, possibly on
      // another line and with another id. The recipe works on that version, so its next candidate is built
      // on the last kept state and its fence is the paths of the findings still open.
      const finding = state.findings.find((f) => looseKey(f) === looseKey(first));
      if (!finding) break; // fixed by an earlier recipe
      let handles = false;
      try {
        handles = recipe.handles(finding);
      } catch {
        handles = false;
      }
      const key = `${recipe.id}|${looseKey(first)}`;
      if (!handles || tried.has(key)) continue;
      tried.add(key);
      const started = Date.now();
      const attempt = { source: recipe.id, targets: [finding.id], verdicts: [], fixed: [], tokens: { prompt: 0, completion: 0 } };
      let fix;
      try {
        fix = await recipe.fix(finding, ctx);
      } catch (err) {
        const reason = `recipe failed: ${errorMessage(err)}`;
        await run.record({ ...attempt, paths: finding.path ? [finding.path] : [], outcome: 'error', reason, ms: Date.now() - started });
        continue;
      }
      if (!fix) continue;
      const targets = state.findings.filter((f) => fix.findingIds.includes(f.id) || f.id === finding.id);
      const paths = fix.files.map((f) => f.path);
      const checked = await Promise.all(fix.files.map((f) => recipeFileProblem(run, f, targets, baseSha)));
      const problems = checked.filter((p): p is string => p !== null);
      const changedFiles: FileContent[] = [];
      for (const f of fix.files) if ((await ctx.readCurrent(f.path)) !== f.content) changedFiles.push(f);
      if (problems.length || changedFiles.length === 0) {
        const reason = problems.length ? `fix refused: ${problems.join('; ')}` : 'fix refused: it changes nothing';
        await run.record({ ...attempt, targets: fix.findingIds, paths, outcome: 'refused', reason, ms: Date.now() - started });
        continue;
      }
      let ev: Evaluation;
      try {
        ev = await run.evaluate(
          state.sha,
          changedFiles,
          changedFiles.map((f) => f.path),
        );
      } catch (err) {
        const reason = `candidate not gated: ${errorMessage(err)}`;
        await run.record({ ...attempt, targets: fix.findingIds, paths, outcome: 'error', reason, ms: Date.now() - started });
        continue;
      }
      const done = { ...attempt, targets: fix.findingIds, paths, verdicts: ev.verdicts, candidateSha: ev.candidateSha };
      if (ev.improved) {
        run.accept(ev, changedFiles, `${recipe.id}: ${fix.summary}`);
        await run.record({ ...done, outcome: 'kept', fixed: ev.fixed.map((f) => f.id), ms: Date.now() - started });
        break;
      }
      await run.record({ ...done, outcome: 'reverted', reason: ev.reason ?? 'rejected', ms: Date.now() - started });
    }
  }
}

async function baseOf(run: RecipeRun): Promise<string> {
  return (await git(run.setup.repoDir, ['merge-base', run.setup.base, run.state.sha])).trim();
}
