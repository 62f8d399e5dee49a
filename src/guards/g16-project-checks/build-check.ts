import type { GuardContext, GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import { COVERED_BY_TESTS, NO_FILES_IN_SCOPE } from '../../core/phases-not-run.js';
import type { ProjectCheckRecord } from '../../core/report-sections.js';
import type { Revision } from '../../core/revision.js';
import { isWorkflowPath } from './discover.js';
import { toolWords } from './finding-text.js';
import type { G16BuildEvidence } from './evidence.js';
import { BUILD_FILES, discoverBuilds, type BuildCommand, type BuildEcosystem } from './build-commands.js';
import { buildCoveredByTests } from './build-coverage.js';
import { projectEnv, runOnSide, type ToolEcosystem, type ToolRunResult } from '../../testgate/index.js';

/**
 * The project's own builds as a check (build-commands.ts finds them): each runs in the sandbox at the
 * base and at the head, each side in a fresh tree with its installed dependencies. Passing at the
 * base and failing at the head is the pull request's doing: `build-broken` naming the first error,
 * blocking where CI or a deploy runs the build strictly, a risk where CI runs it leniently. Failing
 * at both is not the pull request's. A build G8's test run already compiles at both sides, one whose
 * files the change does not touch, and one that cannot run are records with their reason.
 */

export interface BuildRun {
  findings: GuardFinding[];
  records: ProjectCheckRecord[];
}

/** The changed files each ecosystem's build reads. */
export const BUILD_INPUT: Record<BuildEcosystem, RegExp> = {
  node: /\.(?:[cm]?[jt]sx?|vue|svelte|json|css|scss|less|html)$/,
  go: /\.go$/,
  cargo: /\.rs$/,
  maven: /\.java$/,
  python: /\.pyi?$/,
};

/** Builds run per pull request at most (each once per side, within tests.timeoutSec). */
export const MAX_BUILDS = 3;

/** A line that reads as an error (npm's, node's, tsc's, go's, rustc's, esbuild's, rollup's and vite's). */
const ERROR_LINE =
  /\berror\b|Error:|SyntaxError|does not provide an export|is not exported by|No matching export|Cannot find|not found|undefined:/i;

/** A line that only announces the errors below it (`error during build:`, `Build failed with 1 error:`). */
const HEADER_LINE = /:$|^\W*build failed\b/i;

/**
 * The first line that reads as an error and is not only a heading (else the line after the first
 * heading), else the last non-empty line of the output.
 */
export function firstError(out: string): string {
  const lines = out
    // a terminal's colour codes
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .filter((l) => !l.startsWith('> ') && !/^npm (?:error|ERR!) (?:Lifecycle|A complete log|code|path|command|workspace|location)/i.test(l))
    // pip's frame around a build backend's own error
    .filter((l) => !/^(?:error: (?:subprocess-exited-with-error|metadata-generation-failed)|[×╰│]|note: This |hint: See above)/.test(l));
  const error = lines.find((l) => ERROR_LINE.test(l) && !HEADER_LINE.test(l));
  if (error !== undefined) return error;
  const header = lines.findIndex((l) => ERROR_LINE.test(l));
  return (header >= 0 ? (lines[header + 1] ?? lines[header]) : lines.at(-1)) ?? '';
}

async function readBuilds(base: Revision, baseBranch: string | undefined): Promise<BuildCommand[]> {
  const wanted = (await base.paths()).filter((p) => isWorkflowPath(p) || BUILD_FILES.includes(p));
  const texts = await base.readTexts(wanted);
  return discoverBuilds(texts, baseBranch);
}

/** The record's source: where the build was read, and the command when that place is not package.json's script. */
const sourceOf = (b: BuildCommand) => (b.inCi ? `${b.where}: ${b.command}` : b.where);

/**
 * `python -m build` without its isolated environment (which it would download): pip builds the wheel
 * with the build backend G8 installs into the virtual environment from `[build-system] requires`,
 * offline and without the project's dependencies.
 */
const PYTHON_BUILD = [
  'if [ -n "$VIRTUAL_ENV" ]; then P="$VIRTUAL_ENV/bin/python"; else P=$(command -v python3); fi',
  '"$P" -m pip wheel --disable-pip-version-check --no-input -q --no-deps --no-build-isolation --no-index -w "$SLOPGATE_OUT/wheel" . 2>&1',
].join('\n');

/** How the sandbox runs it: stdout and stderr together, a Node tool from the tree's own `node_modules/.bin`. */
function shellOf(b: BuildCommand): string {
  if (b.eco === 'python') return PYTHON_BUILD;
  const direct = b.eco === 'node' && !b.command.startsWith('npm run ');
  return `${direct ? 'PATH="$PWD/node_modules/.bin:$PATH" ' : ''}${b.command} 2>&1`;
}

const stopped = (r: ToolRunResult | undefined, side: string) =>
  r ? `the build at the ${side} was stopped: ${r.killed ?? 'it did not finish'}` : `the build did not run at the ${side}`;

const NONE = { fail: 0, risk: 0, nit: 0 };

function finding(b: BuildCommand, source: string, head: ToolRunResult): GuardFinding {
  const error = firstError(`${head.stdout}\n${head.stderr}`);
  const words = toolWords(error) || 'no message';
  const where = b.inCi ? b.where : source;
  const lenient = b.inCi && b.lenient ? ` CI runs it leniently (${b.lenient}), so this does not fail its checks there.` : '';
  return {
    category: 'build-broken',
    severity: lenient ? 'risk' : 'fail',
    message: `The project's build (\`${b.command}\`, ${where}) passes at the base and fails with this change: ${words}.${lenient}`,
    remediation: `Run \`${b.command}\` and fix what it reports before pushing again.`,
    cause: 'build',
    evidence: { tool: 'build', command: b.command, source: where, error: error.slice(0, 300) } satisfies G16BuildEvidence,
  };
}

/** Runs the builds of one ecosystem at both sides (one tree per side for all of them). */
async function runEcosystem(
  ctx: GuardContext,
  eco: ToolEcosystem,
  builds: { build: BuildCommand; record: ProjectCheckRecord }[],
  tscReported: boolean,
): Promise<BuildRun> {
  const skip = (record: ProjectCheckRecord, reason: string): ProjectCheckRecord => ({ ...record, status: 'skipped', reason });
  const end = ctx.services.tests?.stage?.(`install for the build`);
  const env = await projectEnv(ctx, eco).finally(() => end?.());
  if (!env.ok) return { findings: [], records: builds.map((b) => skip(b.record, env.reason)) };
  const gitRepo = eco !== 'node';
  const stage = async <T>(name: string, work: () => Promise<T>) => {
    const done = ctx.services.tests?.stage?.(name);
    try {
      return await work();
    } finally {
      done?.();
    }
  };
  const commands = (bs: typeof builds) => bs.map((b) => ({ command: shellOf(b.build), outNames: [] }));
  const baseRuns = await stage('build at the base', () => runOnSide(ctx, ctx.base.sha, env.base, env.limits, commands(builds), gitRepo));
  const records: ProjectCheckRecord[] = [];
  const passing: typeof builds = [];
  builds.forEach((b, i) => {
    const r = baseRuns[i];
    if (!r || r.killed) records.push(skip(b.record, stopped(r, 'base')));
    else if (r.exitCode !== 0)
      records.push({
        ...b.record,
        found: NONE,
        reason: 'the build already fails at the base, so a failure at the head is not this change’s',
      });
    else passing.push(b);
  });
  if (passing.length === 0) return { findings: [], records };
  const headRuns = await stage('build at the head', () => runOnSide(ctx, ctx.head.sha, env.head, env.limits, commands(passing), gitRepo));
  const findings: GuardFinding[] = [];
  passing.forEach((b, i) => {
    const r = headRuns[i];
    if (!r || r.killed) return records.push(skip(b.record, stopped(r, 'head')));
    if (r.exitCode === 0) return records.push({ ...b.record, found: NONE });
    // tsc's errors on the changed lines are the tsc check's findings already: one report of them
    if (b.build.tsc && tscReported)
      return records.push({
        ...b.record,
        found: NONE,
        reason: 'it fails at the head; the tsc check reports the errors on the changed lines',
      });
    const f = finding(b.build, b.record.source, r);
    findings.push(f);
    return records.push({ ...b.record, found: { ...NONE, [f.severity]: 1 } });
  });
  return { findings, records };
}

const RUNS_IN: Partial<Record<BuildEcosystem, ToolEcosystem>> = { node: 'node', go: 'go', cargo: 'cargo', python: 'python' };

/**
 * Every build the base names, run or skipped with its reason. `baseBranch` as discovery reads it; `tscReported`: the tsc check raised
 * findings in this run, so a failing tsc build adds none.
 */
export async function runBuildChecks(
  ctx: GuardContext,
  files: ChangedFile[],
  baseBranch: string | undefined,
  tscReported: boolean,
): Promise<BuildRun> {
  const builds = await ctx.memo('g16:builds', () => readBuilds(ctx.base, baseBranch));
  const records: ProjectCheckRecord[] = [];
  const findings: GuardFinding[] = [];
  const toRun = new Map<ToolEcosystem, { build: BuildCommand; record: ProjectCheckRecord }[]>();
  let running = 0;
  for (const b of builds) {
    const inputs = files.filter((f) => BUILD_INPUT[b.eco].test(f.path)).length;
    const record: ProjectCheckRecord = {
      tool: 'build',
      source: sourceOf(b),
      severity: b.inCi && b.lenient ? 'risk' : 'fail',
      status: 'ran',
      files: inputs,
    };
    const skip = (reason: string) => records.push({ ...record, status: 'skipped', reason });
    if (inputs === 0) {
      skip(`${NO_FILES_IN_SCOPE}: the change touches none of the files it builds`);
      continue;
    }
    const covered = await buildCoveredByTests(ctx, b);
    if (covered) {
      skip(`${COVERED_BY_TESTS}: ${covered}`);
      continue;
    }
    const eco = RUNS_IN[b.eco];
    if (!eco) {
      skip('slopgate runs a Maven build only as G8’s test run (`mvn test` compiles the main code), which does not apply here');
      continue;
    }
    if (running >= MAX_BUILDS) {
      skip(`only the first ${MAX_BUILDS} builds run in one check`);
      continue;
    }
    running++;
    toRun.set(eco, [...(toRun.get(eco) ?? []), { build: b, record }]);
  }
  for (const [eco, list] of toRun) {
    if (ctx.signal.aborted) break;
    const run = await runEcosystem(ctx, eco, list, tscReported);
    findings.push(...run.findings);
    records.push(...run.records);
  }
  return { findings, records };
}
