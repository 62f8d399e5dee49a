import type { GuardContext, GuardFinding } from '../../core/guard.js';
import type { ProjectCheckRecord } from '../../core/report-sections.js';
import { isRecord } from '../../core/is-record.js';
import { toolWords } from './finding-text.js';
import type { G16BuildEvidence } from './evidence.js';
import { projectEnv, runOnSide, type ToolRunResult } from '../../testgate/index.js';

/**
 * The project's own build as a check: a Node project whose base package.json has a `build` script
 * (what CI, a deploy and `npm run build` run) and no tests for G8 to run is built in the sandbox at the base and at the head,
 * each in a fresh tree with that side's installed dependencies. Passing at the base and failing at
 * the head is the pull request's doing: a blocking `build-broken` naming the first error. Failing at
 * both is not the pull request's; a build that cannot run is a skip with its cause.
 */

export interface BuildRun {
  findings: GuardFinding[];
  record: ProjectCheckRecord | null;
}

/** npm's placeholder for a package without tests. */
const NO_TESTS = /^echo\s+["']?Error: no test specified["']?\s*&&\s*exit\s+1$/;

/**
 * The base's `build` script, when there is one and the project has no `test` script: a project with
 * tests has G8 build and run them (a broken build there is G8's `build-broken`, not reported twice).
 */
async function buildScript(ctx: GuardContext): Promise<string | null> {
  const text = await ctx.base.readText('package.json');
  if (text === null) return null;
  try {
    const doc: unknown = JSON.parse(text);
    if (!isRecord(doc) || !isRecord(doc.scripts) || typeof doc.scripts.build !== 'string') return null;
    const test = doc.scripts.test;
    if (typeof test === 'string' && !NO_TESTS.test(test.trim())) return null;
    return doc.scripts.build;
  } catch {
    return null;
  }
}

/** The first line that reads as an error, else the last non-empty line of the output. */
export function firstError(out: string): string {
  const lines = out
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .filter(
      (l) => !l.startsWith('> ') && !/^npm (?:error|ERR!) (?:Lifecycle|A complete log|code|path|command|workspace|location)/i.test(l),
    );
  return lines.find((l) => /\berror\b|Error:|SyntaxError|does not provide an export|Cannot find|not found/i.test(l)) ?? lines.at(-1) ?? '';
}

const COMMAND = 'npm run build';

export async function runBuildCheck(ctx: GuardContext): Promise<BuildRun> {
  const script = await buildScript(ctx);
  if (script === null) return { findings: [], record: null };
  const source = `package.json: "build": ${JSON.stringify(script).slice(0, 120)}`;
  const record: ProjectCheckRecord = { tool: 'build', source, severity: 'fail', status: 'ran', files: 0 };
  const skip = (reason: string): BuildRun => ({ findings: [], record: { ...record, status: 'skipped', reason } });
  const env = await projectEnv(ctx, 'node');
  if (!env.ok) return skip(env.reason);
  // stdout and stderr together, as the build prints them; the tree's own node_modules/.bin comes first
  const command = { command: `${COMMAND} 2>&1`, outNames: [] };
  const [base] = await runOnSide(ctx, ctx.base.sha, env.base, env.limits, [command], false);
  const stopped = (r: ToolRunResult | undefined, side: string) =>
    !r ? `the build did not run at the ${side}` : r.killed ? `the build at the ${side} was stopped: ${r.killed}` : null;
  if (!base || base.killed) return skip(stopped(base, 'base') ?? '');
  if (base.exitCode !== 0) {
    return {
      findings: [],
      record: { ...record, reason: `the build already fails at the base, so a failure at the head is not this change's` },
    };
  }
  const [head] = await runOnSide(ctx, ctx.head.sha, env.head, env.limits, [command], false);
  if (!head || head.killed) return skip(stopped(head, 'head') ?? '');
  if (head.exitCode === 0) return { findings: [], record };
  const error = firstError(`${head.stdout}\n${head.stderr}`);
  const words = toolWords(error) || 'no message';
  return {
    record,
    findings: [
      {
        category: 'build-broken',
        severity: 'fail',
        message: `The project's build (\`${COMMAND}\`, ${source}) passes at the base and fails with this change: ${words}.`,
        remediation: `Run \`${COMMAND}\` and fix what it reports before pushing again.`,
        cause: 'build',
        evidence: { tool: 'build', command: COMMAND, source, error: error.slice(0, 300) } satisfies G16BuildEvidence,
      },
    ],
  };
}
