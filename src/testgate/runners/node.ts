import { rm, writeFile } from 'node:fs/promises';
import { readResultsFile } from './node-results.js';
import { join } from 'node:path';
import { tailOf, shq } from '../../sandbox/index.js';
import type { RunnerId, TestOutcome } from '../../core/suite-result.js';
import { parseJestJson, parseNodeTestLines } from './node-results.js';
import { NODE_TEST_REPORTER } from './node-test-reporter.js';
import { escapeRegExp, missingToolchain, type RunContext, type Runner, type RunnerOutput } from './runner.js';

/**
 * Node test runners: `node --test` (with slopgate's JSON-lines reporter), vitest and jest (their JSON
 * reports), and plain `npm test` (exit code only). vitest and jest must be installed in the tree
 * (`node_modules`), which normally needs `tests.setup: npm ci`.
 */
const NODE_REPORTER_ARGS = '--test-reporter="$SLOPGATE_OUT/reporter.mjs" --test-reporter-destination="$SLOPGATE_OUT/node-test.jsonl"';

/** A results file the run wrote (not followed if a symlink, not read if not a regular file, capped). */
const readOr = (path: string): Promise<string | null> => readResultsFile(path);

function baseOutput(r: Awaited<ReturnType<RunContext['exec']>>): RunnerOutput {
  return {
    tests: [],
    units: [],
    exitCode: r.exitCode,
    outputTail: tailOf(`${r.stdout}\n${r.stderr}`.trim()),
    ...(r.killedBy ? { killedBy: r.killedBy } : {}),
  };
}

/** Extra arguments of a `node --test …` script (files, flags), or null when the script is more than that. */
export function nodeTestScriptArgs(script: string): string | null {
  const m = /^\s*node\s+((?:--?[\w-]+(?:=\S+)?\s+)*)--test(\s+[^;&|<>`$]*)?$/.exec(script);
  if (!m) return null;
  return `${m[1] ?? ''}${m[2] ?? ''}`
    .replace(/--test-reporter(-destination)?(=\S+|\s+\S+)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export function nodeTestRunner(scriptArgs: string): Runner {
  const command = `node --test ${NODE_REPORTER_ARGS}${scriptArgs ? ' ' + scriptArgs : ''}`;
  const run = async (ctx: RunContext, cmd: string): Promise<RunnerOutput> => {
    await writeFile(join(ctx.outDir, 'reporter.mjs'), NODE_TEST_REPORTER);
    const r = await ctx.exec(cmd);
    const out = baseOutput(r);
    const missing = missingToolchain(r, 'node');
    if (missing) return { ...out, missingToolchain: missing };
    const text = await readOr(join(ctx.outDir, 'node-test.jsonl'));
    if (text === null) return out;
    const parsed = parseNodeTestLines(text, ctx.workdir);
    return { ...out, ...parsed, ...(parsed.tests.length === 0 && parsed.units.length === 0 ? { noTests: true } : {}) };
  };
  return {
    id: 'node-test',
    command,
    displayCommand: `node --test${scriptArgs ? ' ' + scriptArgs : ''}`,
    run: (ctx) => run(ctx, command),
    // node --test selects by file; the other tests of those files come along and are ignored.
    rerun: (ctx, tests) =>
      run(ctx, `node --test ${NODE_REPORTER_ARGS} ${[...new Set(tests.map((t) => t.file ?? ''))].filter(Boolean).map(shq).join(' ')}`),
  };
}

function jestLike(id: 'vitest' | 'jest', display: string, up?: string): Runner {
  // In a workspace package the tool may be hoisted to the root's node_modules: `up` leads there.
  const local = `./node_modules/.bin/${id}`;
  const pre = up ? `SLOPGATE_BIN=${local}; [ -e "$SLOPGATE_BIN" ] || SLOPGATE_BIN=${up}/node_modules/.bin/${id}; ` : '';
  const bin = up ? '"$SLOPGATE_BIN"' : local;
  // Both report where each test is defined only when asked to (the line of `it(` / `test(`).
  const args =
    id === 'vitest'
      ? 'run --includeTaskLocation --reporter=json --outputFile="$SLOPGATE_OUT/report.json"'
      : '--ci --json --testLocationInResults --outputFile="$SLOPGATE_OUT/report.json"';
  const command = `${pre}${bin} ${args}`;
  // Checked inside the sandbox: node_modules may be the dependency install's, mounted only there.
  const missing = `slopgate: ${local} is missing`;
  const run = async (ctx: RunContext, tail: string): Promise<RunnerOutput> => {
    // A re-run must not read the previous run's report if it dies before writing its own.
    await rm(join(ctx.outDir, 'report.json'), { force: true });
    const r = await ctx.exec(`${pre}if [ ! -e ${bin} ]; then echo '${missing}' >&2; exit 127; fi; ${bin} ${tail}`);
    if (r.exitCode === 127 && r.stderr.includes(missing)) {
      return {
        tests: [],
        units: [],
        exitCode: null,
        outputTail: '',
        missingToolchain: `${id} is not installed in the tree (${local} is missing): declare it in package.json so that the dependency install provides it, or install it with tests.setup`,
      };
    }
    const out = baseOutput(r);
    const json = await readOr(join(ctx.outDir, 'report.json'));
    if (json === null) return out;
    try {
      const parsed = parseJestJson(json, ctx.workdir);
      return { ...out, ...parsed, ...(parsed.tests.length === 0 && parsed.units.length === 0 ? { noTests: true } : {}) };
    } catch {
      return out;
    }
  };
  return {
    id,
    command,
    displayCommand: display,
    run: (ctx) => run(ctx, args),
    rerun: (ctx, tests: TestOutcome[]) => {
      const files = [...new Set(tests.map((t) => t.file ?? ''))].filter(Boolean);
      const titles = [...new Set(tests.map((t) => t.id.split(' > ').slice(1).pop() ?? ''))].filter(Boolean);
      const pattern = titles.map(escapeRegExp).join('|');
      return run(ctx, `${args} ${files.map(shq).join(' ')}${pattern ? ` -t ${shq(pattern)}` : ''}`);
    },
  };
}

/** `display`: the project's own command (its CI line or `npm test`); default `npx vitest run` / `npx jest`. */
export const vitestRunner = (display = 'npx vitest run', up?: string): Runner => jestLike('vitest', display, up);
export const jestRunner = (display = 'npx jest', up?: string): Runner => jestLike('jest', display, up);

/** `npm test` or any other command without per-test output: the exit code is the only signal. */
export function exitCodeRunner(id: RunnerId, command: string, display = command): Runner {
  const run = async (ctx: RunContext): Promise<RunnerOutput> => {
    const r = await ctx.exec(command);
    const out = baseOutput(r);
    const missing = missingToolchain(r, command.split(/\s+/)[0] ?? command);
    if (missing) return { ...out, missingToolchain: missing };
    return { ...out, exitCodeOnly: true };
  };
  return { id, command, displayCommand: display, run, rerun: (ctx) => run(ctx) };
}
