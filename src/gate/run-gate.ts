import picomatch from 'picomatch';
import { defaultConfig, type SlopgateConfig } from '../config/schema.js';
import { decide } from '../routing/decide.js';
import { mergeFindings } from '../routing/merge.js';
import type { DecideOptions } from '../routing/types.js';
import { errorMessage } from '../core/errors.js';
import { guardErrorFinding, runGuardInThread, runOneGuard } from './guard-runner.js';
import { GuardWorkerSession, prewarmGuardThread } from './guard-pool.js';
import type { Finding } from '../core/finding.js';
import type { Guard, GuardContext, GuardFinding, GuardServices } from '../core/guard.js';
import { attributeLines, isAddedLine, loadPatchSet, type ChangedFile, type PatchSet } from '../core/patch-set.js';
import { REPORT_VERSION, type ChangedFileSummary, type GuardStatus, type Report } from '../core/report.js';
import { Revision } from '../core/revision.js';
import { NO_TEXT_REASON_LABEL } from '../core/text-content.js';
import { silentLogger, traceGuardFail, type Logger, type TracePhase } from '../core/trace.js';
import { VERSION } from '../core/version.js';

export interface GateOptions {
  repoDir: string;
  base: string;
  head: string;
  /** Display name of the repository in reports (defaults to the directory). */
  repoName?: string;
  config?: SlopgateConfig;
  guards: Guard[];
  /** Run only these guard ids. */
  only?: string[];
  /** Guard ids to skip (besides config `guards.disable`), with the reason shown in the report. */
  skip?: Record<string, string>;
  phase?: TracePhase;
  /** Extra G1 sanctions: globs allowed by a label or a `/slopgate allow` command. */
  sanctions?: string[];
  log?: Logger;
  services?: GuardServices;
  round?: number;
  decide?: Omit<DecideOptions, 'strict' | 'round' | 'maxRounds'>;
  /**
   * Run static guards in guard threads, where their budget can stop synchronous code (default: on,
   * unless SLOPGATE_GUARD_THREADS=0). G8 (its own sandbox and budget) and G9 (the store) always run
   * in this thread, as does any guard outside the registry without a `workerModule`.
   */
  guardThreads?: boolean;
}

/** Guards that need this process: G8 drives the sandbox (which has its own hard limits), G9 reads the store. */
const IN_PROCESS = new Set(['G8', 'G9']);

function threadsWanted(opts: GateOptions): boolean {
  return opts.guardThreads ?? process.env.SLOPGATE_GUARD_THREADS !== '0';
}

async function threadedGuards(opts: GateOptions): Promise<(g: Guard) => boolean> {
  if (!threadsWanted(opts)) return () => false;
  const { GUARDS } = await import('../guards/index.js');
  const registry = new Set<Guard>(GUARDS);
  const services = opts.services ?? {};
  return (g) => {
    if (g.workerModule) return true;
    if (!registry.has(g) || IN_PROCESS.has(g.id)) return false;
    // An injected link checker (tests, the App's shared cache) lives in this process.
    return !(g.id === 'G14' && services.linkChecker !== undefined);
  };
}

const NO_FILES_IN_SCOPE = 'no changed files in scope';

function summarise(file: ChangedFile): ChangedFileSummary {
  const count = (ranges: { start: number; end: number }[]) => ranges.reduce((n, r) => n + r.end - r.start + 1, 0);
  const s: ChangedFileSummary = { path: file.path, status: file.status, additions: count(file.added), deletions: count(file.removed) };
  if (file.oldPath) s.oldPath = file.oldPath;
  if (file.head.text === null && file.head.reason && file.head.reason !== 'absent') s.unreadable = NO_TEXT_REASON_LABEL[file.head.reason];
  return s;
}

/** Attributes findings on added lines to the PR commit that last touched the line. */
async function attributeCommits(patch: PatchSet, findings: Finding[]): Promise<void> {
  const byPath = new Map<string, Finding[]>();
  const files = new Map(patch.files.map((f) => [f.path, f]));
  for (const f of findings) {
    if (!f.path || !f.line || f.commit) continue;
    const file = files.get(f.path);
    if (!file || !isAddedLine(file, f.line)) continue;
    if (patch.commits.length === 1) {
      f.commit = patch.commits[0];
      continue;
    }
    const list = byPath.get(f.path) ?? [];
    list.push(f);
    byPath.set(f.path, list);
  }
  const entries = [...byPath].slice(0, 200);
  await Promise.all(
    entries.map(async ([path, list]) => {
      const commits = await attributeLines(patch, path, list.map((f) => f.line!));
      for (const f of list) {
        const c = commits.get(f.line!);
        if (c) f.commit = c;
      }
    }),
  );
}

/** Runs the whole static gate on base → head and returns the report. */
export async function runGate(opts: GateOptions): Promise<Report> {
  const started = Date.now();
  const config = opts.config ?? defaultConfig();
  const log = opts.log ?? silentLogger;
  const phase = opts.phase ?? 'pr';
  // The guard thread loads its modules while the patch set is read.
  if (threadsWanted(opts)) prewarmGuardThread();
  const patch = await loadPatchSet(opts.repoDir, opts.base, opts.head, { maxTextBytes: config.limits.maxFileBytes });
  const base = new Revision(opts.repoDir, patch.baseSha, config.limits.maxFileBytes);
  const head = new Revision(opts.repoDir, patch.headSha, config.limits.maxFileBytes);
  const ignored = config.ignore.paths.length ? picomatch(config.ignore.paths, { dot: true }) : () => false;
  const files = patch.files.filter((f) => !ignored(f.path));
  const sanctionGlobs = [...config.manifests.allow, ...(opts.sanctions ?? [])];
  const sanctioned = sanctionGlobs.length ? picomatch(sanctionGlobs, { dot: true }) : () => false;
  const memo = new Map<string, Promise<unknown>>();
  const sections: Record<string, unknown> = {};
  const disabled = new Set(config.guards.disable.map((g) => g.toUpperCase()));
  const only = opts.only?.map((g) => g.toUpperCase());

  const statuses: GuardStatus[] = [];
  const raw: GuardFinding[] = [];
  const threaded = await threadedGuards(opts);
  const session = new GuardWorkerSession({ patch, config, phase, sanctions: sanctionGlobs, maxBytes: config.limits.maxFileBytes });
  try {
    for (const guard of opts.guards) {
      const t0 = Date.now();
      const status: GuardStatus = { id: guard.id, name: guard.name, status: 'pass', files: 0, findings: 0, ms: 0 };
      statuses.push(status);
      const id = guard.id.toUpperCase();
      const controller = new AbortController();
      const ctx: GuardContext = {
        patch,
        config,
        base,
        head,
        phase,
        log,
        signal: controller.signal,
        sanctioned: (p) => sanctioned(p),
        memo: <T>(key: string, compute: () => Promise<T>) => {
          let v = memo.get(key);
          if (!v) {
            v = compute();
            memo.set(key, v);
          }
          return v as Promise<T>;
        },
        section: (name, value) => {
          sections[name] = value;
        },
        services: opts.services ?? {},
      };
      let skip: string | null = null;
      if (only && !only.includes(id)) skip = 'not selected (--only)';
      else if (disabled.has(id)) skip = 'disabled in config (guards.disable)';
      else if (opts.skip?.[guard.id]) skip = opts.skip[guard.id]!;
      else {
        try {
          skip = (await guard.skipReason?.(ctx)) ?? null;
        } catch (err) {
          skip = null;
          raw.push(guardErrorFinding(guard, err));
          status.status = 'error';
          status.reason = errorMessage(err);
          continue;
        }
      }
      if (skip) {
        status.status = 'skipped';
        status.reason = skip;
        continue;
      }
      const mine = files.filter((f) => {
        try {
          return guard.appliesTo(f, ctx);
        } catch {
          return false;
        }
      });
      status.files = mine.length;
      if (mine.length === 0 && !guard.runsWithoutFiles) {
        status.status = 'skipped';
        status.reason = NO_FILES_IN_SCOPE;
        status.ms = Date.now() - t0;
        continue;
      }
      const budget = guard.budgetMs?.(ctx) ?? config.guards.timeoutMs;
      const { findings, errors, skipped } = threaded(guard) ? await runGuardInThread(guard, mine, session, budget, ctx.section) : await runOneGuard(guard, mine, ctx, budget, controller);
      for (const f of findings) f.guard ??= guard.id;
      raw.push(...findings);
      status.findings = findings.length;
      status.ms = Date.now() - t0;
      if (skipped !== undefined && findings.length === 0) {
        status.status = 'skipped';
        status.reason = skipped;
      } else if (errors > 0) {
        status.status = 'error';
        status.reason = findings.find((f) => f.category === 'guard-error')?.message;
      } else if (findings.length > 0) status.status = 'fail';
    }
  } finally {
    session.close();
  }

  const findings = mergeFindings(groupBySource(raw));
  await attributeCommits(patch, findings);
  for (const f of findings) {
    traceGuardFail(log, {
      guard: f.guard,
      phase,
      ...(f.path ? { path: f.path } : {}),
      ...(f.line ? { line: f.line } : {}),
      category: f.category,
      severity: f.severity,
      findingId: f.id,
      message: f.message,
    });
  }
  // Evidence = guards that were asked to look (a guard with no file in scope did look).
  const evidence = statuses.filter((g) => g.status !== 'skipped' || g.reason === NO_FILES_IN_SCOPE).length;
  const testsNotRun = testsNotRunReason(statuses, sections);
  const decision = decide(findings, {
    ...opts.decide,
    ...(testsNotRun ? { testsNotRun } : {}),
    evidence,
    strict: config.strict,
    round: opts.round ?? 1,
    maxRounds: config.maxRounds,
  });
  return {
    version: REPORT_VERSION,
    tool: { name: 'slopgate', version: VERSION },
    repo: opts.repoName ?? opts.repoDir,
    base: { ref: opts.base, sha: patch.baseSha },
    head: { ref: opts.head, sha: patch.headSha },
    commits: patch.commits,
    files: patch.files.map(summarise),
    guards: statuses,
    findings,
    sections,
    decision,
    createdAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
  };
}

/** Why the test gate (G8) did not run the tests, when it was part of this run and did not. */
function testsNotRunReason(statuses: GuardStatus[], sections: Record<string, unknown>): string | undefined {
  const tests = sections.tests as { notRun?: unknown; skipped?: unknown } | undefined;
  if (typeof tests?.notRun === 'string') return tests.notRun;
  const g8 = statuses.find((s) => s.id === 'G8');
  if (!g8) return undefined;
  if (g8.status === 'skipped') return g8.reason ?? 'the test gate was skipped';
  if (g8.status === 'error') return 'the test gate crashed or ran out of time';
  return undefined;
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

