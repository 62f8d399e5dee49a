import { createRequire } from 'node:module';
import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import type { GuardContext } from '../../core/guard.js';
import { type RunDeps, runOnSide } from '../../testgate/index.js';
import { shq, type SuiteLimits } from '../../sandbox/index.js';

/**
 * pyright, run in the test gate's sandbox on one side's tree. The tree is the PR's: its symlinks and
 * its own pyright configuration could make a type checker read files of the machine, so it only ever
 * sees the tree inside bubblewrap. slopgate's own copy of pyright (its npm dependency) is bound
 * read-only into the sandbox and run with the toolchain's node; the tree's pyrightconfig.json is
 * replaced by slopgate's (the tree as the project root, basic checking), so that nothing the pull
 * request configures decides what is checked. The Python environment is the virtual environment G8
 * installs (VIRTUAL_ENV), so that third-party types resolve.
 */

/** Where slopgate's pyright is mounted inside the sandbox. */
const PYRIGHT_MOUNT = '/opt/slopgate/pyright';
/** The report file pyright's JSON goes to in `$SLOPGATE_OUT`. */
const REPORT = 'pyright.json';
/** The exit status of a run in which node is not reachable. */
const NO_NODE_EXIT = 97;

/** The configuration slopgate writes over the tree's own: pyright checks with these settings only. */
const CONFIG = {
  typeCheckingMode: 'basic',
  pythonPlatform: 'Linux',
  reportMissingModuleSource: 'none',
  enableTypeIgnoreComments: true,
};

/** The folder of slopgate's installed pyright package (its real path, for the bind), or null when it is not installed. */
export function pyrightPackageDir(): string | null {
  try {
    return realpathSync(dirname(createRequire(import.meta.url).resolve('pyright/package.json')));
  } catch {
    return null;
  }
}

/** The shell command that runs pyright on `paths` (repo-relative) with slopgate's configuration. */
export function pyrightCommand(paths: readonly string[]): string {
  return [
    'N=$(command -v node 2>/dev/null || true)',
    `if [ -z "$N" ]; then echo "slopgate: node is not reachable in the sandbox" >&2; exit ${NO_NODE_EXIT}; fi`,
    // the tree's own configuration never applies: slopgate's replaces it (pyproject.toml's [tool.pyright] yields to it)
    'rm -rf pyrightconfig.json',
    `printf '%s\\n' ${shq(JSON.stringify(CONFIG))} > pyrightconfig.json`,
    'set --',
    'if [ -n "$VIRTUAL_ENV" ] && [ -x "$VIRTUAL_ENV/bin/python" ]; then set -- --pythonpath "$VIRTUAL_ENV/bin/python"; fi',
    // `./` before each path: a file named like an option stays a file
    `"$N" ${PYRIGHT_MOUNT}/index.js --outputjson -p pyrightconfig.json "$@" ${paths.map((p) => shq(`./${p}`)).join(' ')} > "$SLOPGATE_OUT/${REPORT}"`,
  ].join('\n');
}

/** One diagnostic of pyright's JSON report (1-based line). */
export interface PyrightDiagnostic {
  path: string;
  line: number;
  /** 0-based column where the diagnostic's range starts. */
  column: number;
  endLine: number;
  rule: string;
  message: string;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The errors of a `pyright --outputjson` report, or null when the text is not one. Paths are as pyright wrote them. */
export function parsePyrightReport(text: string): PyrightDiagnostic[] | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObj(v) || !Array.isArray(v.generalDiagnostics)) return null;
  const out: PyrightDiagnostic[] = [];
  for (const d of v.generalDiagnostics) {
    if (!isObj(d) || d.severity !== 'error' || typeof d.file !== 'string' || typeof d.message !== 'string') continue;
    if (typeof d.rule !== 'string' || !isObj(d.range) || !isObj(d.range.start) || !isObj(d.range.end)) continue;
    const { line, character } = d.range.start;
    const end = d.range.end.line;
    if (typeof line !== 'number' || typeof character !== 'number' || typeof end !== 'number') continue;
    out.push({ path: d.file.replace(/^\.\//, ''), line: line + 1, column: character, endLine: end + 1, rule: d.rule, message: d.message });
  }
  return out;
}

/** pyright's errors on one side, or why it could not say (a skip's cause, never a finding). */
export type SideRun = { ok: true; diagnostics: PyrightDiagnostic[] } | { ok: false; reason: string };

const firstLine = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean) ?? '';

/** Runs pyright on `paths` of the tree at `sha`, in the sandbox with that side's Python environment. */
export async function runPyright(
  ctx: GuardContext,
  side: 'base' | 'head',
  sha: string,
  deps: RunDeps,
  limits: SuiteLimits,
  paths: readonly string[],
): Promise<SideRun> {
  const pkg = pyrightPackageDir();
  if (!pkg) return { ok: false, reason: "slopgate's pyright package is not installed (npm dependency `pyright`)" };
  const withPyright: RunDeps = { ...deps, binds: [...deps.binds, { src: pkg, dest: PYRIGHT_MOUNT }] };
  const [r] = await runOnSide(
    ctx,
    sha,
    withPyright,
    limits,
    [{ command: pyrightCommand(paths), outNames: [REPORT], scrubOut: true }],
    false,
  );
  if (!r) return { ok: false, reason: `pyright did not run at the ${side}` };
  if (r.killed) return { ok: false, reason: `pyright at the ${side}: ${r.killed}` };
  if (r.exitCode === NO_NODE_EXIT && r.stderr.includes('slopgate:'))
    return { ok: false, reason: 'node, which runs pyright, is not reachable inside the sandbox' };
  const report = r.out.get(REPORT) ?? '';
  // 0: no errors, 1: errors; 2 and above: pyright itself failed (a crash, its configuration, its command line)
  const said = firstLine(r.stderr) || firstLine(r.stdout) || 'no message';
  if (r.exitCode !== 0 && r.exitCode !== 1)
    return { ok: false, reason: `pyright failed at the ${side} (exit ${String(r.exitCode)}): ${said}` };
  const diagnostics = parsePyrightReport(report);
  if (!diagnostics) return { ok: false, reason: `pyright at the ${side} wrote no report: ${said}` };
  return { ok: true, diagnostics };
}
