import { treeHasModule } from './python-origins.js';

/**
 * Why a test command stopped before it produced any result, read from the end of its output: the
 * module that is not installed, the option pytest rejects, the command that is not there, the
 * toolchain that is too old, the dependency a build tool cannot resolve. The words are for the
 * maintainer who reads the skip or the finding: what is wrong and what to do, never a bare exit code.
 * Where no known shape is found, the last lines of the output are quoted instead.
 */

export interface FailureCause {
  /** What stopped the command, as a clause (no final period), e.g. "`conftest.py` imports `x`, …". */
  what: string;
  /** What to do about it, when there is a known remedy. */
  remedy?: string;
}

/** Output text is PR-controlled: at most this much of one quoted line is kept. */
const MAX_QUOTED = 200;
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/g;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

function clean(text: string): string {
  return text.replace(ANSI, '').replace(/\r\n?/g, '\n').replace(CONTROL, '');
}

/**
 * A one-line code span around untrusted text, as the reporters read them: a backtick run one longer
 * than any inside, padded when the text starts or ends with a backtick (CommonMark strips the pad).
 */
export function quoteCode(text: string): string {
  let body = clean(text).replace(/\s+/g, ' ').trim();
  if (body.length > MAX_QUOTED) body = `${body.slice(0, MAX_QUOTED - 1)}…`;
  if (!body) return '';
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = body.startsWith('`') || body.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

/** A name the tools printed (module, package, command): quoted only when it looks like one. */
function name(text: string): string {
  return /^[\w@./+:=<>~-]{1,120}$/.test(text) ? `\`${text}\`` : quoteCode(text);
}

/** Names joined for a sentence: `a`, `b` and `c`. */
function names(list: string[]): string {
  const shown = list.map(name);
  return shown.length <= 1 ? (shown[0] ?? '') : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}

/** The last `max` non-empty lines of the output, each quoted, joined with ⏎. */
export function lastLines(output: string, max = 3): string {
  const lines = clean(output)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^\[… \d+ (chars|bytes) (before|truncated)\]$/.test(l));
  return lines.slice(-max).map(quoteCode).filter(Boolean).join(' ⏎ ');
}

/** How to provide Python packages the sandbox lacks (`what`: the words for them, e.g. `it`, `them`, `the plugin`). */
function pyInstall(what = 'it', plural = false): string {
  const it = plural ? 'them' : 'it';
  return `declare ${what} in the project\u2019s test dependencies (a \`test\` or \`dev\` extra or dependency group, or a requirements file its CI installs) so that the gate\u2019s dependency install provides ${it}, or install ${it} in tests.setup (with tests.network: true)`;
}
const PY_INSTALL = pyInstall();

/** pytest options that belong to a plugin, and the plugin. */
const PYTEST_PLUGIN_OPTIONS: [RegExp, string][] = [
  [/^--(no-)?cov\b/, 'pytest-cov'],
  [/^--timeout\b/, 'pytest-timeout'],
  [/^(-n|--numprocesses|--dist|--maxprocesses)\b/, 'pytest-xdist'],
  [/^--(reruns|reruns-delay|only-rerun)\b/, 'pytest-rerunfailures'],
  [/^--benchmark-/, 'pytest-benchmark'],
  [/^--asyncio-mode\b/, 'pytest-asyncio'],
  [/^--(ds|dc|reuse-db|create-db|nomigrations|migrations)\b/, 'pytest-django'],
  [/^--(randomly-seed|randomly-dont-reorganize)\b/, 'pytest-randomly'],
  [/^--(html|self-contained-html)\b/, 'pytest-html'],
  [/^--(mypy)\b/, 'pytest-mypy'],
  [/^--snapshot-update\b/, 'syrupy'],
  [/^--hypothesis-/, 'hypothesis'],
];

/** pytest ini options that belong to a plugin (reported as unknown with --strict-config). */
const PYTEST_PLUGIN_INI: Record<string, string> = {
  asyncio_mode: 'pytest-asyncio',
  asyncio_default_fixture_loop_scope: 'pytest-asyncio',
  DJANGO_SETTINGS_MODULE: 'pytest-django',
  django_find_project: 'pytest-django',
  timeout: 'pytest-timeout',
  env: 'pytest-env',
  mock_use_standalone_module: 'pytest-mock',
};

function pytestPluginsFor(args: string[]): string[] {
  const out = new Set<string>();
  for (const a of args) for (const [re, plugin] of PYTEST_PLUGIN_OPTIONS) if (re.test(a)) out.add(plugin);
  return [...out];
}

const PY_OWN =
  'make it importable as CI does: install the project, or put its directory on the import path with pytest\u2019s `pythonpath` setting';

/** A module pytest could not import: a dependency the sandbox lacks, or (when `own`) the repository's own package. */
function pythonModuleCause(prefix: string, mod: string, own: ReadonlySet<string>): FailureCause {
  return own.has(mod)
    ? {
        what: `${prefix}${name(mod)}, a package of this repository that is not importable in the sandbox`,
        remedy: PY_OWN,
      }
    : { what: `${prefix}${name(mod)}, which is not installed in the sandbox`, remedy: PY_INSTALL };
}

const PY_MISSING = /(?:ModuleNotFoundError|ImportError): No module named '([\w.]+)'/;

/** Top-level Python modules the output says could not be imported (to be checked against the tree). */
export function pythonModulesNamed(output: string): string[] {
  return [...new Set([...clean(output).matchAll(new RegExp(PY_MISSING.source, 'g'))].map((m) => m[1]!.split('.')[0]!))];
}

function pythonCause(text: string, own: ReadonlySet<string>): FailureCause | null {
  const conftest = /ImportError while loading conftest '([^'\n]+)'/.exec(text);
  if (conftest) {
    const file = conftest[1]!;
    const missing = PY_MISSING.exec(text.slice(conftest.index));
    if (missing) return pythonModuleCause(`${name(file)} imports `, missing[1]!.split('.')[0]!, own);
    const e = /^E\s+(\w*Error: .+)$/m.exec(text.slice(conftest.index));
    return { what: `${name(file)} fails to import${e ? `: ${quoteCode(e[1]!)}` : ''}` };
  }
  const plugin = /Error importing plugin "([^"\n]+)": No module named '([\w.]+)'/.exec(text);
  if (plugin)
    return {
      what: `the pytest plugin ${name(plugin[1]!)} (loaded with \`-p\`) is not installed in the sandbox`,
      remedy: pyInstall('the plugin'),
    };
  const usage = /error: unrecognized arguments: (.+)/.exec(text);
  if (usage) {
    const args = usage[1]!.trim().split(/\s+/);
    const plugins = pytestPluginsFor(args);
    const fromIni = /^\s*inifile: (\S+)/m.exec(text)?.[1];
    const where = fromIni ? ` (its \`addopts\` come from ${name(fromIni)})` : '';
    if (plugins.length)
      return {
        what: `pytest rejects ${quoteCode(args.join(' '))}${where}: ${plugins.length === 1 ? 'an option' : 'options'} of ${names(plugins)}, which ${plugins.length === 1 ? 'is' : 'are'} not installed in the sandbox`,
        remedy: plugins.length === 1 ? PY_INSTALL : pyInstall('them', true),
      };
    return { what: `pytest rejects ${quoteCode(args.join(' '))}${where} (unrecognized arguments)` };
  }
  const required = /ERROR: Missing required plugins: (.+)/.exec(text);
  if (required) {
    const list = required[1]!.split(/,\s*/).map((s) => s.trim());
    return {
      what: `pytest's \`required_plugins\` setting names ${names(list)}, which the sandbox lacks`,
      remedy: list.length === 1 ? PY_INSTALL : pyInstall('them', true),
    };
  }
  const minversion = /'minversion' requires pytest-([\w.]+), actual pytest-([\w.]+)/.exec(text);
  if (minversion)
    return {
      what: `the project needs pytest ${minversion[1]} or newer (\`minversion\`) and the sandbox has pytest ${minversion[2]}`,
      remedy:
        'declare pytest in the project\u2019s test dependencies so that its own version is installed, or install pytest in tests.setup',
    };
  const unknownIni = /ERROR: Unknown config option: (\S+)/.exec(text);
  if (unknownIni) {
    const plugin = PYTEST_PLUGIN_INI[unknownIni[1]!];
    return plugin
      ? {
          what: `pytest does not know the setting ${name(unknownIni[1]!)} (it belongs to ${name(plugin)}, which is not installed in the sandbox) and --strict-config makes that an error`,
          remedy: PY_INSTALL,
        }
      : { what: `pytest stops at an unknown setting: ${quoteCode(unknownIni[0].slice('ERROR: '.length))}` };
  }
  const missing = PY_MISSING.exec(text);
  if (missing) return pythonModuleCause('the tests import ', missing[1]!.split('.')[0]!, own);
  const pytestError = /^ERROR: (.+)$/m.exec(text);
  if (pytestError) return { what: `it stops with ${quoteCode(pytestError[0])}` };
  return null;
}

const NODE_INSTALL =
  'make sure it is in package.json (dependencies or devDependencies) so that the gate\u2019s dependency install provides it, or install the dependencies in tests.setup (e.g. `npm ci`, with tests.network: true)';

/** `lodash/fp` → `lodash`, `@scope/pkg/x` → `@scope/pkg`. */
function packageOf(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

function nodeCause(text: string): FailureCause | null {
  // ESM says `Cannot find package 'x'` for a package and `Cannot find module '<path>'` for a file; CommonJS
  // says `Cannot find module 'x'` for both, with the specifier as written (`./x` for a file).
  const esm = /Cannot find (package|module) '([^'\n]+)' imported from (\S+)/.exec(text);
  const cjs = esm ? null : /Error: Cannot find module '([^'\n]+)'/.exec(text);
  const spec = esm?.[2] ?? cjs?.[1];
  if (spec === undefined) return null;
  if (esm ? esm[1] === 'module' : /^(\.|\/|[A-Za-z]:\\)/.test(spec)) {
    const from = esm?.[3] ? ` (imported from ${quoteCode(esm[3].replace(/^file:\/\//, ''))})` : '';
    return { what: `Node cannot find the file ${quoteCode(spec)}${from}` };
  }
  const pkg = packageOf(spec);
  return {
    what: `${name(pkg)} is not installed in the sandbox (Cannot find module '${spec}')`,
    remedy: NODE_INSTALL.replace('make sure it', `make sure ${name(pkg)}`),
  };
}

/** `sh: 1: mocha: not found`, `bash: line 1: mocha: command not found`, `/usr/bin/env: 'node': No such file or directory`. */
export function commandNotFound(output: string): string | null {
  const text = clean(output);
  const sh = /(?:^|\n)\S*(?:sh|bash|zsh)(?:: line \d+|: \d+)?: ([^\s:'"`]+): (?:command )?not found[ \t]*(?:\n|$)/.exec(text);
  if (sh) return sh[1]!;
  const env = /(?:^|\n)\S*env: '?([^\s:'"`]+)'?: No such file or directory/.exec(text);
  return env ? env[1]! : null;
}

/** A command the shell could not find, as a reason with its remedy (null when the output names none). */
export function commandNotFoundReason(output: string): string | null {
  const cause = commandCause(clean(output));
  return cause ? causeText(cause) : null;
}

function commandCause(text: string): FailureCause | null {
  const cmd = commandNotFound(text);
  if (!cmd) return null;
  return {
    what: `the command ${name(cmd)} is not installed in the sandbox (${quoteCode(`${cmd}: not found`)})`,
    remedy:
      'install it with the project\u2019s dependencies (for a tool an npm script calls, a devDependency), or in tests.setup; if it is a system tool, the machine that runs slopgate needs it',
  };
}

function goCause(text: string): FailureCause | null {
  const tooNew = /go: (?:go\.mod|[\w./-]+@\S+) requires go >= ([\w.]+) \(running go ([\w.]+)/.exec(text);
  if (tooNew)
    return {
      what: `the project needs Go ${tooNew[1]} or newer (go.mod) and the sandbox has go ${tooNew[2]}`,
      remedy: 'install that Go version on the machine that runs slopgate (the sandbox uses the local toolchain and never downloads one)',
    };
  const sum = /missing go\.sum entry (?:for module providing package ([^\s;:(]+)|for go\.mod file)/.exec(text);
  if (sum)
    return {
      what: sum[1] ? `go.sum has no entry for the module providing ${name(sum[1])}` : 'go.sum lacks an entry go.mod needs',
      remedy: 'run `go mod tidy` and commit go.sum',
    };
  const provide = /cannot find module providing package ([^\s:]+)/.exec(text);
  if (provide)
    return {
      what: `no module in the sandbox provides the package ${name(provide[1]!)}`,
      remedy:
        'require its module in go.mod (`go get`), and let the gate\u2019s dependency install fetch it, or vendor it (`go mod vendor`)',
    };
  if (text.includes('go: updates to go.mod needed'))
    return { what: 'go.mod is not up to date (`go: updates to go.mod needed`)', remedy: 'run `go mod tidy` and commit go.mod and go.sum' };
  return null;
}

function cargoCause(text: string): FailureCause | null {
  const rustc = /error: rustc ([\w.-]+) is not supported by the following package[^\n]*\n\s*(\S+) requires rustc ([\w.-]+)/.exec(text);
  if (rustc)
    return {
      what: `${name(rustc[2]!)} needs rustc ${rustc[3]} or newer (\`rust-version\`) and the sandbox has rustc ${rustc[1]}`,
      remedy: 'install that Rust toolchain on the machine that runs slopgate',
    };
  const crate = /error: no matching package named `([^`]+)` found/.exec(text);
  if (crate)
    return {
      what: `cargo cannot resolve the crate ${name(crate[1]!)} (no network in the sandbox, and cargo's registry cache lacks it)`,
      remedy:
        'let the gate\u2019s dependency install fetch it, run `cargo fetch` in tests.setup with tests.network: true, or vendor it (`cargo vendor`)',
    };
  const failed = /^error: (failed to [^\n]+)/m.exec(text);
  if (failed) {
    const causes = [...text.slice(failed.index).matchAll(/Caused by:\s*\n\s*([^\n]+)/g)].map((c) => c[1]!);
    const last = causes.at(-1);
    return { what: `cargo stops: ${quoteCode(failed[1]!)}${last ? `, caused by ${quoteCode(last)}` : ''}` };
  }
  return null;
}

function mavenCause(text: string): FailureCause | null {
  const deps = /Could not resolve dependencies for project ([^:\s]+:[^:\s]+)[^\n]*/.exec(text);
  const plugin = /Plugin (\S+) or one of its dependencies could not be resolved[^\n]*/.exec(text);
  const line = deps?.[0] ?? plugin?.[0];
  if (line === undefined) return null;
  const artifact = /the artifact (\S+) has not been downloaded|Could not (?:transfer|find) artifact (\S+)/.exec(line);
  const art = artifact?.[1] ?? artifact?.[2];
  const offline = /offline|transfer failed|Unknown host|Network is unreachable|Connection refused/i.test(line);
  const what = deps
    ? `Maven cannot resolve the dependencies of ${name(deps[1]!)}${art ? ` (${name(art)})` : ''}`
    : `Maven cannot resolve the plugin ${name(plugin?.[1] ?? '')}`;
  return {
    what: `${what}${offline ? ': it is not in the local repository and the sandbox has no network' : ''}`,
    remedy: 'let the gate\u2019s dependency install fetch them, or run `mvn dependency:go-offline` in tests.setup with tests.network: true',
  };
}

/**
 * The cause of a run that produced no results, when the output shows a known one. `ownModules`: the
 * Python modules named in the output that are part of the repository (see {@link pythonModulesNamed}).
 */
export function failureCause(output: string, ownModules: ReadonlySet<string> = new Set()): FailureCause | null {
  const text = clean(output);
  return pythonCause(text, ownModules) ?? nodeCause(text) ?? commandCause(text) ?? goCause(text) ?? cargoCause(text) ?? mavenCause(text);
}

/** A cause as one clause: what, then `; ` and the remedy (a title keeps what is before the first `; `). */
export function causeText(cause: FailureCause): string {
  return cause.remedy ? `${cause.what}; ${cause.remedy}` : cause.what;
}

/**
 * Why a run produced no results, in words: the known cause, else the exit code together with the
 * last lines of the output (never the exit code alone). `exitCodeOnly`: the runner only knows the
 * exit code, so failing tests and a suite that never started look the same.
 */
export function describeNoResults(
  output: string,
  exitCode: number | null,
  opts: { exitCodeOnly?: boolean; ownModules?: ReadonlySet<string> } = {},
): string {
  const cause = failureCause(output, opts.ownModules);
  if (cause) return causeText(cause);
  const code = exitCode === null ? 'no exit code' : `exit ${exitCode}`;
  const tail = lastLines(output);
  const what = opts.exitCodeOnly ? `the command fails (${code}) and reports only its exit code` : `${code} without test results`;
  // No `; ` before the quoted lines: a title cut at the first `; ` (before a remedy) keeps them.
  return tail ? `${what} \u2014 its output ends with ${tail}` : `${what}, and it printed nothing`;
}

/** Why a command that is not the test command (tests.setup) failed: the known cause, else its exit code and last lines. */
export function describeCommandFailure(output: string, exitCode: number | null): string {
  const cause = failureCause(output);
  if (cause) return causeText(cause);
  const tail = lastLines(output);
  const code = exitCode === null ? 'it did not exit normally' : `it exits with code ${exitCode}`;
  return tail ? `${code} \u2014 its output ends with ${tail}` : `${code} and prints nothing`;
}

/**
 * {@link describeNoResults} for a run whose tree is still on disk: a Python module the output names is
 * checked against the tree, so the repository's own package is never called "not installed".
 */
export async function explainNoResults(
  run: { outputTail: string; exitCode: number | null; exitCodeOnly?: boolean },
  workdir: string,
): Promise<string> {
  const own = new Set<string>();
  for (const mod of pythonModulesNamed(run.outputTail).slice(0, 5)) if (await treeHasModule(workdir, mod)) own.add(mod);
  return describeNoResults(run.outputTail, run.exitCode, { exitCodeOnly: run.exitCodeOnly ?? false, ownModules: own });
}
