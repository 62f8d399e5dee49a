import { z } from 'zod';
import { jsonObject } from '../../core/parse-data.js';
import type { Revision } from '../../core/revision.js';
import { findCiTestCommands, type CiTestCommand } from '../ci-test-command.js';
import { readPythonProject } from '../python-project.js';
import { cargoRunner } from './cargo.js';
import { cargoCiArgs, goCiArgs, pytestCiArgs, type MergedArgs } from './ci-args.js';
import { customRunner } from './custom.js';
import { goModulePath, goRunner } from './go.js';
import { gradleSkip } from './gradle.js';
import { mavenRunner } from './maven.js';
import { exitCodeRunner, jestRunner, nodeTestRunner, nodeTestScriptArgs, vitestRunner } from './node.js';
import { pytestRunner } from './pytest.js';
import type { Runner } from './runner.js';
import type { RunnerId } from '../../core/suite-result.js';

export type Detection = { runner: Runner } | { skipped: string };

/**
 * Whether a detection skip means the tree has no test setup at all (nothing was expected to run), as
 * opposed to one slopgate found and cannot run (a Gradle build, a package.json that does not parse).
 */
export function noTestSetup(skipped: string): boolean {
  return /^no supported test setup found|^package\.json has no test script/.test(skipped);
}

const PYTEST_STRONG = ['pytest.ini', 'conftest.py', 'tox.ini'];
const PYTHON_MARKERS = ['pyproject.toml', 'setup.cfg', 'setup.py', ...PYTEST_STRONG];
/** A file pytest collects by its default naming (`test_*.py`, `*_test.py`), outside vendored trees. */
function isPytestFile(path: string): boolean {
  if (/(^|\/)(node_modules|\.venv|venv|site-packages|\.tox)\//.test(path)) return false;
  return /(^|\/)(test_[^/]*|[^/]*_test)\.py$/.test(path);
}
/** What `npm init` writes as the test script: not a test suite. */
const NPM_DEFAULT_TEST = 'no test specified';

/** What the runner choice reads of package.json: the test script and the names of the dependencies (a field of another type reads as absent). */
const packageJson = z.object({
  scripts: z
    .object({ test: z.string().optional().catch(undefined) })
    .optional()
    .catch(undefined),
  dependencies: jsonObject.optional().catch(undefined),
  devDependencies: jsonObject.optional().catch(undefined),
});

function nodeRunner(pkgText: string, ci: CiTestCommand[], up?: string): Detection {
  let value: unknown;
  try {
    value = JSON.parse(pkgText);
  } catch {
    return { skipped: 'package.json at the base does not parse, so no test command could be derived from it' };
  }
  const parsed = packageJson.safeParse(value);
  if (!parsed.success) return { skipped: 'package.json at the base is not a JSON object, so no test command could be derived from it' };
  const pkg = parsed.data;
  const script = pkg.scripts?.test ?? '';
  const deps = { ...pkg.dependencies, ...pkg.devDependencies };
  // What people run: the CI's own `npx vitest …` line when there is one.
  const ciLine = (kind: CiTestCommand['kind']) => typed(ci.find((c) => c.kind === kind));
  if (/\bvitest\b/.test(script) || ('vitest' in deps && !/\bjest\b/.test(script))) return { runner: vitestRunner(ciLine('vitest'), up) };
  if (/\bjest\b/.test(script) || 'jest' in deps) return { runner: jestRunner(ciLine('jest'), up) };
  if (/\bnode\b.*--test\b/.test(script)) return { runner: nodeTestRunner(nodeTestScriptArgs(script) ?? '') };
  if (script && !script.includes(NPM_DEFAULT_TEST)) return { runner: exitCodeRunner('npm-test', 'npm test --silent', 'npm test') };
  // No test script: CI may still call the runner directly.
  const direct = ci.find((c) => c.kind === 'vitest' || c.kind === 'jest');
  if (direct) return { runner: direct.kind === 'vitest' ? vitestRunner(typed(direct), up) : jestRunner(typed(direct), up) };
  return { skipped: 'package.json has no test script (and no vitest, jest or node --test setup)' };
}

/** A CI command line as quoted in notes (kept short). */
function quoted(c: CiTestCommand): string {
  const line = c.line.length > 160 ? `${c.line.slice(0, 157)}…` : c.line;
  return `\`${line.replace(/`/g, "'")}\` (${c.source})`;
}

/** A CI line as a developer would type it (tox's `{posargs:x}` becomes `x`). */
function typed(cmd: CiTestCommand | undefined): string | undefined {
  if (!cmd) return undefined;
  return cmd.line
    .replace(/\{posargs(?::([^{}]*))?\}/g, (_m, dflt: string | undefined) => dflt ?? '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The first CI command of the given kinds whose arguments can be merged, with a note either way. */
function pickCi(
  ci: CiTestCommand[],
  kinds: CiTestCommand['kind'][],
  mergeArgs: (args: string[]) => MergedArgs | null,
): { cmd?: CiTestCommand; args?: MergedArgs; notes: string[] } {
  const candidates = ci.filter((c) => kinds.includes(c.kind));
  for (const cmd of candidates) {
    const args = mergeArgs(cmd.args);
    if (args) return { cmd, args, notes: [`test command taken from CI: ${quoted(cmd)}`] };
  }
  return candidates.length
    ? { notes: [`the CI test command ${quoted(candidates[0]!)} has options the gate cannot merge safely; its default command ran instead`] }
    : { notes: [] };
}

/**
 * @param bare the tree has no Python project config at all (pytest-named test files only): its tests
 *   can only import the tree's packages the way `python -m pytest` from the root lets them.
 */
async function pythonRunner(base: Revision, ci: CiTestCommand[], bare = false): Promise<Runner> {
  const project = await readPythonProject(base);
  const picked = pickCi(ci, ['pytest', 'python-m-pytest'], pytestCiArgs);
  const notes = [...picked.notes];
  const onPath = new Set((project.pytestPythonpath ?? []).map((p) => p.replace(/^\.\/+/, '').replace(/\/+$/, '')));
  // An install (what CI does before running the tests) puts src/ on the path; the root never.
  const roots = project.installable ? project.packageRoots.filter((r) => !onPath.has(r)) : [];
  if (roots.length) {
    const names = project.packages.length
      ? ` (${project.packages
          .slice(0, 5)
          .map((p) => `\`${p}\``)
          .join(', ')})`
      : '';
    notes.push(
      `\`${roots.join('`, `')}\` is first on the import path, as installing the project puts it, so the tests import this tree's code${names}, never a copy installed elsewhere`,
    );
  }
  // A flat layout that pytest's config does not put on the path is installed in CI: expose its
  // packages alone. With a `pythonpath` setting the project relies on it, and nothing is added.
  const linked = (project.installable || bare) && project.pytestPythonpath === null && roots.length === 0 ? project.flatPackages : [];
  if (linked.length)
    notes.push(
      `the project's package${linked.length === 1 ? '' : 's'} ${linked
        .slice(0, 5)
        .map((p) => `\`${p}\``)
        .join(
          ', ',
        )} ${linked.length === 1 ? 'is' : 'are'} importable as ${bare ? '`python -m pytest` from the root' : 'an install'} makes ${linked.length === 1 ? 'it' : 'them'} (the repository root itself is not on the import path)`,
    );
  return pytestRunner({
    style: picked.cmd?.kind === 'python-m-pytest' ? 'module' : 'console',
    ...(picked.args ? { ci: picked.args } : {}),
    packageRoots: roots,
    linkedPackages: linked,
    packages: project.packages,
    notes,
    ...(picked.cmd ? { display: typed(picked.cmd) } : {}),
  });
}

export interface DetectOptions {
  /** tests.command from config: always wins. */
  command?: string | undefined;
  /** tests.runner from config: this runner with its default command instead of the detected one. */
  runner?: RunnerId | undefined;
  /** For a workspace package: the way from its folder up to the repository root (`../..`), where hoisted tools live. */
  up?: string | undefined;
}

/** The runner tests.runner names, with its default command. */
async function namedRunner(id: RunnerId, base: Revision, goMod: string, up?: string): Promise<Runner> {
  switch (id) {
    case 'pytest':
      return pythonRunner(base, []);
    case 'go':
      return goRunner(goModulePath(goMod), undefined, [], undefined);
    case 'cargo':
      return cargoRunner([], [], undefined);
    case 'maven':
      return mavenRunner();
    case 'vitest':
      return vitestRunner(undefined, up);
    case 'jest':
      return jestRunner(undefined, up);
    case 'node-test':
      return nodeTestRunner('');
    default:
      return exitCodeRunner('npm-test', 'npm test --silent', 'npm test');
  }
}

/**
 * Picks the runner from the BASE tree (so a PR cannot change which command judges it).
 * Order: tests.command from config; tests.runner from config; pytest (Python markers and Python
 * files); go test (go.mod); cargo test (Cargo.toml); Maven (pom.xml); a Gradle build is skipped with
 * its cause; Node (package.json); last, pytest for a tree with no config but pytest-named test files. Within a runner, the repository's own CI test command (workflows,
 * tox.ini, Makefile) supplies the arguments and, for pytest, how it is started.
 */
export async function detectRunner(base: Revision, configured?: string | DetectOptions): Promise<Detection> {
  const opts: DetectOptions = typeof configured === 'string' ? { command: configured } : (configured ?? {});
  const goMod = (await base.has('go.mod')) ? ((await base.readText('go.mod')) ?? '') : '';
  if (opts.command) return { runner: customRunner(opts.command, goModulePath(goMod)) };
  if (opts.runner && opts.runner !== 'custom') return { runner: await namedRunner(opts.runner, base, goMod, opts.up) };
  const paths = await base.paths();
  const has = (p: string) => paths.includes(p);
  const hasPython = paths.some((p) => p.endsWith('.py'));
  const ci = await findCiTestCommands(base).catch((): CiTestCommand[] => []);
  if (PYTEST_STRONG.some(has) || (PYTHON_MARKERS.some(has) && hasPython)) return { runner: await pythonRunner(base, ci) };
  if (has('go.mod')) {
    const picked = pickCi(ci, ['go'], goCiArgs);
    return { runner: goRunner(goModulePath(goMod), picked.args, picked.notes, typed(picked.cmd)) };
  }
  if (has('Cargo.toml')) {
    const picked = pickCi(ci, ['cargo'], cargoCiArgs);
    return { runner: cargoRunner(picked.args?.options ?? [], picked.notes, typed(picked.cmd)) };
  }
  if (has('pom.xml')) return { runner: mavenRunner() };
  const gradle = gradleSkip(paths);
  if (gradle) return { skipped: gradle };
  if (has('package.json')) return nodeRunner((await base.readText('package.json')) ?? '', ci, opts.up);
  if (PYTHON_MARKERS.some(has)) return { runner: await pythonRunner(base, ci) };
  // No config at all, but test files named the way pytest collects them (a small project's `tests/test_x.py`).
  if (paths.some(isPytestFile)) return { runner: await pythonRunner(base, ci, true) };
  return {
    skipped:
      'no supported test setup found at the base (pytest, go test, cargo test, Maven, vitest, jest, node --test or npm test); set tests.command to run one',
  };
}
