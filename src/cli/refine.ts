import { resolve } from 'node:path';
import { FileBaselineCache, fileBaselineCacheDir } from '../testgate/index.js';
import type { SlopgateConfig } from '../core/config-schema.js';
import { InputError } from '../core/errors.js';
import { git, gitMaybe } from '../core/git.js';
import { assertRepo, defaultBranch, resolveCommit } from '../core/patch-set.js';
import { runGate } from '../gate/run-gate.js';
import type { Report } from '../core/report.js';
import { GUARDS } from '../guards/index.js';
import type { JsonModel } from '../llm/port.js';
import { refine, type RefineResult } from '../refiner/refine.js';
import type { Recipe } from '../refiner/types.js';
import { stripControl } from '../report/format-helpers.js';
import { isBlocking } from '../routing/decide.js';
import { loadModel, loadRecipes } from './refine-deps.js';
import { progressLine, type ProgressStream } from './progress-line.js';
import { cliStoreOptions } from './store-options.js';
import { cliConfig } from './repo-config.js';

export type RefineFormat = 'text' | 'json';

export interface RefineArgs {
  repo: string;
  base?: string;
  head: string;
  apply: boolean;
  format: RefineFormat;
  config?: string;
  noTests?: boolean;
  db?: string;
}

/** What tests (and embedders) may inject instead of the environment's model and the recipe registry. */
export interface RefineDeps {
  /** null: no model even if the environment names one. */
  model?: JsonModel | null;
  recipes?: Recipe[];
}

/** Where `refine` draws the progress line of slow work (a terminal, and not with --format json; default: stderr). */
export interface RefineIo {
  stderr?: ProgressStream;
}

/** Exit codes of `slopgate refine`. */
export const REFINE_EXIT = {
  /** A patch was proposed (and, with --apply, committed), or nothing blocking was left to fix. */
  ok: 0,
  /** Blocking findings remain and no candidate passed the guards. */
  notFixed: 1,
  /** Usage, config or git errors; --apply on a dirty tree or when HEAD is not --head. */
  usage: 2,
} as const;

export function parseRefineFormat(value: string | undefined): RefineFormat {
  if (value === undefined || value === 'text' || value === 'json') return value ?? 'text';
  throw new InputError(`unknown format '${value}'`, 'use text or json');
}

/** --apply's preconditions, checked before any work: a clean tree, on a branch, at --head. */
async function checkApplicable(repoDir: string, head: string): Promise<string> {
  const branch = (await gitMaybe(repoDir, ['symbolic-ref', '--quiet', '--short', 'HEAD']))?.trim();
  if (!branch) throw new InputError('--apply needs a branch checked out (HEAD is detached)', 'git switch <branch> first');
  const dirty = (await git(repoDir, ['status', '--porcelain', '--untracked-files=no'])).trim();
  if (dirty) throw new InputError('--apply refuses a dirty work tree', 'commit or stash your changes first');
  const [headSha, wanted] = await Promise.all([resolveCommit(repoDir, 'HEAD'), resolveCommit(repoDir, head)]);
  if (headSha !== wanted) {
    const what = `--apply: HEAD (${headSha.slice(0, 7)}) is not --head ${head} (${wanted.slice(0, 7)})`;
    throw new InputError(what, `check out ${head} or pass --head HEAD`);
  }
  return branch;
}

/**
 * Commits the kept candidate's tree on the current branch with the user's identity, then moves the
 * branch and the work tree to it (`merge --ff-only`, which never overwrites local changes).
 */
async function applyPatch(repoDir: string, result: RefineResult, candidateSha: string): Promise<string> {
  const tree = (await git(repoDir, ['rev-parse', `${candidateSha}^{tree}`])).trim();
  const commit = (await git(repoDir, ['commit-tree', tree, '-p', result.headSha, '-F', '-'], result.commitMessage)).trim();
  await git(repoDir, ['merge', '--ff-only', '--quiet', commit]);
  return commit;
}

function blockingCount(report: Report, config: SlopgateConfig): number {
  return report.findings.filter((f) => isBlocking(f, config.strict)).length;
}

export function renderRefineText(result: RefineResult, applied: string | null): string {
  const out: string[] = [];
  const kept = result.candidateSha !== null;
  out.push(
    kept
      ? `slopgate refine: a patch fixes ${result.fixed.length} finding(s); blocking ${result.blockingBefore} → ${result.blockingAfter}`
      : `slopgate refine: no patch kept (${result.blockingBefore} blocking finding(s) remain)`,
  );
  const t = result.tokens;
  out.push(
    result.model
      ? `model: ${result.model} (${t.promptTokens} prompt + ${t.completionTokens} completion tokens, ${t.calls} call(s))`
      : 'model: none — recipes only (set SLOPGATE_LLM_BASE_URL and SLOPGATE_LLM_MODEL to let a model try)',
  );
  for (const n of result.notes) out.push(`note: ${n}`);
  for (const e of result.excluded) out.push(`excluded: ${e.path} — ${e.reason}`);
  for (const a of result.attempts) {
    out.push('', `attempt ${a.n}: ${a.source} → ${a.outcome.toUpperCase()}${a.paths.length ? ` (${a.paths.join(', ')})` : ''}`);
    if (a.reason) out.push(`  why: ${a.reason.split('\n')[0]}`);
    for (const v of a.verdicts) {
      const why = v.status !== 'pass' && v.message ? ` — ${v.message.split('\n')[0]!.slice(0, 160)}` : '';
      out.push(`  ${v.guard.padEnd(8)} ${v.status}${why}`);
    }
  }
  if (kept) {
    const title = applied ? `applied as ${applied.slice(0, 12)} on the current branch` : 'proposed patch (apply with --apply):';
    out.push('', title, '', result.diff.trimEnd());
  }
  return stripControl(out.join('\n')) + '\n';
}

/** Runs `slopgate refine`; returns the exit code. */
export async function runRefine(args: RefineArgs, write: (s: string) => void, deps: RefineDeps = {}, io: RefineIo = {}): Promise<number> {
  const repoDir = resolve(args.repo);
  await assertRepo(repoDir);
  if (args.apply) await checkApplicable(repoDir, args.head);
  const base = args.base ?? (await defaultBranch(repoDir));
  const { config, source: configSource } = await cliConfig(repoDir, base, args.config);
  const model = deps.model === null ? undefined : (deps.model ?? loadModel());
  const recipes = deps.recipes ?? loadRecipes();
  const store = args.db ? await (await import('../store/open-store.js')).openStore(cliStoreOptions(args.db)) : undefined;
  // The same repository identity as `slopgate check --db`, so G9 history and refine attempts meet.
  const repoName = repoDir;
  // As in `check`: what runs now (the gate, then each candidate) and, inside it, what the test gate does.
  const stderr = io.stderr ?? process.stderr;
  // Drawn on a terminal only (refine has no --quiet yet); `check` also tells a log.
  const progress = progressLine(stderr, args.format !== 'json' && stderr.isTTY === true);
  let stage = `gating ${base}..${args.head}`;
  const show = (text: string) => progress.update(`${stage}: ${text}`);
  const enter = (next: string) => {
    stage = next;
    progress.update(next);
  };
  try {
    const storeServices = store
      ? (await import('../store/services.js')).storeServices(store, { repo: repoName })
      : { baselineCache: new FileBaselineCache(fileBaselineCacheDir()) };
    const services = {
      ...storeServices,
      tests: { ...(args.noTests ? { enabled: false } : {}), progress: show },
      host: 'cli' as const,
    };
    show('running the guards');
    const report = await runGate({ repoDir, base, head: args.head, config, configSource, guards: GUARDS, services });
    enter('refining: trying the known fixes');
    const result = await refine({
      repoDir,
      base,
      head: args.head,
      report,
      config,
      guards: GUARDS,
      recipes,
      services,
      ...(model ? { model } : {}),
      ...(store ? { onAttempt: (a) => store.recordRefineAttempt({ repo: repoName, round: 1, headSha: report.head.sha }, a) } : {}),
      onProgress: (text) => enter(`refining: ${text}`),
    });
    progress.done();
    const applied = args.apply && result.candidateSha ? await applyPatch(repoDir, result, result.candidateSha) : null;
    if (args.format === 'json') write(JSON.stringify({ ...result, applied }, null, 2) + '\n');
    else write(renderRefineText(result, applied));
    if (result.candidateSha || blockingCount(report, config) === 0) return REFINE_EXIT.ok;
    return REFINE_EXIT.notFixed;
  } finally {
    progress.done();
    await store?.close();
  }
}
