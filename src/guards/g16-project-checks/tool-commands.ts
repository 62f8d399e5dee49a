import { shq } from '../../testgate/runners/runner.js';
import type { CheckTool } from './discover.js';
import type { ToolEcosystem } from './project-env.js';

/**
 * The project's tools that G16 runs in the sandbox, how each is invoked on the changed files, and how
 * its output is read. Formatters read each file on stdin and print it formatted (one output file per
 * input, so the tree is never rewritten); linters print JSON or their usual lines, one run for all
 * files. Every tool comes from the project's own dependencies: a Python tool from the virtual
 * environment G8 installs, a JavaScript tool from `node_modules/.bin`. One that is not there is not
 * looked for anywhere else: the run exits with {@link MISSING_EXIT}.
 */

export type SandboxedTool = Extract<CheckTool, 'ruff-check' | 'ruff-format' | 'black' | 'prettier' | 'eslint' | 'tsc' | 'go-vet'>;

/** The exit status of a run whose tool is not among the project's dependencies. */
export const MISSING_EXIT = 97;

export const ECOSYSTEM_OF: Record<SandboxedTool, ToolEcosystem> = {
  'ruff-check': 'python',
  'ruff-format': 'python',
  black: 'python',
  prettier: 'node',
  eslint: 'node',
  tsc: 'node',
  'go-vet': 'go',
};

/** The executable of each tool. */
export const BIN_OF: Record<SandboxedTool, string> = {
  'ruff-check': 'ruff',
  'ruff-format': 'ruff',
  black: 'black',
  prettier: 'prettier',
  eslint: 'eslint',
  tsc: 'tsc',
  'go-vet': 'go',
};

export const isFormatter = (t: SandboxedTool): boolean => t === 'ruff-format' || t === 'black' || t === 'prettier';

/** Shell lines that set `$T` to the tool's path in the project's dependencies, or exit with {@link MISSING_EXIT}. */
function locate(tool: SandboxedTool): string {
  const bin = BIN_OF[tool];
  const eco = ECOSYSTEM_OF[tool];
  const where =
    eco === 'python'
      ? // G8's virtual environment; in the Action's prepared environment (no venv), the interpreter's scripts on PATH.
        `if [ -n "$VIRTUAL_ENV" ]; then T="$VIRTUAL_ENV/bin/${bin}"; else T=$(command -v ${bin} 2>/dev/null || true); fi`
      : eco === 'go'
        ? // go vet is the toolchain's, as `go test` is G8's; the module's dependencies are G8's module cache
          `T=$(command -v go 2>/dev/null || true)`
        : `T=./node_modules/.bin/${bin}`;
  return `${where}\nif [ -z "$T" ] || [ ! -x "$T" ]; then echo "slopgate: ${bin} is not installed" >&2; exit ${MISSING_EXIT}; fi`;
}

/** How a formatter prints one file formatted, reading it on stdin (`$F` is its path). */
const STDIN_FORM: Record<string, string> = {
  'ruff-format': '"$T" format --force-exclude --stdin-filename "$F" -',
  black: '"$T" -q --stdin-filename "$F" -',
  prettier: '"$T" --stdin-filepath "$F"',
};

/** The output files a formatter run writes for the i-th file. */
export const outNames = (i: number): [string, string, string] => [`${i}.out`, `${i}.err`, `${i}.rc`];

/** One run of a formatter over `paths`: each file's output, its errors and its exit status go to `$SLOPGATE_OUT`. */
export function formatterCommand(tool: SandboxedTool, paths: string[]): string {
  const lines = [locate(tool)];
  paths.forEach((p, i) => {
    const [out, err, rc] = outNames(i);
    lines.push(
      `F=${shq(p)}; ${STDIN_FORM[tool]!} < "$F" > "$SLOPGATE_OUT/${out}" 2> "$SLOPGATE_OUT/${err}"; echo $? > "$SLOPGATE_OUT/${rc}"`,
    );
  });
  return lines.join('\n');
}

/** `-p X` / `--project X` of a discovered `tsc` line, when it is a plain relative path. */
export function tscProject(line: string): string | null {
  const m = /(?:^|\s)(?:-p|--project)[\s=]+([\w./-]+)/.exec(line);
  return m && !m[1]!.startsWith('/') && !m[1]!.split('/').includes('..') ? m[1]! : null;
}

/** The file a linter's report goes to in `$SLOPGATE_OUT` (read back whole, not through the capped stdout). */
export const LINT_OUT = 'lint.out';

/** One run of a linter over `paths` (tsc checks its whole project; its findings are filtered to `paths` after). */
export function linterCommand(tool: SandboxedTool, paths: string[], project: string | null): string {
  const files = paths.map(shq).join(' ');
  const run: Record<string, string> = {
    // --exit-zero: a finding is not a failure of the run; a configuration error still is (exit 2).
    'ruff-check': `"$T" check --output-format=json --no-fix --force-exclude --exit-zero -- ${files}`,
    eslint: `"$T" --format json -- ${files}`,
    tsc: `"$T" --noEmit --pretty false${project ? ` -p ${shq(project)}` : ''}`,
    // the packages of the changed files; vet prints its diagnostics on stderr
    'go-vet': `"$T" vet ${[...new Set(paths.map(packageOf))].map(shq).join(' ')}`,
  };
  // vet reports on stderr; the others on stdout, with their errors on stderr
  const into = tool === 'go-vet' ? `> "$SLOPGATE_OUT/${LINT_OUT}" 2>&1` : `> "$SLOPGATE_OUT/${LINT_OUT}"`;
  return `${locate(tool)}\n${run[tool]!} ${into}`;
}

/** The package (directory, as `./dir`) of a Go file. */
const packageOf = (p: string) => (p.includes('/') ? `./${p.slice(0, p.lastIndexOf('/'))}` : '.');

/** One thing a linter reports. */
export interface Diagnostic {
  path: string;
  line: number;
  /** The rule (`F401`, `no-unused-vars`, `TS2339`). */
  rule: string;
  message: string;
}

/** Paths as the tools print them, relative to the tree (the sandbox's own path is already removed from the output). */
const relative = (p: string) => p.replace(/^\.\//, '');

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The diagnostics of a linter run, or null when its output is not what the tool prints (it failed).
 * Syntax errors are left out: a file that does not parse is G2's finding.
 */
export function parseDiagnostics(tool: SandboxedTool, stdout: string): Diagnostic[] | null {
  if (tool === 'ruff-check') {
    const v = parseJson(stdout.trim() || '[]');
    if (!Array.isArray(v)) return null;
    const out: Diagnostic[] = [];
    for (const d of v) {
      if (!isObj(d) || typeof d.filename !== 'string' || typeof d.message !== 'string' || !isObj(d.location)) continue;
      // ruff reports a syntax error without a rule code (older versions: E999)
      if (typeof d.code !== 'string' || d.code === 'E999') continue;
      const row = d.location.row;
      if (typeof row !== 'number') continue;
      out.push({ path: relative(d.filename), line: row, rule: d.code, message: d.message });
    }
    return out;
  }
  if (tool === 'eslint') {
    const v = parseJson(stdout.trim());
    if (!Array.isArray(v)) return null;
    const out: Diagnostic[] = [];
    for (const f of v) {
      if (!isObj(f) || typeof f.filePath !== 'string' || !Array.isArray(f.messages)) continue;
      for (const m of f.messages) {
        // errors only (what fails `eslint`); parse errors (fatal, no rule) are G2's
        if (!isObj(m) || m.severity !== 2 || m.fatal === true || typeof m.ruleId !== 'string') continue;
        if (typeof m.line !== 'number' || typeof m.message !== 'string') continue;
        out.push({ path: relative(f.filePath), line: m.line, rule: m.ruleId, message: m.message });
      }
    }
    return out;
  }
  if (tool === 'go-vet') {
    // `calc/calc.go:9:2: fmt.Printf format %d has arg "x" of wrong type string`; `# pkg` headers; type-check
    // errors come as `vet: path:l:c: …` and syntax errors as `expected …`/`syntax error`: the build's, G2's and G8's
    const out: Diagnostic[] = [];
    for (const line of stdout.split('\n')) {
      const m = /^(\S+?\.go):(\d+):(?:\d+:)? (.*)$/.exec(line.trim());
      if (!m || /^(?:expected |syntax error|undefined: |missing return|imported and not used|declared and not used)/.test(m[3]!)) continue;
      out.push({ path: relative(m[1]!), line: Number(m[2]), rule: 'vet', message: m[3]! });
    }
    return out;
  }
  // tsc --pretty false: `path(line,col): error TS1234: message`, continuation lines indented
  const out: Diagnostic[] = [];
  let last: Diagnostic | null = null;
  let any = false;
  for (const line of stdout.split('\n')) {
    const m = /^(.+?)\((\d+),\d+\): error (TS\d+): (.*)$/.exec(line);
    if (m) {
      any = true;
      last = { path: relative(m[1]!), line: Number(m[2]), rule: m[3]!, message: m[4]! };
      // TS1xxx are syntax errors: G2's
      if (!/^TS1\d{3}$/.test(m[3]!)) out.push(last);
      else last = null;
    } else if (last && /^\s+\S/.test(line)) last.message += ` ${line.trim()}`;
    else if (/^error TS\d+:/.test(line)) return null; // a project-level error: the configuration, not the code
  }
  return any || stdout.trim() === '' ? out : null;
}
