import { readdir } from 'node:fs/promises';
import { readJunitFile } from './junit-xml.js';
import { join } from 'node:path';
import { tailOf } from '../../sandbox/index.js';
import type { TestOutcome, UnitStatus } from '../../core/suite-result.js';
import { parseLibtestOutput } from './cargo.js';
import { parseGoTestJson } from './go.js';
import { parseJunitXml } from './junit-xml.js';
import { missingToolchain, shortMessage, type RunContext, type Runner, type RunnerOutput } from './runner.js';

/**
 * A `tests.command` from config. Results are read, in this order, from JUnit XML files the command
 * writes into `$SLOPGATE_OUT`, from `go test -json` lines or libtest lines on stdout; when none of
 * these appear, only the exit code counts.
 */
function fromJunit(xml: string): { tests: TestOutcome[]; units: UnitStatus[] } {
  const tests: TestOutcome[] = [];
  const units = new Map<string, UnitStatus>();
  for (const c of parseJunitXml(xml)) {
    const unitName = c.file ?? (c.classname || 'suite');
    const unit = `junit:${unitName}`;
    if (!units.has(unit)) units.set(unit, { id: unit, kind: 'file', group: unit, status: 'ok', ...(c.file ? { file: c.file } : {}) });
    const t: TestOutcome = {
      id: `junit:${c.classname ? c.classname + '.' : ''}${c.name}`,
      status: c.status,
      unit,
      ...(c.file ? { file: c.file } : {}),
    };
    const msg = shortMessage(c.message);
    if (msg) t.message = msg;
    tests.push(t);
  }
  return { tests, units: [...units.values()] };
}

export function customRunner(command: string, goModulePath: string): Runner {
  const run = async (ctx: RunContext): Promise<RunnerOutput> => {
    const r = await ctx.exec(command);
    const out: RunnerOutput = {
      tests: [],
      units: [],
      exitCode: r.exitCode,
      outputTail: tailOf(`${r.stdout}\n${r.stderr}`.trim()),
      ...(r.killedBy ? { killedBy: r.killedBy } : {}),
    };
    const missing = missingToolchain(r, command.split(/\s+/)[0] ?? command);
    if (missing) return { ...out, missingToolchain: missing };
    const xmlFiles = (await readdir(ctx.outDir).catch((): string[] => [])).filter((f) => f.endsWith('.xml')).sort();
    const junit: { tests: TestOutcome[]; units: UnitStatus[] } = { tests: [], units: [] };
    for (const f of xmlFiles) {
      try {
        const part = fromJunit(await readJunitFile(join(ctx.outDir, f)));
        junit.tests.push(...part.tests);
        junit.units.push(...part.units);
      } catch {
        // not JUnit
      }
    }
    if (junit.tests.length) return { ...out, ...junit };
    const go = parseGoTestJson(r.stdout, r.stderr, goModulePath);
    if (go.tests.length || go.units.some((u) => u.status === 'broken')) return { ...out, ...go };
    const libtest = parseLibtestOutput(`${r.stdout}\n${r.stderr}`);
    if (libtest.tests.length) return { ...out, ...libtest };
    return { ...out, exitCodeOnly: true };
  };
  return { id: 'custom', command, displayCommand: command, run, rerun: (ctx) => run(ctx) };
}
