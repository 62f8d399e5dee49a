import type { Decision } from '../core/decision.js';
import type { Finding } from '../core/finding.js';
import type { Guard, GuardFinding } from '../core/guard.js';
import type { ChangedFile } from '../core/patch-set.js';
import { REPORT_VERSION, type ChangedFileSummary, type GuardStatus, type Report } from '../core/report.js';
import { NO_TEXT_REASON_LABEL } from '../core/text-content.js';
import { traceGuardFail } from '../core/trace.js';
import { VERSION } from '../core/version.js';
import { applyDismissals } from '../core/apply-dismissals.js';
import { configuredSeverities } from './configured-severity.js';
import { runQaStage } from '../qa/stage.js';
import { mergeFindings } from '../routing/merge.js';
import { foldFindings } from '../routing/fold.js';
import { runNavigatorStage } from '../navigator/navigator.js';
import { attributeCommits } from './blame.js';
import { decideRun } from './decide-run.js';
import { buildCoverage, type CoverageEntry } from '../core/coverage.js';
import { markNotVerified } from '../routing/decide.js';
import { settleGuardStatuses } from './guard-status.js';
import type { GateOptions } from './gate-options.js';
import type { ThreadTestOptions } from './guard-messages.js';
import type { TestRunOptions } from '../core/ports.js';
import { GuardWorkerSession, prewarmGuardThread } from './guard-pool.js';
import { runGuardStep, type GuardStep } from './guard-step.js';
import { setUpRun, type GateRun } from './run-setup.js';
import { threadedGuards, threadsWanted } from './thread-placement.js';

export type { GateOptions } from './gate-options.js';

/**
 * Runs the whole static gate on base → head and returns the report: read the patch set, run each guard
 * (skips, files in scope, budget), merge the findings, blame them on commits, trace them, decide.
 */
export async function runGate(opts: GateOptions): Promise<Report> {
  const started = Date.now();
  // The guard thread loads its modules while the patch set is read.
  if (threadsWanted(opts)) prewarmGuardThread();
  const run = await setUpRun(opts);
  const { statuses, raw: found } = await runGuards(run, opts);
  const { patch, sections, config, log } = run;
  const raw = configuredSeverities(config, found);
  if (opts.sanctionNotes?.length)
    sections.sanctions = { guard: 'G1', allowed: sections.sanctions?.allowed ?? [], notes: [...opts.sanctionNotes] };
  const qa = await runQaStage(opts.qa, { patch, findings: raw, sections, config, round: opts.round ?? 1, log });
  if (qa.section) sections.qa = qa.section;
  raw.push(...qa.findings);
  const findings = await dismiss(run, opts, foldFindings(mergeFindings(groupBySource(raw))));
  await attributeCommits(patch, findings);
  traceFindings(run, findings);
  const coverage = buildCoverage(statuses, sections);
  const tabled = decideRun({ findings, statuses, sections, config, round: opts.round, decide: opts.decide, coverage });
  const navigated = await runNavigatorStage(opts.navigator, {
    decision: tabled,
    findings,
    patch,
    sections,
    config,
    log,
    decide: opts.decide,
  });
  // Whatever the navigator chose, a run with gaps in its coverage is not a plain pass.
  const decision = navigated.notVerified || !tabled.notVerified ? navigated : markNotVerified(navigated, tabled.notVerified);
  return assembleReport(opts, run, { statuses, findings, decision, coverage, started });
}

/** The plain-data part of the run's test options, for a guard thread. */
function threadTestOptions(t: TestRunOptions): ThreadTestOptions {
  const { enabled, mergeRef, repo, cacheDir, prepared } = t;
  return {
    ...(enabled !== undefined ? { enabled } : {}),
    ...(mergeRef !== undefined ? { mergeRef } : {}),
    ...(repo !== undefined ? { repo } : {}),
    ...(cacheDir !== undefined ? { cacheDir } : {}),
    ...(prepared ? { prepared: { workspace: prepared.workspace } } : {}),
  };
}

/**
 * Runs the guards: those `alongside` (G8; G17 on Python) start first and run while the others go one
 * after another (static ones in a guard thread the run keeps while it lasts, G17 in it beside them).
 * Statuses and findings keep the order of `opts.guards`, whatever finished first.
 */
async function runGuards(run: GateRun, opts: GateOptions): Promise<{ statuses: GuardStatus[]; raw: GuardFinding[] }> {
  const threaded = await threadedGuards(opts);
  const { patch, config, phase, sanctionGlobs } = run;
  const { run: identity, repoName, host, tests } = run.services;
  const session = new GuardWorkerSession({
    patch,
    config,
    phase,
    sanctions: sanctionGlobs,
    maxBytes: config.limits.maxFileBytes,
    ...(identity ? { run: identity } : {}),
    ...(repoName ? { repoName } : {}),
    ...(host ? { host } : {}),
    ...(tests ? { tests: threadTestOptions(tests) } : {}),
  });
  const placement = { threaded, session };
  const steps: Promise<GuardStep>[] = [];
  try {
    const alongside = (g: Guard) => (typeof g.alongside === 'function' ? g.alongside(patch) : g.alongside === true);
    // Guards that wait for the suites must not wait for a G8 that is not there or has ended.
    if (!opts.guards.some((g) => g.startsSuites)) run.suites.started();
    opts.guards.forEach((guard, i) => {
      if (!alongside(guard)) return;
      steps[i] = runGuardStep(guard, run, opts, placement);
      if (guard.startsSuites) void steps[i].finally(() => run.suites.started()).catch(() => undefined);
      // Awaited below; until then a rejection must not count as unhandled.
      steps[i].catch(() => undefined);
    });
    for (const [i, guard] of opts.guards.entries()) {
      if (!alongside(guard)) steps[i] = Promise.resolve(await runGuardStep(guard, run, opts, placement));
    }
    const done = await Promise.all(steps);
    return { statuses: done.map((s) => s.status), raw: done.flatMap((s) => s.findings) };
  } finally {
    // The thread is handed back only once no guard can still be using it.
    await Promise.allSettled(steps);
    session.close();
  }
}

/** Marks findings dismissed by an earlier `/slopgate dismiss`, the config's `ignore.findings` or an inline comment. */
function dismiss(run: GateRun, opts: GateOptions, findings: Finding[]): Promise<Finding[]> {
  const byPath = new Map(run.patch.files.map((f) => [f.path, f]));
  return applyDismissals(findings, {
    config: run.config,
    ...(opts.dismissals?.prior ? { prior: opts.dismissals.prior } : {}),
    ...(opts.dismissals?.author ? { author: opts.dismissals.author } : {}),
    readHead: async (path) => byPath.get(path)?.head.text ?? run.head.readText(path),
  });
}

function traceFindings(run: GateRun, findings: Finding[]): void {
  for (const f of findings) {
    traceGuardFail(run.log, {
      guard: f.guard,
      phase: run.phase,
      ...(f.path ? { path: f.path } : {}),
      ...(f.line ? { line: f.line } : {}),
      category: f.category,
      severity: f.severity,
      findingId: f.id,
      message: f.message,
    });
  }
}

interface RunResult {
  statuses: GuardStatus[];
  findings: Finding[];
  decision: Decision;
  coverage: CoverageEntry[];
  started: number;
}

function assembleReport(opts: GateOptions, run: GateRun, result: RunResult): Report {
  const { patch } = run;
  return {
    version: REPORT_VERSION,
    tool: { name: 'slopgate', version: VERSION },
    repo: opts.repoName ?? opts.repoDir,
    base: { ref: opts.base, sha: patch.baseSha },
    head: { ref: opts.head, sha: patch.headSha },
    ...(opts.configSource ? { configSource: opts.configSource } : {}),
    commits: patch.commits,
    files: patch.files.map(summarise),
    guards: settleGuardStatuses(result.statuses, result.findings),
    findings: result.findings,
    sections: run.sections,
    decision: result.decision,
    coverage: result.coverage,
    createdAt: new Date(result.started).toISOString(),
    durationMs: Date.now() - result.started,
  };
}

function summarise(file: ChangedFile): ChangedFileSummary {
  const count = (ranges: { start: number; end: number }[]) => ranges.reduce((n, r) => n + r.end - r.start + 1, 0);
  const s: ChangedFileSummary = { path: file.path, status: file.status, additions: count(file.added), deletions: count(file.removed) };
  if (file.oldPath) s.oldPath = file.oldPath;
  if (file.head.text === null && file.head.reason && file.head.reason !== 'absent') s.unreadable = NO_TEXT_REASON_LABEL[file.head.reason];
  return s;
}

function groupBySource(raw: GuardFinding[]) {
  const bySource = new Map<string, GuardFinding[]>();
  for (const f of raw) {
    const key = f.guard ?? 'unknown';
    const list = bySource.get(key) ?? [];
    list.push(f);
    bySource.set(key, list);
  }
  return [...bySource].map(([source, list]) => ({ source, findings: list }));
}
