import type { Revision } from '../../core/revision.js';
import { cargoRunner } from './cargo.js';
import { customRunner } from './custom.js';
import { goModulePath, goRunner } from './go.js';
import { exitCodeRunner, jestRunner, nodeTestRunner, nodeTestScriptArgs, vitestRunner } from './node.js';
import { pytestRunner } from './pytest.js';
import type { Runner } from './runner.js';

export type Detection = { runner: Runner } | { skipped: string };

const PYTEST_STRONG = ['pytest.ini', 'conftest.py', 'tox.ini'];
const PYTHON_MARKERS = ['pyproject.toml', 'setup.cfg', 'setup.py', ...PYTEST_STRONG];
const NPM_DEFAULT_TEST = /no test specified/;

function nodeRunner(pkgText: string): Detection {
  let pkg: { scripts?: Record<string, string>; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  try {
    pkg = JSON.parse(pkgText) as typeof pkg;
  } catch {
    return { skipped: 'package.json at the base does not parse, so no test command could be derived from it' };
  }
  const script = pkg.scripts?.test ?? '';
  const deps = { ...pkg.dependencies, ...pkg.devDependencies };
  if (/\bvitest\b/.test(script) || ('vitest' in deps && !/\bjest\b/.test(script))) return { runner: vitestRunner() };
  if (/\bjest\b/.test(script) || 'jest' in deps) return { runner: jestRunner() };
  if (/\bnode\b.*--test\b/.test(script)) return { runner: nodeTestRunner(nodeTestScriptArgs(script) ?? '') };
  if (script && !NPM_DEFAULT_TEST.test(script)) return { runner: exitCodeRunner('npm-test', 'npm test --silent') };
  return { skipped: 'package.json has no test script (and no vitest, jest or node --test setup)' };
}

/**
 * Picks the runner from the BASE tree (so a PR cannot change which command judges it).
 * Order: tests.command from config; pytest (Python markers and Python files); go test (go.mod);
 * cargo test (Cargo.toml); Node (package.json).
 */
export async function detectRunner(base: Revision, configured?: string): Promise<Detection> {
  const goMod = (await base.has('go.mod')) ? ((await base.readText('go.mod')) ?? '') : '';
  if (configured) return { runner: customRunner(configured, goModulePath(goMod)) };
  const paths = await base.paths();
  const has = (p: string) => paths.includes(p);
  const hasPython = paths.some((p) => p.endsWith('.py'));
  if (PYTEST_STRONG.some(has) || (PYTHON_MARKERS.some(has) && hasPython)) return { runner: pytestRunner() };
  if (has('go.mod')) return { runner: goRunner(goModulePath(goMod)) };
  if (has('Cargo.toml')) return { runner: cargoRunner() };
  if (has('package.json')) return nodeRunner((await base.readText('package.json')) ?? '');
  if (PYTHON_MARKERS.some(has)) return { runner: pytestRunner() };
  return { skipped: 'no supported test setup found at the base (pytest, go test, cargo test, vitest, jest, node --test or npm test); set tests.command to run one' };
}
