import { shq } from '../../sandbox/index.js';
import { readClippyCommand } from './clippy-options.js';
import type { CheckTool } from './discover.js';
import { readMypyCommand } from './mypy-options.js';
import type { ToolEcosystem } from '../../testgate/index.js';

/**
 * The project's tools that G16 runs in the sandbox, how each is invoked on the changed files, and how
 * its output is read. Formatters read each file on stdin and print it formatted (one output file per
 * input, so the tree is never rewritten); linters print JSON or their usual lines, one run for all
 * files. Every tool comes from the project's own dependencies: a Python tool from the virtual
 * environment G8 installs, a JavaScript tool from `node_modules/.bin`. One that is not there is not
 * looked for anywhere else: the run exits with {@link MISSING_EXIT}. go vet and clippy are the
 * machine's toolchain's, as G8's `go test` and `cargo test` are.
 */

export type SandboxedTool = Extract<
  CheckTool,
  'ruff-check' | 'ruff-format' | 'black' | 'prettier' | 'eslint' | 'tsc' | 'go-vet' | 'mypy' | 'clippy'
>;

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
  mypy: 'python',
  clippy: 'cargo',
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
  mypy: 'mypy',
  clippy: 'cargo',
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
        : eco === 'cargo'
          ? // cargo is the toolchain's, as G8's `cargo test` is; the crates are G8's vendored copy
            `T=$(command -v cargo 2>/dev/null || true)`
          : `T=./node_modules/.bin/${bin}`;
  const found = `${where}\nif [ -z "$T" ] || [ ! -x "$T" ]; then echo "slopgate: ${bin} is not installed" >&2; exit ${MISSING_EXIT}; fi`;
  // clippy is a rustup component: cargo without it says so (`'cargo-clippy' is not installed for the toolchain …`)
  return tool === 'clippy'
    ? `${found}\nif ! "$T" clippy --version > "$SLOPGATE_OUT/${CLIPPY_PROBE}" 2>&1; then echo "slopgate: clippy is not installed" >&2; exit ${MISSING_EXIT}; fi`
    : found;
}

/** Where the clippy probe's words go when clippy is missing. */
export const CLIPPY_PROBE = 'clippy-version.out';

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

/**
 * mypy's output form by its version: JSON lines from 1.11 on, its usual lines before; no limit on the
 * errors it reports (`--soft-error-limit=-1`, from 1.0), which would otherwise hide some behind unresolved imports.
 */
const MYPY_FORM = [
  'V=$("$T" --version 2>/dev/null)',
  'case "$V" in',
  '  "mypy 0."*) O="" ;;',
  '  "mypy 1."[0-9][!0-9]* | "mypy 1.10"[!0-9]*) O="--soft-error-limit=-1" ;;',
  '  *) O="--soft-error-limit=-1 --output json" ;;',
  'esac',
].join('\n');

/** The words of a command, each quoted for the shell. */
const words = (ws: string[]) => ws.map(shq).join(' ');

/**
 * One run of a linter over `paths` (tsc and clippy check their whole project; their findings are
 * filtered to `paths` after). `args` are the words after the tool in the project's command (mypy, clippy).
 */
export function linterCommand(tool: SandboxedTool, paths: string[], project: string | null, args: string[] = []): string {
  const files = paths.map(shq).join(' ');
  if (tool === 'mypy') {
    // the project's options that change what mypy reports; its configuration it reads itself
    const opts = readMypyCommand(args).options;
    const run = `"$T" $O --no-error-summary --no-pretty --show-error-codes --no-color-output ${opts.length ? `${words(opts)} ` : ''}-- ${files}`;
    return `${locate(tool)}\n${MYPY_FORM}\n${run} > "$SLOPGATE_OUT/${LINT_OUT}"`;
  }
  if (tool === 'clippy') {
    const c = readClippyCommand(args);
    const lints = c.lints.length ? ` -- ${words(c.lints)}` : '';
    // --keep-going: a target that does not compile does not stop the others' lints
    const run = `"$T" clippy --message-format=json --keep-going${c.options.length ? ` ${words(c.options)}` : ''}${lints}`;
    return `${locate(tool)}\n${run} > "$SLOPGATE_OUT/${LINT_OUT}"`;
  }
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
  /** clippy: a lint at level `error` fails `cargo clippy` whatever the command; a `warning` only with `-D warnings`. */
  level?: 'error' | 'warning';
}

/** mypy's error codes that only say a dependency is not installed (or has no types): never a finding. */
const MYPY_MISSING_DEPENDENCY = new Set(['import-not-found', 'import-untyped', 'import']);

/**
 * mypy's errors about values of type `Any` (`--warn-return-any`, `--disallow-subclassing-any`, …
 * under `--strict`): where a dependency is missing, everything imported from it is `Any`, so these
 * may only say that the dependency is not installed here.
 */
const isAboutAny = (code: string, message: string) => code === 'no-any-return' || code === 'no-any-unimported' || /\bAny\b/.test(message);

/**
 * mypy's errors: its JSON lines (1.11+) or its usual `path:line: error: message  [code]` lines.
 * Notes and missing-dependency errors are left out, and syntax errors (G2's); so are errors about
 * `Any` when the run has a missing dependency. Null when nothing of the output is mypy's.
 */
function parseMypy(stdout: string): Diagnostic[] | null {
  const out: (Diagnostic & { aboutAny: boolean })[] = [];
  let any = false;
  let missing = false;
  for (const raw of stdout.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    let d: { path: string; line: number; severity: string; message: string; code: string } | null = null;
    if (line.startsWith('{')) {
      const v = parseJson(line);
      if (isObj(v) && typeof v.file === 'string' && typeof v.line === 'number' && typeof v.message === 'string')
        d = {
          path: v.file,
          line: v.line,
          severity: typeof v.severity === 'string' ? v.severity : 'error',
          message: v.message,
          code: typeof v.code === 'string' ? v.code : '',
        };
    } else {
      const m = /^(.+?):(\d+)(?::\d+)?: (error|note|warning): (.*?)(?: {2}\[([\w-]+)\])?$/.exec(line);
      if (m) d = { path: m[1]!, line: Number(m[2]), severity: m[3]!, message: m[4]!, code: m[5] ?? '' };
    }
    if (!d) continue;
    any = true;
    if (d.severity === 'error' && MYPY_MISSING_DEPENDENCY.has(d.code)) missing = true;
    if (d.severity !== 'error' || MYPY_MISSING_DEPENDENCY.has(d.code) || d.code === 'syntax') continue;
    out.push({ path: relative(d.path), line: d.line, rule: d.code, message: d.message, aboutAny: isAboutAny(d.code, d.message) });
  }
  if (!any && stdout.trim() !== '') return null;
  // with a dependency missing from the run, an error about Any may be its doing, not the code's
  return out.filter((d) => !(missing && d.aboutAny)).map(({ aboutAny: _, ...d }) => d);
}

/**
 * clippy's lints from cargo's JSON messages: warnings and errors with a lint name (`clippy::…` or
 * rustc's own, such as `unused_variables`), at their primary span in the project's files. Compile
 * errors (no code, or `E0308`-like) are the build's (G8's) and G2's; duplicates (a lint seen in the
 * lib and in its test build) count once.
 */
function parseClippy(stdout: string): Diagnostic[] | null {
  const out = new Map<string, Diagnostic>();
  let any = false;
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const v = parseJson(line);
    if (!isObj(v) || typeof v.reason !== 'string') continue;
    any = true;
    const m = v.message;
    if (v.reason !== 'compiler-message' || !isObj(m) || typeof m.message !== 'string') continue;
    const level = m.level;
    const code = isObj(m.code) && typeof m.code.code === 'string' ? m.code.code : null;
    if ((level !== 'warning' && level !== 'error') || code === null || /^E\d{4}$/.test(code)) continue;
    const spans = Array.isArray(m.spans) ? m.spans.filter(isObj) : [];
    const span = spans.find((s) => s.is_primary === true) ?? spans[0];
    if (!span || typeof span.file_name !== 'string' || typeof span.line_start !== 'number') continue;
    // a dependency's file (vendored crates, the toolchain's sources) is not the project's
    if (span.file_name.startsWith('/') || span.file_name.startsWith('<')) continue;
    const d: Diagnostic = { path: relative(span.file_name), line: span.line_start, rule: code, message: m.message, level };
    out.set(`${d.path}\0${d.line}\0${d.rule}\0${d.message}`, d);
  }
  return any || stdout.trim() === '' ? [...out.values()] : null;
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
  if (tool === 'mypy') return parseMypy(stdout);
  if (tool === 'clippy') return parseClippy(stdout);
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
