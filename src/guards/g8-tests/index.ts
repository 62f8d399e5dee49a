import { GuardSkip, type Guard, type GuardContext, type GuardFinding } from '../../core/guard.js';
import { git } from '../../core/git.js';
import type { BaselineCache, TestRunOptions } from '../../core/ports.js';
import {
  sharedMemoryBaselineCache,
  runTestGate,
  type TestGateResult,
  type WorkspaceRun,
  fileCoverage,
  missingSystemPackages,
} from '../../testgate/index.js';
import { refusalLines, usedLines } from '../../sandbox/index.js';
import type { TestSideSummary, TestsSection } from '../../core/report-sections.js';
import { testGateFindings } from './findings.js';
import { testsAt, testsOnSomewhere } from '../../core/path-overrides.js';
import { patchWeakenings, weakeningCovers } from '../shared/test-weakening.js';
import type { SuiteResult, TestOutcome } from '../../core/suite-result.js';
import { G8_EVIDENCE } from './evidence.js';
import { heldFindings, holdKnownFlaky, withHeld } from './flaky-memory.js';

function services(ctx: GuardContext): { tests: TestRunOptions; cache: BaselineCache } {
  const { run, tests, baselineCache } = ctx.services;
  return {
    tests: { ...(run ? { repo: run.repo } : {}), ...tests },
    cache: baselineCache ?? sharedMemoryBaselineCache(),
  };
}

function side(r: SuiteResult): TestSideSummary {
  return {
    sha: r.sha,
    status: r.status,
    failing: r.tests.filter((t) => t.status === 'failed').length,
    broken: r.units.filter((u) => u.status === 'broken').length,
    total: r.tests.length,
    durationMs: r.durationMs,
    ...(r.skippedReason ? { skipped: r.skippedReason } : {}),
    ...(r.status === 'no-results' && r.failure ? { failure: r.failure } : {}),
  };
}

/** The `tests` report section; `changed` (the change's paths) gives the per-file coverage. */
export function testsSection(res: TestGateResult, changed: readonly string[] = []): TestsSection {
  const c = res.comparison;
  const files = fileCoverage(changed, res.baseline, res.candidate);
  return {
    ...(res.runner ? { runner: res.runner, command: res.command, internalCommand: res.internalCommand } : {}),
    ...(res.baseline ? { baseline: { ...side(res.baseline), cached: Boolean(res.baselineCached) } } : {}),
    ...(res.candidate ? { candidate: side(res.candidate) } : {}),
    regressions: res.regressions.map((r) => r.test.id),
    brokenUnits: c ? c.brokenUnits.map((u) => u.id) : [],
    suiteBroken: res.suiteBroken,
    fixed: c?.fixed ?? [],
    removed: c ? c.removed.map((t) => t.id) : [],
    flaky: res.flaky.map((r) => r.test.id),
    ...(res.skipped ? { skipped: res.skipped } : {}),
    ...(res.noSetup ? { noSetup: true } : {}),
    ...(res.notRun ? { notRun: res.notRun } : {}),
    ...(files.length ? { files } : {}),
    ...(res.configChanges?.length ? { configChanges: res.configChanges.map((ch) => `${ch.path}: ${ch.what}`) } : {}),
    ...(res.notes?.length ? { notes: res.notes } : {}),
    ...(res.isolation ? { sandbox: res.isolation } : {}),
    ...(res.egress?.refused.length ? { egressRefused: refusalLines(res.egress.refused) } : {}),
    ...(res.egress?.used.length ? { egressUsed: usedLines(res.egress.used) } : {}),
    ...(res.dependencies
      ? { dependencies: { base: res.dependencies.base, head: res.dependencies.head }, toolchain: res.dependencies.toolchain }
      : {}),
    ...(res.installFailed ? { notRun: `the dependencies of this change do not install: ${res.installFailed.message}` } : {}),
    ...(res.workspace ? { workspace: workspaceSection(res.workspace) } : {}),
  };
}

/** The per-package part of the tests section of a monorepo run. */
function workspaceSection(run: WorkspaceRun<TestGateResult>): NonNullable<TestsSection['workspace']> {
  return {
    kind: run.kind,
    source: run.source,
    total: run.total,
    ...(run.shared.length ? { shared: run.shared } : {}),
    ...(run.rootRan ? { rootRan: true } : {}),
    packages: run.packages.map((p) => {
      const r = p.result;
      const skipped = p.skipped ?? r?.skipped;
      return {
        name: p.name,
        dir: p.dir,
        reason: p.reason,
        ...(p.via ? { via: p.via } : {}),
        ...(r?.runner ? { runner: r.runner, command: r.command } : {}),
        ...(r?.baseline ? { baseline: { ...side(r.baseline), cached: Boolean(r.baselineCached) } } : {}),
        ...(r?.candidate ? { candidate: side(r.candidate) } : {}),
        regressions: r?.regressions.map((v) => v.test.id) ?? [],
        brokenUnits: r?.comparison?.brokenUnits.map((u) => u.id) ?? [],
        suiteBroken: r?.suiteBroken ?? false,
        flaky: r?.flaky.map((v) => v.test.id) ?? [],
        ...(skipped ? { skipped } : {}),
        ...(p.noSetup ? { noSetup: true } : {}),
        ...(r?.notRun ? { notRun: r.notRun } : {}),
      };
    }),
  };
}

export const g8: Guard = {
  id: 'G8',
  name: 'test regressions',
  evidence: G8_EVIDENCE,
  needs: {
    mainProcess: 'it drives the sandboxed suites (their own hard limits and budget) and says when they start',
    services: ['run', 'tests', 'baselineCache', 'flaky'],
    config: ['tests'],
  },

  runsWithoutFiles: true,
  alongside: true,
  startsSuites: true,
  appliesTo: () => true,
  skipReason(ctx) {
    // tests.enabled: false at the top level, unless an override turns some package's tests on.
    if (!testsOnSomewhere(ctx.config)) return 'disabled in config (tests.enabled: false)';
    if (services(ctx).tests.enabled === false) return 'disabled for this run (--no-tests)';
    return null;
  },
  budgetMs(ctx) {
    const t = ctx.config.tests;
    const perRun = t.timeoutSec * 1000 * (t.setup ? 2 : 1);
    // Installs (base and head, one retry) have their own budget of at least 15 minutes each; the suite
    // runs at base and head in parallel, then the re-runs and one run of the base version of hidden tests.
    const installs = t.install === 'off' ? 0 : 3 * Math.max(t.timeoutSec, 900) * 1000;
    return perRun * (2 + t.reruns) + installs + 60_000;
  },
  async checkAll(_files, ctx): Promise<GuardFinding[]> {
    const { tests, cache } = services(ctx);
    const candidateSha = tests.mergeRef
      ? (await git(ctx.base.repoDir, ['rev-parse', '--verify', `${tests.mergeRef}^{commit}`])).trim()
      : ctx.head.sha;
    const t = ctx.config.tests;
    // Existing tests this change weakens (G15 reports them statically): those that lost assertions are
    // re-run in their base version against the head; newly skipped ones already are (hidden tests).
    // Their files are parsed once the suites run (the answer is needed only after them): parsing them
    // before would take the main thread from the work that starts the suites.
    let weakening: ReturnType<typeof patchWeakenings> | undefined;
    const parseWeakenings = () => {
      weakening ??= patchWeakenings(ctx.patch.files);
      weakening.catch(() => undefined);
      return weakening;
    };
    const weakenedTests = async () => {
      const lostAsserts = (await parseWeakenings()).filter((w) => w.how === 'assertions');
      return lostAsserts.length ? (o: TestOutcome) => lostAsserts.some((w) => weakeningCovers(w, o)) : null;
    };
    const gated = await runTestGate({
      repoDir: ctx.base.repoDir,
      repo: tests.repo ?? ctx.patch.repoDir,
      base: ctx.base,
      candidateSha,
      config: {
        reruns: t.reruns,
        network: t.network,
        timeoutSec: t.timeoutSec,
        memoryMb: t.memoryMb,
        maxProcesses: t.maxProcesses,
        isolation: t.isolation,
        diskMb: t.diskMb,
        installDiskMb: t.installDiskMb,
        install: t.install,
        workspaces: t.workspaces,
        forPackage: (manifest) => testsAt(ctx.config, manifest),
        ...(t.command ? { command: t.command } : {}),
        ...(t.runner ? { runner: t.runner } : {}),
        ...(t.setup ? { setup: t.setup } : {}),
      },
      cache,
      ...(tests.cacheDir ? { cacheDir: tests.cacheDir } : {}),
      deps: { ...(tests.prepared ? { prepared: tests.prepared } : {}), ...(tests.installEgress ? { egress: tests.installEgress } : {}) },
      signal: ctx.signal,
      log: ctx.log,
      weakenedTests,
      suitesStarted: () => {
        // Started here, awaited (with its rejection) when the findings are made.
        void parseWeakenings();
        ctx.suites?.started();
      },
      ...(tests.progress ? { progress: tests.progress } : {}),
      ...(tests.stage ? { stage: tests.stage } : {}),
    });
    // Known-flaky and quarantined tests come out of the regressions (flaky-memory.ts).
    const { res, held } = await holdKnownFlaky(gated, ctx);
    const section = withHeld(
      testsSection(
        res,
        ctx.patch.files.filter((f) => f.status !== 'deleted').map((f) => f.path),
      ),
      held,
    );
    // What the project's CI installs from apt and this machine lacks: often why a unit does not build here.
    if (!res.noSetup) {
      const missing = await missingSystemPackages(ctx.base).catch((): string[] => []);
      if (missing.length) section.systemPackagesMissing = missing;
    }
    ctx.section('tests', section);
    if (res.skipped) throw new GuardSkip(res.skipped);
    return [...(await testGateFindings(res, ctx, await parseWeakenings())), ...(await heldFindings(held, ctx))];
  },
};
