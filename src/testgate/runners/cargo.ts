import { readCappedText } from '../../core/safe-read.js';
import { join } from 'node:path';
import { tailOf, shq } from '../../sandbox/index.js';
import type { TestOutcome, UnitStatus } from '../../core/suite-result.js';
import { cargoTestCommands, parseCargoBuild, rustUnitId } from './cargo-build.js';
import { cargoMissingCrates, cargoMissingReason } from './missing-dependency.js';
import { missingToolchain, shortMessage, type RunContext, type Runner, type RunnerOutput } from './runner.js';

/**
 * cargo test in two steps: `cargo build --tests --keep-going` with JSON messages finds the targets
 * that do not compile (cargo test itself stops at the first one), then `cargo test --no-fail-fast`
 * runs the targets that built. libtest's human lines (`test x ... ok|FAILED|ignored`) are parsed per
 * target. Ids: `rust:<target source>::<test path>` (e.g. `rust:src/lib.rs::tests::adds`); doc tests
 * `rust:doc:<file> - <item>` without the line number, which moves with every edit above it.
 */
export const CARGO_COMMAND = 'cargo test --no-fail-fast';
const buildCommand = (opts: string) =>
  `cargo build --tests --keep-going${opts} --message-format=json > "$SLOPGATE_OUT/cargo-build.jsonl" 2> "$SLOPGATE_OUT/cargo-build.err"`;

export function parseLibtestOutput(
  text: string,
  pkgOfUnit: (unit: string) => string = () => 'crate',
): { tests: TestOutcome[]; units: UnitStatus[] } {
  const tests = new Map<string, TestOutcome>();
  const units = new Map<string, UnitStatus>();
  const messages = new Map<string, string>();
  let unit = 'rust:unknown';
  let unitFile: string | undefined;
  let doc = false;
  let capture: string | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const running = /^\s*Running (?:unittests )?(\S+)(?: \((\S+)\))?/.exec(line);
    if (running) {
      const src = running[2] ? running[1]! : running[1]!.replace(/^.*\/deps\//, 'bin:').replace(/-[0-9a-f]{8,}$/, '');
      unit = rustUnitId(src);
      unitFile = running[2] ? src : undefined;
      doc = false;
      units.set(unit, {
        id: unit,
        kind: 'target',
        group: `rust-pkg:${pkgOfUnit(unit)}`,
        status: 'ok',
        ...(unitFile ? { file: unitFile } : {}),
      });
      continue;
    }
    const docTests = /^\s*Doc-tests (\S+)/.exec(line);
    if (docTests) {
      unit = `rust:doc:${docTests[1]}`;
      unitFile = undefined;
      doc = true;
      units.set(unit, { id: unit, kind: 'target', group: `rust-pkg:${docTests[1]!.replace(/_/g, '-')}`, status: 'ok' });
      continue;
    }
    const header = /^---- (.+?) stdout ----$/.exec(line);
    if (header) {
      capture = `${unit}\0${header[1]}`;
      continue;
    }
    if (capture !== null) {
      if (/^(failures:|test result:|---- )/.test(line)) capture = null;
      else {
        messages.set(capture, (messages.get(capture) ?? '') + line + '\n');
        continue;
      }
    }
    const t = /^test (.+?) \.\.\. (ok|FAILED|ignored)\b/.exec(line);
    if (!t) continue;
    const rawName = t[1]!;
    const name = doc ? rawName.replace(/ \(line \d+\)$/, '') : rawName;
    const id = doc ? `rust:doc:${name}` : `${unit}::${name}`;
    const status = t[2] === 'ok' ? 'passed' : t[2] === 'FAILED' ? 'failed' : 'skipped';
    const outcome: TestOutcome = { id, status, unit, ...(doc ? { file: name.split(' - ')[0]! } : unitFile ? { file: unitFile } : {}) };
    tests.set(id, outcome);
    // cast: a private sort key carried on the outcome, removed before it leaves
    if (status === 'failed') (outcome as TestOutcome & { key?: string }).key = `${unit}\0${rawName}`;
  }
  for (const t of tests.values()) {
    const withKey = t as TestOutcome & { key?: string }; // cast: a private sort key carried on the outcome, removed before it leaves
    if (withKey.key) {
      const msg = shortMessage(messages.get(withKey.key));
      if (msg) t.message = msg;
      delete withKey.key;
    }
  }
  return { tests: [...tests.values()], units: [...units.values()] };
}

async function readOr(path: string): Promise<string> {
  try {
    return await readCappedText(path);
  } catch {
    return '';
  }
}

/** CI options (features, --workspace, --locked) as one string with a leading space, or ''. */
function optionString(options: string[]): string {
  return options.length ? ' ' + options.map((o) => (/^[\w./:=,@%+-]+$/.test(o) ? o : shq(o))).join(' ') : '';
}

/** Options for commands that name their package (-p): workspace selection no longer applies. */
function perPackage(options: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < options.length; i++) {
    if (options[i] === '--exclude') i++;
    else if (options[i] !== '--workspace' && !options[i]!.startsWith('--exclude=')) out.push(options[i]!);
  }
  return out;
}

async function runCargo(ctx: RunContext, filters: string[], options: string[], notes: string[]): Promise<RunnerOutput> {
  const opts = optionString(options);
  const b = await ctx.exec(buildCommand(opts));
  const missing = missingToolchain(b, 'cargo');
  const buildErr = await readOr(join(ctx.outDir, 'cargo-build.err'));
  const base: RunnerOutput = {
    tests: [],
    units: [],
    exitCode: b.exitCode,
    outputTail: tailOf(buildErr.trim()),
    ...(b.killedBy ? { killedBy: b.killedBy } : {}),
  };
  if (missing) return { ...base, missingToolchain: missing };
  if (b.killedBy) return base;
  // Dependency resolution fails for the whole workspace before anything compiles.
  const crates = b.exitCode !== 0 ? cargoMissingCrates(buildErr) : [];
  if (crates.length) return { ...base, missingToolchain: cargoMissingReason(crates) };
  if (notes.length) base.notes = notes;
  const build = parseCargoBuild(await readOr(join(ctx.outDir, 'cargo-build.jsonl')), ctx.workdir);
  const extra = filters.length ? ` -- ${filters.map(shq).join(' ')}` : '';
  const cmds =
    build.broken.length === 0
      ? [`${CARGO_COMMAND}${opts}${extra}`]
      : cargoTestCommands(build, `${optionString(perPackage(options))}${extra}`);
  if (cmds.length === 0) return { ...base, units: build.broken };
  // cargo test may still stop at resolution (a dev-dependency the build did not need).
  const script = `: > "$SLOPGATE_OUT/cargo-test.txt"; status=0; ${cmds.map((c) => `${c} >> "$SLOPGATE_OUT/cargo-test.txt" 2>&1 || status=$?`).join('; ')}; exit $status`;
  const r = await ctx.exec(script);
  const text = await readOr(join(ctx.outDir, 'cargo-test.txt'));
  const pkgOf = new Map(build.built.map((t) => [rustUnitId(t.src), t.pkg]));
  const parsed = parseLibtestOutput(text, (u) => pkgOf.get(u) ?? 'crate');
  const units = [...parsed.units.filter((u) => !build.broken.some((x) => x.id === u.id)), ...build.broken];
  const noTests = parsed.tests.length === 0 && build.broken.length === 0 && text.includes('running 0 tests');
  const lateCrates = parsed.tests.length === 0 && r.exitCode !== 0 ? cargoMissingCrates(text) : [];
  if (lateCrates.length)
    return { ...base, exitCode: r.exitCode, outputTail: tailOf(text.trim()), missingToolchain: cargoMissingReason(lateCrates) };
  return {
    ...(notes.length ? { notes } : {}),
    tests: parsed.tests,
    units,
    exitCode: r.exitCode,
    outputTail: tailOf(text.trim()),
    ...(r.killedBy ? { killedBy: r.killedBy } : {}),
    ...(noTests ? { noTests } : {}),
  };
}

export function cargoRunner(options: string[] = [], notes: string[] = [], display = 'cargo test'): Runner {
  return {
    id: 'cargo',
    command: `${CARGO_COMMAND}${optionString(options)}`,
    displayCommand: display,
    run: (ctx) => runCargo(ctx, [], options, notes),
    rerun: (ctx, tests) =>
      runCargo(
        ctx,
        [...new Set(tests.map((t) => (t.id.startsWith('rust:doc:') ? t.id.slice('rust:doc:'.length) : t.id.slice(t.unit.length + 2))))],
        options,
        notes,
      ),
  };
}
