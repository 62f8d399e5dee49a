import { bucketOf } from '../core/categories.js';
import { errorMessage } from '../core/errors.js';
import { resolveCommit } from '../core/patch-set.js';
import type { Report } from '../core/report.js';
import { plural } from '../report/format-helpers.js';
import { isBlocking } from '../routing/decide.js';
import { LlmError, type JsonModel, type TokenUsage } from '../llm/port.js';
import type { HistoryReader, RunIdentity } from '../core/ports.js';
import { addUsage, emptyUsage, type AttemptSink, type RefineAttempt, type RefineState as State } from './attempt.js';
import { evaluateCandidate, type Evaluation, type GateSetup } from './evaluate.js';
import { refinerReplySchema } from './patch-schema.js';
import { buildMessages, clip, MAX_FEEDBACK_CHARS } from './prompt.js';
import { applyRecipes } from './apply-recipes.js';
import { computeScope, outsidePrReason, prPaths } from './scope.js';
import { readRegularAt, unifiedDiff } from './scratch-tree.js';
import type { FileContent, Recipe } from './types.js';
import { looseKey, refinerFindings } from './verdict.js';

export interface RefineOptions extends GateSetup {
  /** The PR tip that was gated. */
  head: string;
  /** The gate run on base..head whose routed findings the refiner works on. */
  report: Report;
  recipes: readonly Recipe[];
  /** The model; without one only the recipes run. */
  model?: JsonModel;
  /** Model replies per round: the first plus retries with the guard's feedback (default: config `refiner.modelAttempts`). */
  modelAttempts?: number;
  /** Called once per attempt, as it ends (the store records them). */
  onAttempt?: AttemptSink;
  /** Told what slow work starts (a candidate gated, the model asked), for the CLI's progress line. */
  onProgress?: (text: string) => void;
}

export interface RefineResult {
  baseSha: string;
  headSha: string;
  /** The kept candidate commit (head plus every kept fix), or null when nothing was kept. */
  candidateSha: string | null;
  /** Full new contents of every changed path (relative to the head). */
  files: FileContent[];
  /** The proposed patch, head..candidate, as a unified diff ('' when nothing was kept). */
  diff: string;
  commitMessage: string;
  /** Findings (ids of the gated report) the kept patch fixes. */
  fixed: string[];
  attempts: RefineAttempt[];
  tokens: TokenUsage;
  /** Whether a model was configured; when not, only recipes ran. */
  model: string | null;
  /** Paths left out of the model's fence, with the reason. */
  excluded: { path: string; reason: string }[];
  /** Remarks for the reader (e.g. why the model was not asked). */
  notes: string[];
  /** The blocking count of the refiner's guards before and after the kept patch. */
  blockingBefore: number;
  blockingAfter: number;
}

/** The working state: a commit (head, then each kept candidate) and the findings the gate sees on it. */

function historyOf(opts: GateSetup): { history: HistoryReader; run: RunIdentity } | undefined {
  const history = opts.services?.history;
  const run = opts.services?.run;
  return history && run ? { history, run } : undefined;
}

/** Paths the failure history (G9's source, refine reverts included) says keep failing: the model skips them. */
async function pathsToAvoid(opts: GateSetup, paths: string[]): Promise<Map<string, string>> {
  const h = historyOf(opts);
  const out = new Map<string, string>();
  if (!h || paths.length === 0) return out;
  const { threshold, windowDays, includeOwnPr } = opts.config.history;
  // As in G9: this PR's own runs and reverts are not "history" unless `history.includeOwnPr` says so
  // (else the PR's own gate run plus one revert would skip the very retry the revert asks for).
  const exclude = !includeOwnPr && h.run.pr !== undefined ? { pr: h.run.pr } : {};
  const spots = await h.history.hotspots(h.run.repo, paths, windowDays, threshold, exclude).catch(() => []);
  for (const s of spots) {
    const why = `failed in ${s.runs} separate runs in the last ${windowDays} days (G9 history: ${s.guards.join(', ')})`;
    out.set(s.path, `${why}; left to a human`);
  }
  return out;
}

function feedbackOf(ev: Evaluation): string {
  const lines = [ev.reason ?? 'rejected'];
  for (const f of ev.added.slice(0, 5)) {
    if (!lines[0]!.includes(f.message)) lines.push(`- [${f.guard}] ${f.path ?? ''}${f.line ? `:${f.line}` : ''}: ${f.message}`);
  }
  return clip(lines.join('\n'), MAX_FEEDBACK_CHARS);
}

function accept(state: State, ev: Evaluation, files: readonly FileContent[], summary: string): void {
  state.sha = ev.candidateSha;
  for (const f of ev.fixed) state.fixedKeys.add(looseKey(f));
  state.findings = refinerFindings(ev.report.findings);
  for (const f of files) state.files.set(f.path, f.content);
  state.summaries.push(summary);
  state.blocking = ev.blockingAfter;
}

/**
 * One refine round: recipes first (each fix gated on its own, kept only when the gate strictly
 * improves), then, with a model, full-file patches of the flagged files (one retry with the failing
 * guard's message). Nothing here touches the user's checkout: candidates are commits made with
 * plumbing, and the result says what to apply.
 */
export async function refine(opts: RefineOptions): Promise<RefineResult> {
  const headSha = await resolveCommit(opts.repoDir, opts.head);
  const before = refinerFindings(opts.report.findings);
  const strict = opts.config.strict;
  const blockingBefore = before.filter((f) => isBlocking(f, strict)).length;
  const state: State = { sha: headSha, findings: before, files: new Map(), fixedKeys: new Set(), summaries: [], blocking: blockingBefore };
  const attempts: RefineAttempt[] = [];
  const tokens = emptyUsage();
  const notes: string[] = [];
  let excluded: { path: string; reason: string }[] = [];
  const record = async (a: Omit<RefineAttempt, 'n'>): Promise<void> => {
    const attempt = { n: attempts.length + 1, ...a };
    attempts.push(attempt);
    await opts.onAttempt?.(attempt);
  };

  // The last word on what a candidate may touch, whoever proposed it: only files the PR changed.
  const ours = prPaths(opts.report.files);
  const gated = (parent: string, files: readonly FileContent[], fence: readonly string[]): Promise<Evaluation> => {
    const stray = files.find((f) => outsidePrReason(f.path, ours));
    if (stray) return Promise.reject(new Error(`'${stray.path}' is ${outsidePrReason(stray.path, ours)}`));
    opts.onProgress?.(`gating candidate ${attempts.length + 1} (${files.map((f) => f.path).join(', ')})`);
    return evaluateCandidate(opts, parent, files, state.findings, fence);
  };

  if (!opts.config.refiner.recipes) notes.push('recipes are off (refiner.recipes: false)');
  else
    await applyRecipes({
      setup: opts,
      recipes: opts.recipes,
      state,
      changed: opts.report.files,
      evaluate: gated,
      accept: (ev, files, summary) => accept(state, ev, files, summary),
      record,
    });

  const refinable = () => state.findings.filter((f) => !f.dismissed && bucketOf(f.category) === 'refine');
  const attemptsAllowed = opts.modelAttempts ?? opts.config.refiner.modelAttempts;
  if (!opts.model) notes.push('no model configured (SLOPGATE_LLM_* unset): only the recipes ran');
  else if (attemptsAllowed < 1) notes.push('the model is not asked (refiner.modelAttempts: 0)');
  else if (refinable().length === 0) notes.push('nothing left for the model: no finding routed to refine remains');
  else {
    const modelName = opts.model.model;
    let feedback: string | undefined;
    for (let i = 0; i < attemptsAllowed; i++) {
      const targets = refinable();
      if (targets.length === 0) break;
      const candidates = new Set([...opts.report.files.map((f) => f.path), ...targets.flatMap((f) => (f.path ? [f.path] : []))]);
      const avoid = await pathsToAvoid(opts, [...candidates]);
      const read = (p: string) => readRegularAt(opts.repoDir, state.sha, p);
      const scope = await computeScope({ findings: targets, changed: opts.report.files, read, avoid });
      excluded = scope.excluded;
      if (scope.flagged.length === 0) {
        notes.push('the model was not asked: no flagged file can be patched (see excluded paths)');
        break;
      }
      const started = Date.now();
      const source = `model:${modelName}`;
      const spent = () => ({ prompt: usage.promptTokens, completion: usage.completionTokens });
      const ids = targets.map((f) => f.id);
      const diff = await unifiedDiff(opts.repoDir, opts.report.base.sha, state.sha, scope.flagged).catch(() => '');
      let files: FileContent[];
      let usage = emptyUsage();
      opts.onProgress?.(`asking ${modelName} for a patch of ${plural(scope.flagged.length, 'file')} (try ${i + 1} of ${attemptsAllowed})`);
      try {
        const res = await opts.model.completeJson({
          messages: buildMessages({ findings: targets, files: scope.contents, diff, ...(feedback ? { feedback } : {}) }),
          schema: refinerReplySchema(new Set(scope.flagged)),
          purpose: 'refine',
          temperature: 0,
        });
        usage = res.usage;
        addUsage(tokens, usage);
        files = res.value.files.filter((f) => scope.contents.get(f.path) !== f.content);
        if (files.length === 0) throw new LlmError('schema', 'the reply changes no file');
      } catch (err) {
        const refused = err instanceof LlmError && (err.kind === 'schema' || err.kind === 'invalid-json');
        const reason = `${refused ? 'reply refused' : 'model call failed'}: ${errorMessage(err)}`;
        const outcome = refused ? 'refused' : 'error';
        const ms = Date.now() - started;
        await record({ source, paths: scope.flagged, targets: ids, outcome, reason, verdicts: [], fixed: [], tokens: spent(), ms });
        if (!refused) break;
        feedback = clip(reason, MAX_FEEDBACK_CHARS);
        continue;
      }
      let ev: Evaluation;
      try {
        ev = await gated(state.sha, files, scope.flagged);
      } catch (err) {
        // The candidate could not even be built or gated (e.g. it overwrites a symlink): not kept, say why.
        const reason = `candidate not gated: ${errorMessage(err)}`;
        const paths = files.map((f) => f.path);
        const ms = Date.now() - started;
        await record({ source, paths, targets: ids, outcome: 'error', reason, verdicts: [], fixed: [], tokens: spent(), ms });
        feedback = clip(reason, MAX_FEEDBACK_CHARS);
        continue;
      }
      const paths = files.map((f) => f.path);
      const base = { source, paths, targets: ids, verdicts: ev.verdicts, tokens: spent(), candidateSha: ev.candidateSha };
      if (ev.improved) {
        accept(state, ev, files, `model ${modelName}: fixed ${ev.fixed.length} finding(s)`);
        await record({ ...base, outcome: 'kept', fixed: ev.fixed.map((f) => f.id), ms: Date.now() - started });
        break;
      }
      await record({ ...base, outcome: 'reverted', reason: ev.reason ?? 'rejected', fixed: [], ms: Date.now() - started });
      feedback = feedbackOf(ev);
    }
  }

  const kept = state.sha !== headSha;
  const fixed = opts.report.findings.filter((f) => state.fixedKeys.has(looseKey(f))).map((f) => f.id);
  const files = [...state.files].sort(([a], [b]) => a.localeCompare(b)).map(([path, content]) => ({ path, content }));
  return {
    baseSha: opts.report.base.sha,
    headSha,
    candidateSha: kept ? state.sha : null,
    files,
    diff: kept ? await unifiedDiff(opts.repoDir, headSha, state.sha) : '',
    commitMessage: commitMessage(state.summaries, fixed),
    fixed,
    attempts,
    tokens,
    model: opts.model?.model ?? null,
    excluded,
    notes,
    blockingBefore,
    blockingAfter: state.blocking,
  };
}

function commitMessage(summaries: string[], fixed: string[]): string {
  if (summaries.length === 0) return '';
  const head = `slopgate refine: fix ${fixed.length} finding${fixed.length === 1 ? '' : 's'}`;
  return `${head}\n\n${summaries.map((s) => `- ${s}`).join('\n')}\n\nFindings: ${fixed.join(', ')}\n`;
}
