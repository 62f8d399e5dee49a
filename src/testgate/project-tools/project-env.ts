import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GuardContext } from '../../core/guard.js';
import type { RunnerId } from '../../core/suite-result.js';
import { NEEDS_INSTALL_ON, NEEDS_TESTS_ON } from '../../core/phases-not-run.js';
import { planSides } from '../deps/prepare-sides.js';
import type { RunDeps } from '../deps/deps-plan.js';
import { SuiteWorkspace } from '../run-suite.js';
import { type SuiteLimits, sandboxRefusal } from '../../sandbox/index.js';

/**
 * The environment G16 and G17 run the project's own tools in: the sandbox of the test gate, with the
 * dependencies G8's dependency stage installs. The plan is G8's own (the same planner, the same
 * cache key), so the shared dependency cache holds one entry that both use: whichever runs first
 * installs it, the other finds it (or waits for the install in progress). Nothing is installed twice.
 */

export type ToolEcosystem = 'python' | 'node' | 'go' | 'cargo';

/** The runner whose dependency plan G8 uses for this ecosystem: the same planner gives the same cache entry. */
const PLAN_OF: Record<ToolEcosystem, RunnerId> = { python: 'pytest', node: 'npm-test', go: 'go', cargo: 'cargo' };

export type ProjectEnv = { ok: true; base: RunDeps; head: RunDeps; limits: SuiteLimits } | { ok: false; reason: string };

function limitsOf(ctx: GuardContext): SuiteLimits {
  const t = ctx.config.tests;
  // The tools run without network (linting and formatting need none), and behind the test suite for CPU.
  return {
    network: false,
    background: true,
    timeoutSec: t.timeoutSec,
    memoryMb: t.memoryMb,
    maxProcesses: t.maxProcesses,
    isolation: t.isolation,
    diskMb: t.diskMb,
    installDiskMb: t.installDiskMb,
  };
}

/** Why the project's tools cannot get their environment in this run, before anything is installed; null when they can. */
export function envUnavailable(ctx: GuardContext): string | null {
  const t = ctx.config.tests;
  if (!t.enabled) return `${NEEDS_TESTS_ON} (tests.enabled: false)`;
  if (ctx.services.tests?.enabled === false) return `${NEEDS_TESTS_ON} (--no-tests)`;
  if (t.install === 'off') return NEEDS_INSTALL_ON;
  const refusal = sandboxRefusal(t.isolation);
  return refusal ? `it runs project code, which needs the sandbox: ${refusal.replace(/^tests not run: /, '')}` : null;
}

async function prepare(ctx: GuardContext, eco: ToolEcosystem): Promise<ProjectEnv> {
  const unavailable = envUnavailable(ctx);
  if (unavailable) return { ok: false, reason: unavailable };
  const tests = ctx.services.tests ?? {};
  const limits = limitsOf(ctx);
  const plan = await planSides(
    {
      repoDir: ctx.base.repoDir,
      base: ctx.base,
      candidateSha: ctx.head.sha,
      config: { ...limits, install: ctx.config.tests.install },
      deps: { ...(tests.prepared ? { prepared: tests.prepared } : {}), ...(tests.installEgress ? { egress: tests.installEgress } : {}) },
      signal: ctx.signal,
    },
    PLAN_OF[eco],
  );
  const sides = await plan.prepare(true);
  const outage = sides.baseOutage ?? sides.headOutage;
  if (outage) return { ok: false, reason: outage };
  if (sides.baseFailure) return { ok: false, reason: sides.baseFailure };
  if (sides.headFailure)
    return { ok: false, reason: `the dependencies of this change do not install (G8 reports it): ${sides.headFailure.message}` };
  return { ok: true, base: sides.base, head: sides.head, limits };
}

/** The environment of one ecosystem, prepared once per run. */
export function projectEnv(ctx: GuardContext, eco: ToolEcosystem): Promise<ProjectEnv> {
  return ctx.memo(`g16:env:${eco}`, () => prepare(ctx, eco));
}

export interface ToolRunResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** The run did not finish: the time or process limit, or the guard's budget. */
  killed?: string;
  /** Files the command wrote to `$SLOPGATE_OUT`, by name (regular files only). */
  out: Map<string, string>;
}

/** Largest output file read back from `$SLOPGATE_OUT`. */
const MAX_OUT_BYTES = 4 * 1024 * 1024;

async function readOut(dir: string, names: string[], scrub: (t: string) => string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of names) {
    const p = join(dir, name);
    // The sandbox is gone and the sweep removed links and special files; a file the run wrote is data, never followed.
    const st = await lstat(p).catch(() => null);
    if (!st?.isFile() || st.size > MAX_OUT_BYTES) continue;
    out.set(name, scrub(await readFile(p, 'utf8')));
  }
  return out;
}

/**
 * Runs shell commands of the project's tools on one side's tree, in the sandbox with that side's
 * dependencies mounted read-only, one fresh tree per side. `outNames` are the files each command
 * writes into `$SLOPGATE_OUT` that are read back; with `scrubOut` (a report, not file contents) the
 * tree's path in the sandbox is removed from them, as from stdout and stderr. `gitRepo: false` for tools
 * that read files and their configuration and never git (Python's and JavaScript's linters, formatters
 * and type checkers): their tree is not made a git repository. Cargo's build scripts may read git.
 */
export async function runOnSide(
  ctx: GuardContext,
  sha: string,
  deps: RunDeps,
  limits: SuiteLimits,
  commands: { command: string; outNames: string[]; scrubOut?: boolean }[],
  gitRepo = true,
): Promise<ToolRunResult[]> {
  const ws = await SuiteWorkspace.create(ctx.base.repoDir, sha, '', limits, ctx.signal, deps, gitRepo);
  try {
    const results: ToolRunResult[] = [];
    for (const c of commands) {
      const r = await ws.exec(c.command, limits.timeoutSec * 1000);
      const scrub = (s: string) => s.split(`${ws.workdir}/`).join('').split(ws.root).join('<sandbox>');
      const killed =
        r.refused ??
        (r.killedBy === 'timeout'
          ? `it did not finish within tests.timeoutSec (${limits.timeoutSec} s)`
          : r.killedBy === 'process-limit'
            ? 'it was stopped at the process limit'
            : r.killedBy
              ? 'it was cancelled'
              : undefined);
      results.push({
        exitCode: r.exitCode,
        stdout: scrub(r.stdout),
        stderr: scrub(r.stderr),
        ...(killed ? { killed } : {}),
        out: await readOut(join(ws.root, 'out'), c.outNames, c.scrubOut ? scrub : (t) => t),
      });
      if (killed) break;
    }
    return results;
  } finally {
    await ws.dispose();
  }
}
