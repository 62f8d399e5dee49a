import { join, resolve, sep } from 'node:path';
import { z } from 'zod';
import { parseJsonAs } from '../../core/parse-data.js';
import { readCappedText, readCappedTextOr, readHeadSync } from '../../core/safe-read.js';
import { tailOf, shq } from '../../sandbox/index.js';
import type { TestOutcome, UnitStatus } from '../../core/suite-result.js';
import type { MergedArgs } from './ci-args.js';
import { goMissingModules, goMissingReason, goModuleOf } from './missing-dependency.js';
import { escapeRegExp, missingToolchain, shortMessage, type RunContext, type Runner, type RunnerOutput } from './runner.js';

/**
 * `go test -json` (test2json events). A package that does not build is a broken unit.
 * Ids: `go:<import path>.<TestName>` (subtests keep Go's `/` form).
 */
const REPORT = '> "$SLOPGATE_OUT/go.jsonl"';

const word = (a: string) => (/^[\w./:=,@%+-]+$/.test(a) ? a : shq(a));

/** `go test` with the CI command's options (build tags, -short, -mod, …) and packages merged in. */
export function goTestCommand(ci?: MergedArgs): string {
  const opts = (ci?.options ?? []).map(word);
  const pkgs = ci?.positional.length ? ci.positional.map(word) : ['./...'];
  return ['go test -count=1 -json', ...opts, ...pkgs, REPORT].join(' ');
}

/** The quoted import path at a source position (Go 1.19 names only the position of a missing import). */
function importAt(workdir: string, file: string, line: number, col: number): string | null {
  const abs = resolve(workdir, file);
  if (!abs.startsWith(resolve(workdir) + sep)) return null;
  try {
    const text = readHeadSync(abs, 1 << 20).split('\n')[line - 1] ?? '';
    return /^"([^"]+)"/.exec(text.slice(col - 1))?.[1] ?? null;
  } catch {
    return null;
  }
}

/** One event of `go test -json` (test2json): the fields read here; others (Time, Elapsed) are dropped. */
const goEvent = z.object({
  Action: z.string(),
  Package: z.string().optional(),
  Test: z.string().optional(),
  Output: z.string().optional(),
  FailedBuild: z.string().optional(),
  ImportPath: z.string().optional(),
});

/** Directory of a package relative to the module root ('.' for the root package). */
export function packageDir(modulePath: string, pkg: string): string {
  if (pkg === modulePath) return '.';
  return pkg.startsWith(modulePath + '/') ? pkg.slice(modulePath.length + 1) : pkg;
}

/** Compile errors from stderr, keyed by package: blocks that start with `# <pkg>`. */
function buildErrors(stderr: string): Map<string, string> {
  const out = new Map<string, string>();
  let current: string | null = null;
  for (const line of stderr.split('\n')) {
    const m = /^# (\S+)/.exec(line);
    if (m) {
      current = m[1]!;
      continue;
    }
    if (current && line.trim()) out.set(current, ((out.get(current) ?? '') + line + '\n').slice(0, 2000));
  }
  return out;
}

export function parseGoTestJson(stdout: string, stderr: string, modulePath: string): { tests: TestOutcome[]; units: UnitStatus[] } {
  const tests = new Map<string, TestOutcome>();
  const units = new Map<string, UnitStatus>();
  const output = new Map<string, string>();
  const failedTestsIn = new Map<string, number>();
  const errors = buildErrors(stderr);
  const unit = (pkg: string, status: UnitStatus['status'], message?: string) => {
    const id = `go:${pkg}`;
    const prev = units.get(id);
    if (prev?.status === 'broken') return;
    const u: UnitStatus = { id, kind: 'package', group: id, status, file: packageDir(modulePath, pkg) };
    if (message) u.message = message;
    units.set(id, u);
  };
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) {
      const m = /^FAIL\s+(\S+)\s+\[(build failed|setup failed)\]/.exec(line);
      if (m) unit(m[1]!, 'broken', shortMessage(errors.get(m[1]!) ?? errors.get(`${m[1]} [${m[1]}.test]`), 12) ?? m[2]);
      continue;
    }
    let ev: z.infer<typeof goEvent>;
    try {
      ev = parseJsonAs(goEvent, line, 'a `go test -json` event');
    } catch {
      continue; // a line the test binary printed itself, not an event
    }
    const pkg = ev.Package ?? ev.ImportPath;
    if (!pkg) continue;
    if (ev.Action === 'build-output' && ev.Output) {
      const key = ev.ImportPath ?? pkg;
      errors.set(key.split(' ')[0]!, (errors.get(key.split(' ')[0]!) ?? '') + ev.Output);
      continue;
    }
    if (!ev.Test) {
      if (ev.Action === 'fail') {
        const broken = ev.FailedBuild !== undefined || !failedTestsIn.get(pkg);
        if (broken)
          unit(
            pkg,
            'broken',
            shortMessage(errors.get((ev.FailedBuild ?? pkg).split(' ')[0]!) ?? output.get(pkg), 12) ??
              'package failed without a failing test (build, init or TestMain failure)',
          );
        else unit(pkg, 'ok');
      } else if (ev.Action === 'pass' || ev.Action === 'skip') unit(pkg, 'ok');
      else if (ev.Action === 'output' && ev.Output) output.set(pkg, ((output.get(pkg) ?? '') + ev.Output).slice(-2000));
      continue;
    }
    const id = `go:${pkg}.${ev.Test}`;
    if (ev.Action === 'output' && ev.Output) {
      if (!/^(=== (RUN|PAUSE|CONT)|--- (PASS|FAIL|SKIP))/.test(ev.Output.trim()))
        output.set(id, ((output.get(id) ?? '') + ev.Output).slice(0, 2000));
      continue;
    }
    const status = ev.Action === 'pass' ? 'passed' : ev.Action === 'fail' ? 'failed' : ev.Action === 'skip' ? 'skipped' : null;
    if (!status) continue;
    if (status === 'failed') failedTestsIn.set(pkg, (failedTestsIn.get(pkg) ?? 0) + 1);
    const t: TestOutcome = { id, status, unit: `go:${pkg}`, file: packageDir(modulePath, pkg) };
    const msg = status === 'failed' ? shortMessage(output.get(id)) : undefined;
    if (msg) t.message = msg;
    tests.set(id, t);
  }
  return { tests: [...tests.values()], units: [...units.values()] };
}

/** `module` line of go.mod. */
export function goModulePath(goMod: string): string {
  return /^\s*module\s+("?)([^\s"]+)\1/m.exec(goMod)?.[2] ?? '';
}

/** The text of `build-output` events (Go ≥ 1.24 reports build errors there instead of on stderr). */
function buildOutputOf(jsonl: string): string {
  let text = '';
  for (const line of jsonl.split('\n')) {
    if (!line.includes('"build-output"')) continue;
    try {
      text += parseJsonAs(goEvent, line, 'a `go test -json` event').Output ?? '';
    } catch {
      // not an event
    }
  }
  return text;
}

async function runGo(ctx: RunContext, command: string, modulePath: string, notes: string[] = []): Promise<RunnerOutput> {
  const r = await ctx.exec(command);
  let stdout = '';
  try {
    stdout = await readCappedText(join(ctx.outDir, 'go.jsonl'));
  } catch {
    // no report
  }
  const out: RunnerOutput = {
    tests: [],
    units: [],
    exitCode: r.exitCode,
    outputTail: tailOf(r.stderr.trim() || r.stdout.trim()),
    ...(r.killedBy ? { killedBy: r.killedBy } : {}),
  };
  const missing = missingToolchain(r, 'go');
  if (missing) return { ...out, missingToolchain: missing };
  // A module that cannot be downloaded in the sandbox breaks every package that imports it, at the
  // base as on the PR: the result would say nothing about the PR, so the run is skipped, naming it.
  const missingMods = goMissingModules(`${r.stderr}\n${buildOutputOf(stdout)}`, (f, l, c) => importAt(ctx.workdir, f, l, c));
  if (missingMods.length) {
    const goMod = (await readCappedTextOr(join(ctx.workdir, 'go.mod'), 1 << 20).catch(() => null)) ?? '';
    return { ...out, missingToolchain: goMissingReason([...new Set(missingMods.map((m) => goModuleOf(m, goMod)))]) };
  }
  const parsed = parseGoTestJson(stdout, r.stderr, modulePath);
  if (notes.length) out.notes = notes;
  const noTests =
    parsed.tests.length === 0 &&
    parsed.units.every((u) => u.status === 'ok') &&
    /no test files|no packages to test/.test(stdout + r.stderr);
  return { ...out, ...parsed, ...(noTests ? { noTests } : {}) };
}

/** Options of a CI command without test selection (-run/-skip), for re-runs that select by name. */
function withoutSelection(ci?: MergedArgs): string[] {
  const out: string[] = [];
  const opts = ci?.options ?? [];
  for (let i = 0; i < opts.length; i++) {
    const o = opts[i]!;
    if (/^-(run|skip)$/.test(o)) i++;
    else if (!/^-(run|skip)=/.test(o)) out.push(o);
  }
  return out;
}

export function goRunner(modulePath: string, ci?: MergedArgs, notes: string[] = [], display = 'go test ./...'): Runner {
  const command = goTestCommand(ci);
  return {
    id: 'go',
    command,
    displayCommand: display,
    run: (ctx) => runGo(ctx, command, modulePath, notes),
    rerun: (ctx, tests) => {
      const pkgs = [...new Set(tests.map((t) => t.unit.replace(/^go:/, '')))];
      const names = [...new Set(tests.map((t) => t.id.slice(`go:${t.unit.replace(/^go:/, '')}.`.length).split('/')[0]!))];
      const run = `^(${names.map(escapeRegExp).join('|')})$`;
      const opts = withoutSelection(ci).map(word);
      return runGo(ctx, ['go test -count=1 -json', ...opts, `-run ${shq(run)}`, ...pkgs.map(shq), REPORT].join(' '), modulePath, notes);
    },
  };
}
