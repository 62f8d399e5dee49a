import { rm, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { tailOf, shq } from '../../sandbox/index.js';
import type { TestOutcome, UnitStatus } from '../../core/suite-result.js';
import type { MergedArgs } from './ci-args.js';
import { parseJunitXml, readJunitFile } from './junit-xml.js';
import { pythonMissingModule, pythonMissingReason } from './missing-dependency.js';
import { declaredDependency, PY_ORIGINS_PLUGIN, PY_ORIGINS_PLUGIN_NAME, readOrigins, treeHasModule } from './python-origins.js';
import { missingToolchain, shortMessage, type RunContext, type Runner, type RunnerOutput } from './runner.js';

/**
 * pytest with a JUnit XML report (xunit1 family, which carries file and line). Collection errors do
 * not stop the session, so one broken module does not hide every other test.
 * Ids: `py:<file>::<test>` or `py:<file>::<Class>::<test>` (pytest node ids).
 *
 * The code under test is imported as CI imports it:
 * - like the `pytest` console script (`python3 -P -m pytest`): the working directory is NOT put on
 *   `sys.path`, so only pytest's own rules (rootdir/conftest insertion, the `pythonpath` setting)
 *   make the repository's modules importable — a PR that drops `pythonpath = ["."]` breaks here as in
 *   CI. When the repository's CI runs `python -m pytest`, the gate does the same;
 * - in a src layout, `src/` goes first on the import path, as installing the project would put it,
 *   so a copy of the package installed outside the tree is never what gets tested; in a flat layout
 *   without a pytest `pythonpath`, the project's package directories alone are linked into a
 *   directory on the path (the root itself never is, just as with an install);
 * - a small plugin records where the project's own packages were imported from; a package imported
 *   from outside the tree makes the run meaningless, and the run is skipped with that reason.
 */
const REPORT_ARGS = '-q -p no:cacheprovider --continue-on-collection-errors -o junit_family=xunit1 --junitxml="$SLOPGATE_OUT/junit.xml"';

/** Run the pytest entry point without the working directory on sys.path (interpreters before 3.11 lack -P). */
const ENTRY_POINT_NO_CWD = `python3 -c 'import sys; del sys.path[0]; import pytest; sys.exit(getattr(pytest, "console_main", pytest.main)())'`;

/** pytest exit code 5: no tests were collected. */
const NO_TESTS_COLLECTED = 5;

export interface PytestOptions {
  /** `console`: like the `pytest` script (safe path, the default); `module`: like `python -m pytest` (cwd on sys.path). */
  style?: 'console' | 'module';
  /** Arguments of the repository's CI command, already filtered. */
  ci?: MergedArgs;
  /** Repo-relative dirs an install would put on the import path (`src`). */
  packageRoots?: string[];
  /** Flat-layout package dirs to expose alone (linked into `$SLOPGATE_OUT/site`), as an install would. */
  linkedPackages?: string[];
  /** The project's own top-level import names (their import origin is checked). */
  packages?: string[];
  /** Notes about how the command was chosen (shown in the report). */
  notes?: string[];
  /** The project's own command (the CI line), shown to people; default `pytest` or `python -m pytest`. */
  display?: string;
}

function moduleFileOf(dotted: string): string {
  return dotted.replace(/\./g, '/') + '.py';
}

/** The `E   …` lines of a collection error (the actual exception), else its first lines. */
function collectionError(text: string): string {
  const body = text.replace(/^collection failure\n?/, '');
  const e = body
    .split('\n')
    .filter((l) => /^E\s/.test(l))
    .map((l) => l.replace(/^E\s+/, ''));
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
      units.set(`py:${file}`, {
        id: `py:${file}`,
        kind: 'module',
        group: `py:${file}`,
        status: 'broken',
        file,
        message: collectionError(c.errorMessage),
      });
      continue;
    }
    const modulePath = c.file ? c.file.replace(/\.py$/, '').replace(/\//g, '.') : '';
    const file =
      c.file ??
      moduleFileOf(
        c.classname
          .split('.')
          .filter((p) => !/^[A-Z]/.test(p))
          .join('.'),
      );
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

/** Builds the shell command for one run; `targets` are node ids (re-runs) or the CI's own paths. */
export function pytestCommand(opts: PytestOptions, targets: string[] | null, legacyPython = false): string {
  const env: string[] = [];
  const links = opts.linkedPackages ?? [];
  const path = [...(opts.packageRoots ?? []).map((r) => `$PWD/${r}`), ...(links.length ? ['$SLOPGATE_OUT/site'] : []), '$SLOPGATE_OUT/py'];
  const prelude = links.length
    ? `mkdir -p "$SLOPGATE_OUT/site" && ${links.map((p) => `ln -sfn "$PWD/${p}" "$SLOPGATE_OUT/site/${p}"`).join(' && ')} && `
    : '';
  env.push(`PYTHONPATH="${path.join(':')}"`);
  if (opts.packages?.length) env.push(`SLOPGATE_PY_PACKAGES=${shq(opts.packages.join(','))}`);
  const python = opts.style === 'module' ? 'python3 -m pytest' : legacyPython ? ENTRY_POINT_NO_CWD : 'python3 -P -m pytest';
  const ci = opts.ci
    ? [...opts.ci.options, ...(targets ? [] : opts.ci.positional)].map((a) => (/^[\w./:=,@%+-]+$/.test(a) ? a : shq(a)))
    : [];
  const picked = (targets ?? []).map(shq);
  return prelude + [...env, python, ...ci, `-p ${PY_ORIGINS_PLUGIN_NAME}`, REPORT_ARGS, ...picked].join(' ');
}

/** Python before 3.11 rejects `-P`. */
function unknownSafePathOption(text: string): boolean {
  return /Unknown option:? -P|unknown option -P/i.test(text);
}

async function runPytest(ctx: RunContext, opts: PytestOptions, targets: string[] | null): Promise<RunnerOutput> {
  await mkdir(join(ctx.outDir, 'py'), { recursive: true });
  await writeFile(join(ctx.outDir, 'py', `${PY_ORIGINS_PLUGIN_NAME}.py`), PY_ORIGINS_PLUGIN);
  await rm(join(ctx.outDir, 'junit.xml'), { force: true });
  await rm(join(ctx.outDir, 'py-origins.json'), { force: true });
  let r = await ctx.exec(pytestCommand(opts, targets));
  if (r.exitCode === 2 && unknownSafePathOption(`${r.stdout}\n${r.stderr}`)) r = await ctx.exec(pytestCommand(opts, targets, true));
  const notes = [...(opts.notes ?? [])];
  const out: RunnerOutput = {
    tests: [],
    units: [],
    exitCode: r.exitCode,
    outputTail: tailOf(`${r.stdout}\n${r.stderr}`.trim()),
    ...(r.killedBy ? { killedBy: r.killedBy } : {}),
  };
  const missing = missingToolchain(r, 'pytest', [/No module named pytest/]);
  if (missing) return { ...out, missingToolchain: missing };

  const origins = await readOrigins(join(ctx.outDir, 'py-origins.json'));
  const foreign = origins.filter((o) => o.imported && !o.inTree);
  if (foreign.length) {
    const what = foreign.map((o) => `\`${o.name}\` from ${o.file ?? 'an unknown place'}`).join(', ');
    return {
      ...out,
      missingToolchain: `pytest imported the project's own package ${what}, outside the repository, so the tests ran against that copy and not against this tree's code; install the project in the sandbox as CI does (tests.setup, e.g. \`pip install --user --no-deps -e .\`) or make it importable through pytest's \`pythonpath\` setting`,
    };
  }
  for (const o of origins.filter((x) => !x.imported && x.file && !x.inTree)) {
    notes.push(`a copy of \`${o.name}\` is installed outside the repository (${o.file}); the tests did not import it`);
  }
  for (const o of origins.filter((x) => x.inTree && x.outside)) {
    notes.push(`another copy of \`${o.name}\` is installed outside the repository (${o.outside}); the tests imported this tree's`);
  }
  const withNotes = (o: RunnerOutput): RunnerOutput => (notes.length ? { ...o, notes } : o);

  if (r.exitCode === NO_TESTS_COLLECTED) return withNotes({ ...out, noTests: true });
  let parsed: { tests: TestOutcome[]; units: UnitStatus[] };
  try {
    parsed = parsePytestJunit(await readJunitFile(join(ctx.outDir, 'junit.xml')));
  } catch {
    return withNotes(out); // no report, or not parseable
  }
  // Every test module fails to import something that is not part of the repository but is declared
  // as a dependency: the sandbox lacks it, the PR did not break it.
  const broken = parsed.units.filter((u) => u.status === 'broken');
  if (targets === null && parsed.tests.length === 0 && broken.length > 0) {
    const missingMods = broken.map((u) => pythonMissingModule(u.message));
    if (missingMods.every((m): m is string => m !== null)) {
      const external: string[] = [];
      for (const m of new Set(missingMods))
        if (!(await treeHasModule(ctx.workdir, m)) && (await declaredDependency(ctx.workdir, m))) external.push(m);
      if (external.length === new Set(missingMods).size)
        return withNotes({ ...out, ...parsed, missingToolchain: pythonMissingReason(external) });
    }
  }
  return withNotes({ ...out, ...parsed });
}

export function pytestRunner(opts: PytestOptions = {}): Runner {
  return {
    id: 'pytest',
    command: pytestCommand(opts, null),
    displayCommand: opts.display ?? (opts.style === 'module' ? 'python -m pytest' : 'pytest'),
    run: (ctx) => runPytest(ctx, opts, null),
    rerun: (ctx, tests) =>
      runPytest(
        ctx,
        opts,
        tests.map((t) => t.id.replace(/^py:/, '')),
      ),
  };
}
