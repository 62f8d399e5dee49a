import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tailOf } from '../capped-output.js';
import type { TestOutcome, UnitStatus } from '../types.js';
import { parseJunitXml } from './junit-xml.js';
import { missingToolchain, shortMessage, shq, type RunContext, type Runner, type RunnerOutput } from './runner.js';

/**
 * pytest with a JUnit XML report (xunit1 family, which carries file and line). Collection errors do
 * not stop the session, so one broken module does not hide every other test.
 * Ids: `py:<file>::<test>` or `py:<file>::<Class>::<test>` (pytest node ids).
 */
const BASE = 'python3 -m pytest -q -p no:cacheprovider --continue-on-collection-errors -o junit_family=xunit1 --junitxml="$SLOPGATE_OUT/junit.xml"';

/** pytest exit code 5: no tests were collected. */
const NO_TESTS_COLLECTED = 5;

function moduleFileOf(dotted: string): string {
  return dotted.replace(/\./g, '/') + '.py';
}

/** The `E   …` lines of a collection error (the actual exception), else its first lines. */
function collectionError(text: string): string {
  const body = text.replace(/^collection failure\n?/, '');
  const e = body.split('\n').filter((l) => /^E\s/.test(l)).map((l) => l.replace(/^E\s+/, ''));
  return shortMessage(e.length ? e.join('\n') : body, 12) ?? 'collection failed';
}

/** Turns pytest's JUnit XML into outcomes and per-module collection status. */
export function parsePytestJunit(xml: string): { tests: TestOutcome[]; units: UnitStatus[] } {
  const tests = new Map<string, TestOutcome>();
  const units = new Map<string, UnitStatus>();
  for (const c of parseJunitXml(xml)) {
    if (!c.classname && c.errorMessage !== undefined) {
      // A module that could not be collected: <testcase classname="" name="tests.test_db" file=…>
      const file = c.file ?? moduleFileOf(c.name);
      units.set(`py:${file}`, { id: `py:${file}`, kind: 'module', group: `py:${file}`, status: 'broken', file, message: collectionError(c.errorMessage) });
      continue;
    }
    const modulePath = c.file ? c.file.replace(/\.py$/, '').replace(/\//g, '.') : '';
    const file = c.file ?? moduleFileOf(c.classname.split('.').filter((p) => !/^[A-Z]/.test(p)).join('.'));
    const dottedModule = modulePath || file.replace(/\.py$/, '').replace(/\//g, '.');
    const cls = c.classname.startsWith(dottedModule + '.') ? c.classname.slice(dottedModule.length + 1) : '';
    const id = `py:${file}::${cls ? cls.replace(/\./g, '::') + '::' : ''}${c.name}`;
    const unit = `py:${file}`;
    if (!units.has(unit)) units.set(unit, { id: unit, kind: 'module', group: unit, status: 'ok', file });
    const prev = tests.get(id);
    if (prev?.status === 'failed') continue; // a teardown error after a failure keeps "failed"
    const t: TestOutcome = { id, status: c.status, unit, file };
    if (c.line !== undefined) t.line = c.line + 1; // pytest reports 0-based lines
    const msg = shortMessage(c.message);
    if (msg) t.message = msg;
    tests.set(id, t);
  }
  return { tests: [...tests.values()], units: [...units.values()] };
}

async function runPytest(ctx: RunContext, command: string): Promise<RunnerOutput> {
  const r = await ctx.exec(command);
  const out: RunnerOutput = { tests: [], units: [], exitCode: r.exitCode, outputTail: tailOf(`${r.stdout}\n${r.stderr}`.trim()), ...(r.killedBy ? { killedBy: r.killedBy } : {}) };
  const missing = missingToolchain(r, 'pytest', [/No module named pytest/]);
  if (missing) return { ...out, missingToolchain: missing };
  if (r.exitCode === NO_TESTS_COLLECTED) return { ...out, noTests: true };
  let xml: string;
  try {
    xml = await readFile(join(ctx.outDir, 'junit.xml'), 'utf8');
  } catch {
    return out; // no report: nothing parseable
  }
  try {
    return { ...out, ...parsePytestJunit(xml) };
  } catch {
    return out;
  }
}

export function pytestRunner(): Runner {
  return {
    id: 'pytest',
    command: BASE,
    run: (ctx) => runPytest(ctx, BASE),
    rerun: (ctx, tests) => runPytest(ctx, `${BASE} ${tests.map((t) => shq(t.id.replace(/^py:/, ''))).join(' ')}`),
  };
}
