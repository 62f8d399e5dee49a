import { parse as parseYaml } from 'yaml';
import { isRecord } from '../../core/is-record.js';
import { readIni } from '../../repo/manifests/ini-read.js';
import { readClippyCommand, rustflagsDenyWarnings } from './clippy-options.js';
import { MYPY_CONFIG_FILES, mypyConfigOf, readMypyCommand } from './mypy-options.js';

/**
 * Which format, lint and type checks a repository enforces, read from its base tree: GitHub Actions
 * workflows (`run:` lines and a few well-known actions), `.pre-commit-config.yaml`, package.json
 * scripts, the Makefile and tox.ini. Pure: it reads texts and runs nothing.
 *
 * Every place a command can live is a *unit* (`workflow`, `make:lint`, `npm:lint`, `tox:lint`,
 * `pre-commit`). A unit's lines may call other units (`make lint`, `npm run lint`, `tox -e lint`,
 * `pre-commit run`); a check is "in CI" when its unit is reached from a workflow (or pre-commit runs
 * as pre-commit.ci, which a top-level `ci:` key in its config declares).
 */

export type CheckTool =
  'gofmt' | 'go-vet' | 'rustfmt' | 'ruff-check' | 'ruff-format' | 'black' | 'prettier' | 'eslint' | 'tsc' | 'mypy' | 'clippy';

export interface DiscoveredCheck {
  tool: CheckTool;
  /** The file it was found in (`.github/workflows/ci.yml`, `Makefile`, …). */
  source: string;
  /** The command line (or hook id) as written there. */
  line: string;
  /** The form fails on a finding (`gofmt -l`, `--check`, a pre-commit hook), not only rewrites files. */
  enforced: boolean;
  /** Its unit is run by the repository's CI. */
  inCi: boolean;
  /**
   * The paths or globs the command names (`prettier --check src`, `eslint 'lib/**'`), relative to
   * the repository root; absent when it checks everything (`.`, nothing named) or cannot be read.
   * For mypy without paths on its command line, the `files` of its configuration.
   */
  paths?: string[];
  /**
   * mypy and clippy: the words after the tool (`mypy --strict src` → `--strict src`; `cargo clippy
   * --all-targets -- -D warnings` → the words after `clippy`), a hook's `args` or an action's `args`.
   * clippy's `enforced` says whether warnings fail the run (`-D warnings` there or in `RUSTFLAGS`).
   */
  args?: string[];
  /**
   * mypy: the `exclude` patterns of its command line and configuration (Python regular expressions);
   * a formatter a linter runs: the files the linter leaves out (golangci-lint's `tests: false`).
   */
  exclude?: string[];
  /** mypy: the configuration file it reads (`pyproject.toml`, `mypy.ini`, …), when there is one. */
  config?: string;
  /**
   * Why CI runs it without a failure failing the pull request's checks (`continue-on-error: true`,
   * a command ending in `|| true`, a job that does not run on pull requests), naming the step read.
   */
  lenient?: string;
  /** The Go and Rust releases the check's workflow job installs (see tool-versions.ts). */
  pins?: Pins;
}

/** A release a project's CI or toolchain file asks for, and where that was read. */
export interface ToolchainPin {
  /** `1.97`, `1.22.3`, a channel (`stable`, `nightly-2025-01-01`); `go.mod` for setup-go's `go-version-file: go.mod`. */
  version: string;
  where: string;
}

export interface Pins {
  go?: ToolchainPin;
  rust?: ToolchainPin;
}

/** golangci-lint's configuration files, in the order it looks for them. */
const GOLANGCI_CONFIGS = ['.golangci.yml', '.golangci.yaml', '.golangci.json'];

/** eslint's configuration files (flat and legacy). */
const ESLINT_CONFIGS = [
  'eslint.config.js',
  'eslint.config.mjs',
  'eslint.config.cjs',
  'eslint.config.ts',
  'eslint.config.mts',
  '.eslintrc',
  '.eslintrc.js',
  '.eslintrc.cjs',
  '.eslintrc.json',
  '.eslintrc.yml',
  '.eslintrc.yaml',
];

/** The files discovery reads from the base tree (besides `.github/workflows/*.yml`). */
export const DISCOVERY_FILES = [
  ...MYPY_CONFIG_FILES,
  '.pre-commit-config.yaml',
  '.pre-commit-config.yml',
  'package.json',
  'Makefile',
  'makefile',
  'GNUmakefile',
  'tox.ini',
  ...GOLANGCI_CONFIGS,
  ...ESLINT_CONFIGS,
];

export const isWorkflowPath = (p: string): boolean => /^\.github\/workflows\/[^/]+\.ya?ml$/.test(p);

interface Found {
  tool: CheckTool;
  enforced: boolean;
  paths?: string[];
  args?: string[];
  /** Counts only when the linter's configuration enables the formatter (golangci-lint's gofmt, eslint's prettier plugin). */
  when?: 'golangci-gofmt' | 'eslint-prettier';
  exclude?: string[];
}

interface Site {
  unit: string;
  source: string;
  line: string;
  checks: Found[];
  calls: string[];
  /** A failure of this line does not fail its run (see DiscoveredCheck.lenient); its checks and calls are lenient. */
  lenient?: string;
  pins?: Pins;
}

/** Wrappers that run the next word as the command (`uv run ruff`, `npx eslint`, `python -m black`). */
const WRAPPERS: Record<string, number> = {
  uv: 1,
  uvx: 0,
  poetry: 1,
  pdm: 1,
  pipenv: 1,
  hatch: 1,
  rye: 1,
  pipx: 1,
  npx: 0,
  bunx: 0,
  exec: 0,
  time: 0,
  sudo: 0,
  env: 0,
};

/** Tools a package manager can run by name. */
const TOOL_BINS = new Set(['prettier', 'eslint', 'tsc', 'vue-tsc']);

const basename = (w: string) => w.replace(/^.*\//, '');

/** The words of one simple command, quotes stripped, with environment assignments and wrappers dropped. */
export function commandWords(segment: string): string[] {
  let words = segment
    .trim()
    // `RUSTFLAGS="-D warnings" cargo …`: a quoted assignment is one word
    .replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|\S*)\s+)+/, '')
    .split(/\s+/)
    .map((w) => w.replace(/^["']+|["']+$/g, ''))
    .filter(Boolean);
  for (;;) {
    const first = words[0];
    if (first === undefined) return words;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first)) words = words.slice(1);
    else if (first in WRAPPERS) {
      const skip = WRAPPERS[first]!;
      // `uv run --with x ruff`: options of the wrapper go too
      let i = 1 + skip;
      while (i < words.length && words[i]!.startsWith('-')) i++;
      words = words.slice(i);
    } else if (/^python[\d.]*$|^py$/.test(first) && words[1] === '-m') words = words.slice(2);
    else if ((first === 'pnpm' || first === 'yarn') && (words[1] === 'exec' || words[1] === 'dlx')) words = words.slice(2);
    // `yarn prettier --check .`, `pnpm eslint .`: the package manager runs the tool's bin
    else if ((first === 'pnpm' || first === 'yarn' || first === 'bun') && TOOL_BINS.has(words[1] ?? '')) words = words.slice(1);
    else return words;
  }
}

/** Splits a shell line at `&&`, `||`, `;`, `|`, `$(`, backticks and parentheses into simple commands. */
export function segments(line: string): string[] {
  return line.split(/&&|\|\||[;|`()]|\$\(/).filter((s) => s.trim());
}

const has = (words: string[], ...flags: string[]) =>
  words.some((w) => flags.includes(w) || flags.some((f) => f.endsWith('=') && w.startsWith(f)));

/** Options that take a value (the next word is not a path), per tool whose paths are read. */
const VALUE_OPTIONS: Partial<Record<string, string[]>> = {
  ruff: [
    '--config',
    '--select',
    '--ignore',
    '--extend-select',
    '--extend-ignore',
    '--exclude',
    '--extend-exclude',
    '--per-file-ignores',
    '--target-version',
    '--line-length',
    '--output-format',
    '--format',
    '--fixable',
    '--unfixable',
    '--cache-dir',
    '--stdin-filename',
    '-o',
    '--output-file',
  ],
  black: [
    '-l',
    '--line-length',
    '-t',
    '--target-version',
    '--include',
    '--exclude',
    '--extend-exclude',
    '--force-exclude',
    '--config',
    '--stdin-filename',
    '-W',
    '--workers',
    '--required-version',
    '--python-cell-magics',
  ],
  prettier: [
    '--config',
    '--ignore-path',
    '--plugin',
    '--plugin-search-dir',
    '--parser',
    '--log-level',
    '--loglevel',
    '--cache-location',
    '--cache-strategy',
    '--stdin-filepath',
    '--print-width',
    '--tab-width',
    '--trailing-comma',
    '--arrow-parens',
    '--end-of-line',
    '--quote-props',
    '--prose-wrap',
    '--html-whitespace-sensitivity',
    '--embedded-language-formatting',
    '--experimental-operator-position',
    '--object-wrap',
  ],
  eslint: [
    '-c',
    '--config',
    '--ext',
    '--rulesdir',
    '--resolve-plugins-relative-to',
    '-f',
    '--format',
    '-o',
    '--output-file',
    '--max-warnings',
    '--cache-location',
    '--cache-strategy',
    '--parser',
    '--parser-options',
    '--plugin',
    '--global',
    '--env',
    '--rule',
    '--ignore-path',
    '--ignore-pattern',
    '--stdin-filename',
    '--fix-type',
    '--report-unused-disable-directives-severity',
    '--flag',
  ],
};

/**
 * The paths a ruff, black, prettier or eslint command names, when they narrow what it checks:
 * undefined for the whole tree (`.`, nothing named) and for what cannot be read statically (a shell
 * variable, a negated glob, an option this table does not know).
 */
function namedPaths(tool: string, args: string[]): string[] | undefined {
  const valued = VALUE_OPTIONS[tool];
  if (!valued) return undefined;
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w === '--') continue;
    if (w.startsWith('-')) {
      if (valued.includes(w)) i++;
      continue;
    }
    if (/[$`\\!]/.test(w)) return undefined;
    const p = w.replace(/^\.\//, '').replace(/\/+$/, '');
    if (p === '' || p === '.') return undefined;
    out.push(p);
  }
  return out.length ? out : undefined;
}

/** `RUSTFLAGS` assigned on the command itself (`RUSTFLAGS="-D warnings" cargo clippy`). */
function inlineRustflags(segment: string): string {
  const m = /^\s*(?:[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|\S*)\s+)*?RUSTFLAGS=(?:"([^"]*)"|'([^']*)'|(\S*))/.exec(segment);
  return m ? (m[1] ?? m[2] ?? m[3] ?? '') : '';
}

/**
 * The checks one simple command runs (usually none or one). `rustflags` is the `RUSTFLAGS` the
 * workflow step runs with (its `env:`, or the job's or the workflow's).
 */
export function checksOfCommand(segment: string, rustflags = ''): Found[] {
  return foundInCommand(segment, rustflags).filter((f) => !f.when);
}

/** {@link checksOfCommand} with the formatters a linter runs when its configuration says so (`when`). */
function foundInCommand(segment: string, rustflags: string): Found[] {
  const found = checksOfWords(segment, `${rustflags} ${inlineRustflags(segment)}`);
  const words = commandWords(segment);
  const tool = basename(words[0] ?? '');
  if (tool === 'mypy') {
    const paths = readMypyCommand(words.slice(1)).paths;
    return paths ? found.map((f) => ({ ...f, paths })) : found;
  }
  // ruff's subcommand is not a path
  const args = tool === 'ruff' && /^[a-z]+$/.test(words[1] ?? '') ? words.slice(2) : words.slice(1);
  const paths = namedPaths(tool, args);
  return paths ? found.map((f) => ({ ...f, paths })) : found;
}

function checksOfWords(segment: string, rustflags: string): Found[] {
  const words = commandWords(segment);
  const tool = basename(words[0] ?? '');
  const rest = words.slice(1);
  switch (tool) {
    case 'gofmt':
      return [{ tool: 'gofmt', enforced: has(rest, '-l', '-d') }];
    case 'go':
      if (rest[0] === 'fmt') return [{ tool: 'gofmt', enforced: false }];
      if (rest[0] === 'vet') return [{ tool: 'go-vet', enforced: true }];
      return [];
    case 'ruff': {
      if (rest[0] === 'format') return [{ tool: 'ruff-format', enforced: has(rest, '--check') }];
      // `ruff .`, `ruff src/`: the check of ruff before 0.5 took paths without a subcommand
      if (rest[0] === 'check' || (rest[0] !== undefined && !rest[0].startsWith('-') && !/^[a-z]+$/.test(rest[0])))
        return [{ tool: 'ruff-check', enforced: !has(rest, '--exit-zero') }];
      return [];
    }
    case 'black':
      return [{ tool: 'black', enforced: has(rest, '--check') }];
    case 'prettier':
      return [{ tool: 'prettier', enforced: has(rest, '--check', '-c', '--list-different', '-l') }];
    case 'eslint':
      // with eslint-plugin-prettier in its config, eslint fails on what prettier would print differently
      return [
        { tool: 'eslint', enforced: true },
        { tool: 'prettier', enforced: true, when: 'eslint-prettier' },
      ];
    case 'golangci-lint':
      return rest[0] === 'run' || rest.length === 0 ? [{ tool: 'gofmt', enforced: true, when: 'golangci-gofmt' }] : [];
    case 'tsc':
    case 'vue-tsc':
      return has(rest, '--noEmit', '--noemit') ? [{ tool: 'tsc', enforced: true }] : [];
    case 'mypy':
      return [{ tool: 'mypy', enforced: true, args: rest }];
    case 'rustfmt':
      return [{ tool: 'rustfmt', enforced: has(rest, '--check') }];
    case 'cargo': {
      const args = rest[0]?.startsWith('+') ? rest.slice(1) : rest;
      if (args[0] === 'clippy') return [clippyCheck(args.slice(1), rustflags)];
      return args[0] === 'fmt' ? [{ tool: 'rustfmt', enforced: has(args, '--check') }] : [];
    }
    default:
      return [];
  }
}

/** clippy with the words after `clippy`: enforced when warnings fail the run (its `-D warnings` or `RUSTFLAGS`'). */
function clippyCheck(args: string[], rustflags: string): Found {
  return { tool: 'clippy', enforced: readClippyCommand(args).denyWarnings || rustflagsDenyWarnings(rustflags), args };
}

/** The units one simple command calls: make targets, package scripts, tox environments, pre-commit. */
export function callsOfCommand(segment: string): string[] {
  const words = commandWords(segment);
  const tool = basename(words[0] ?? '');
  const rest = words.slice(1).filter((w) => !w.startsWith('-') || w === '-e');
  if (tool === 'make' || tool === 'gmake') {
    const targets = rest.filter((w) => !w.includes('='));
    return targets.length ? targets.map((t) => `make:${t}`) : ['make:'];
  }
  if (tool === 'npm' || tool === 'pnpm' || tool === 'yarn' || tool === 'bun') {
    const sub = rest[0];
    if (sub === 'run' || sub === 'run-script') return rest[1] ? [`npm:${rest[1]}`] : [];
    if (sub === 'test' || sub === 't') return ['npm:test'];
    if (sub && tool !== 'npm' && !['install', 'add', 'ci', 'i', 'exec', 'dlx'].includes(sub)) return [`npm:${sub}`];
    return [];
  }
  if (tool === 'tox') {
    const all = words.slice(1);
    const e = all.findIndex((w) => w === '-e' || w.startsWith('-e'));
    if (e < 0) return ['tox:*'];
    const list = all[e] === '-e' ? all[e + 1] : all[e]!.slice(2);
    return (list ?? '')
      .split(',')
      .filter(Boolean)
      .map((env) => `tox:${env}`);
  }
  if (tool === 'pre-commit' || tool === 'prek') return ['pre-commit'];
  return [];
}

/** Joins `\`-continued lines and drops comments and blank lines. */
function scriptLines(script: string): string[] {
  return script
    .replace(/[ \t]*\\\r?\n\s*/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

/** A rewriting formatter followed, in the same script, by a check that the tree did not change. */
const DIFF_GUARD = /git\s+diff\s+[^\n]*--(exit-code|quiet)|git\s+status\s+--porcelain|git\s+diff-index/;

/** A line whose exit status is thrown away (`… || true`, `… || :`, `… || exit 0`, `… || echo …`). */
const MASKED = /\|\|\s*(?:true|:|exit\s+0|echo\b[^|&;]*)\s*;?\s*$/;

function sitesOfScript(unit: string, source: string, script: string, rustflags = '', lenient?: string): Site[] {
  const guarded = DIFF_GUARD.test(script);
  return scriptLines(script).map((line) => {
    const segs = segments(line.replace(/\$[({]MAKE[)}]/g, 'make'));
    const checks = segs
      .flatMap((seg) => foundInCommand(seg, rustflags))
      .map((c) => (guarded && c.tool !== 'clippy' ? { ...c, enforced: true } : c));
    const masked = MASKED.exec(line);
    const why = lenient ?? (masked ? `the command ends in \`${masked[0].trim()}\`` : undefined);
    return { unit, source, line, checks, calls: segs.flatMap(callsOfCommand), ...(why ? { lenient: why } : {}) };
  });
}

/** Well-known actions that run a check themselves. */
function checksOfAction(uses: string, withArgs: unknown, rustflags: string): Found[] {
  const name = uses.replace(/@.*$/, '').toLowerCase();
  const args = isRecord(withArgs) && typeof withArgs.args === 'string' ? withArgs.args : '';
  if (name === 'actions-rust-lang/rustfmt') return [{ tool: 'rustfmt', enforced: true }];
  if (name === 'golangci/golangci-lint-action') return [{ tool: 'gofmt', enforced: true, when: 'golangci-gofmt' }];
  // clippy-check runs `cargo clippy <args>` and fails on what fails it
  if (name === 'actions-rs/clippy-check' || name === 'clechasseur/rs-clippy-check')
    return [clippyCheck(args.split(/\s+/).filter(Boolean), rustflags)];
  if (name === 'psf/black') return [{ tool: 'black', enforced: args === '' || args.includes('--check') }];
  if (name === 'astral-sh/ruff-action' || name === 'chartboost/ruff-action') {
    return [
      /^\s*format\b/.test(args) ? { tool: 'ruff-format', enforced: args.includes('--check') } : { tool: 'ruff-check', enforced: true },
    ];
  }
  return [];
}

const isTrue = (v: unknown) => v === true || v === 'true';

/** A name from the workflow for inside a code span: one line, no backticks, at most 80 characters. */
const spanText = (v: string) =>
  v
    .replace(/\s+/g, ' ')
    .replace(/[`\u0000-\u001f\u007f]+/g, "'")
    .trim()
    .slice(0, 80);

/** Events that run a workflow for a pull request (a push to the pull request's branch is one). */
const PR_EVENTS = ['pull_request', 'pull_request_target', 'merge_group', 'push'];

/** The events a workflow's `on:` names. */
function eventsOf(on: unknown): string[] {
  if (typeof on === 'string') return [on];
  if (Array.isArray(on)) return on.filter((e): e is string => typeof e === 'string');
  return isRecord(on) ? Object.keys(on) : [];
}

/**
 * Why a job's `if:` keeps it from running for this pull request, when it plainly does: it asks for
 * an event that is not a pull request's (`github.event_name == 'release'`), a tag, or a push to a
 * branch other than the base (`github.ref == 'refs/heads/release'`). Any other condition is taken
 * as running.
 */
function ifExcludesPr(cond: string, baseBranch: string | undefined): boolean {
  if (/pull_request|merge_group/.test(cond) || /\|\||!=|!\s*(?:startsWith|contains)/.test(cond)) return false;
  const event = /github\.event_name\s*==\s*['"]([a-z_]+)['"]/.exec(cond)?.[1];
  if (event && !PR_EVENTS.includes(event)) return true;
  if (/startsWith\(\s*github\.ref\s*,\s*['"]refs\/tags\//.test(cond)) return true;
  const branch = /github\.ref\s*==\s*['"]refs\/heads\/([^'"]+)['"]/.exec(cond)?.[1];
  return branch !== undefined && baseBranch !== undefined && branch !== baseBranch;
}

const VERSION = /^[\w.+-]{1,40}$/;
const versionText = (v: unknown) => {
  const t = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim().replace(/^["']|["']$/g, '') : '';
  return VERSION.test(t) ? t : null;
};

/** The Go and Rust releases a job's steps install. */
export function jobPins(source: string, jobName: string, steps: unknown[]): Pins {
  const pins: Pins = {};
  const where = `${source}, job \`${spanText(jobName)}\``;
  for (const step of steps) {
    if (!isRecord(step)) continue;
    const uses = typeof step.uses === 'string' ? step.uses.toLowerCase() : '';
    const withArgs = isRecord(step.with) ? step.with : {};
    if (uses.startsWith('actions/setup-go@')) {
      const v = versionText(withArgs['go-version']);
      if (v) pins.go = { version: v.replace(/\.x$/, ''), where };
      else if (typeof withArgs['go-version-file'] === 'string' && /(^|\/)go\.mod$/.test(withArgs['go-version-file']))
        pins.go = { version: 'go.mod', where: `${where} \`go-version-file\`` };
    }
    if (/^(?:dtolnay\/rust-toolchain|actions-rs\/toolchain|actions-rust-lang\/setup-rust-toolchain)@/.test(uses)) {
      const input = versionText(withArgs.toolchain);
      const ref = /^dtolnay\/rust-toolchain@(.+)$/.exec(uses)?.[1];
      const v = input ?? (ref && /^(?:\d+\.\d+(?:\.\d+)?|stable|beta|nightly)$/.test(ref) ? ref : null);
      if (v) pins.rust = { version: v, where };
    }
    if (typeof step.run === 'string') {
      const m = /\brustup\s+(?:toolchain\s+install|install|default|override\s+set)\s+(?:--\S+\s+)*([\w.-]+)/.exec(step.run);
      const v = m ? versionText(m[1]) : null;
      if (v) pins.rust = { version: v, where };
    }
  }
  return pins;
}

export function workflowSites(source: string, text: string, baseBranch?: string): Site[] {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch {
    return [];
  }
  if (!isRecord(doc) || !isRecord(doc.jobs)) return [];
  const out: Site[] = [];
  const rustflagsOf = (v: unknown) => (isRecord(v) && typeof v.RUSTFLAGS === 'string' ? v.RUSTFLAGS : undefined);
  const events = eventsOf(doc.on ?? doc.true);
  const workflowLenient =
    events.length > 0 && !events.some((e) => PR_EVENTS.includes(e))
      ? `the workflow runs only on ${events.map((e) => `\`${e}\``).join(', ')}, not for pull requests`
      : undefined;
  for (const [jobName, job] of Object.entries(doc.jobs)) {
    if (!isRecord(job) || !Array.isArray(job.steps)) continue;
    const pins = jobPins(source, jobName, job.steps);
    const withPins = (site: Site): Site => (pins.go || pins.rust ? { ...site, pins } : site);
    let jobLenient = workflowLenient;
    if (!jobLenient && isTrue(job['continue-on-error'])) jobLenient = `job \`${spanText(jobName)}\` has \`continue-on-error: true\``;
    if (!jobLenient && typeof job.if === 'string' && ifExcludesPr(job.if, baseBranch))
      jobLenient = `job \`${spanText(jobName)}\` runs only when \`${spanText(job.if)}\``;
    for (const step of job.steps) {
      if (!isRecord(step)) continue;
      const stepName = typeof step.name === 'string' ? step.name : typeof step.uses === 'string' ? step.uses : 'run';
      const lenient =
        jobLenient ??
        (isTrue(step['continue-on-error'])
          ? `its step (job \`${spanText(jobName)}\`, step \`${spanText(stepName)}\`) has \`continue-on-error: true\``
          : undefined);
      // the innermost `env:` that sets RUSTFLAGS wins, as in Actions
      const rustflags = rustflagsOf(step.env) ?? rustflagsOf(job.env) ?? rustflagsOf(doc.env) ?? '';
      if (typeof step.run === 'string') out.push(...sitesOfScript('workflow', source, step.run, rustflags, lenient).map(withPins));
      if (typeof step.uses === 'string') {
        const uses = step.uses;
        const checks = checksOfAction(uses, step.with, rustflags);
        const calls = /^pre-commit\/action@/i.test(uses) || /^pre-commit-ci\/lite-action@/i.test(uses) ? ['pre-commit'] : [];
        if (checks.length || calls.length)
          out.push(withPins({ unit: 'workflow', source, line: `uses: ${uses}`, checks, calls, ...(lenient ? { lenient } : {}) }));
      }
    }
  }
  return out;
}

/** pre-commit hook ids of the common hook repositories, by what they run. */
const HOOK_IDS: Record<string, CheckTool> = {
  gofmt: 'gofmt',
  'go-fmt': 'gofmt',
  'go-fmt-repo': 'gofmt',
  'go-vet': 'go-vet',
  'go-vet-mod': 'go-vet',
  'go-vet-repo-mod': 'go-vet',
  ruff: 'ruff-check',
  'ruff-check': 'ruff-check',
  'ruff-format': 'ruff-format',
  black: 'black',
  'black-jupyter': 'black',
  prettier: 'prettier',
  eslint: 'eslint',
  rustfmt: 'rustfmt',
  'cargo-fmt': 'rustfmt',
  mypy: 'mypy',
  clippy: 'clippy',
  'cargo-clippy': 'clippy',
};

/** The hooks of a pre-commit config, and whether it declares pre-commit.ci (a top-level `ci:`). */
export function preCommitSites(source: string, text: string): { sites: Site[]; ciService: boolean } {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch {
    return { sites: [], ciService: false };
  }
  if (!isRecord(doc) || !Array.isArray(doc.repos)) return { sites: [], ciService: false };
  const sites: Site[] = [];
  for (const repo of doc.repos) {
    if (!isRecord(repo) || !Array.isArray(repo.hooks)) continue;
    const url = typeof repo.repo === 'string' ? repo.repo.toLowerCase() : '';
    for (const hook of repo.hooks) {
      if (!isRecord(hook) || typeof hook.id !== 'string') continue;
      const id = hook.id;
      const entry = typeof hook.entry === 'string' ? hook.entry : null;
      let checks: Found[];
      const hookArgs = Array.isArray(hook.args) ? hook.args.filter((a): a is string => typeof a === 'string') : undefined;
      if (url === 'local' && entry !== null) checks = foundInCommand(hookArgs ? `${entry} ${hookArgs.join(' ')}` : entry, '');
      else if (id === 'fmt' && url.includes('rust')) checks = [{ tool: 'rustfmt', enforced: true }];
      else if (/^golangci-lint(?:-full|-fmt)?$/.test(id)) checks = [{ tool: 'gofmt', enforced: true, when: 'golangci-gofmt' }];
      else if (HOOK_IDS[id] === 'clippy') {
        // doublify's clippy hook denies warnings unless its args are replaced
        checks = [clippyCheck(hookArgs ?? ['--', '-D', 'warnings'], '')];
      } else checks = HOOK_IDS[id] ? [{ tool: HOOK_IDS[id], enforced: true, ...(hookArgs ? { args: hookArgs } : {}) }] : [];
      // pre-commit fails a hook that rewrote a file: a formatter hook is a check there (clippy: when warnings fail it).
      checks = checks.map((c) => (c.tool === 'clippy' ? c : { ...c, enforced: true }));
      if (checks.length) sites.push({ unit: 'pre-commit', source, line: `hook ${id}`, checks, calls: [] });
    }
  }
  return { sites, ciService: 'ci' in doc };
}

export function packageJsonSites(text: string): Site[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return [];
  }
  if (!isRecord(doc) || !isRecord(doc.scripts)) return [];
  const out: Site[] = [];
  for (const [name, script] of Object.entries(doc.scripts)) {
    if (typeof script !== 'string') continue;
    out.push(...sitesOfScript(`npm:${name}`, 'package.json', script));
  }
  return out;
}

export function makefileSites(source: string, text: string): Site[] {
  const out: Site[] = [];
  let targets: string[] = [];
  let first: string | null = null;
  const lines = text.replace(/\\\r?\n\s*/g, ' ').split(/\r?\n/);
  for (const raw of lines) {
    if (raw.startsWith('\t')) {
      const prefix = /^[@+-]*/.exec(raw.trim())?.[0] ?? '';
      const line = raw.trim().slice(prefix.length);
      if (!line || line.startsWith('#')) continue;
      const ignored = prefix.includes('-') ? 'the Makefile line starts with `-`, so make ignores its failure' : undefined;
      for (const t of targets) out.push(...sitesOfScript(`make:${t}`, source, line, '', ignored));
      continue;
    }
    const rule = /^([A-Za-z0-9_./%-]+(?:[ \t]+[A-Za-z0-9_./%-]+)*)[ \t]*:(?![=:])(.*)$/.exec(raw);
    if (rule) {
      targets = rule[1]!.split(/\s+/).filter((t) => !t.startsWith('.'));
      first ??= targets[0] ?? null;
      const prereqs = rule[2]!
        .replace(/[;#].*$/, '')
        .split(/\s+/)
        .filter(Boolean);
      for (const t of targets)
        out.push({ unit: `make:${t}`, source, line: raw.trim(), checks: [], calls: prereqs.map((p) => `make:${p}`) });
    } else if (raw.trim() && !/^\s/.test(raw)) targets = [];
  }
  if (first !== null) out.push({ unit: 'make:', source, line: '(default target)', checks: [], calls: [`make:${first}`] });
  return out;
}

export function toxSites(text: string): Site[] {
  const out: Site[] = [];
  for (const [section, keys] of readIni(text)) {
    const m = /^testenv(?::(.+))?$/.exec(section);
    const commands = keys.get('commands');
    if (!m || !commands) continue;
    const env = m[1]?.trim() ?? '';
    for (const site of sitesOfScript(`tox:${env}`, 'tox.ini', commands)) out.push(site);
  }
  return out;
}

/**
 * Units reached from a workflow through calls (`tox:*` reaches every tox environment), each with
 * why its failure does not fail CI when it is reached only through lenient lines (undefined: it does).
 */
function ciUnits(sites: Site[], preCommitService: boolean): Map<string, string | undefined> {
  const reached = new Map<string, string | undefined>([['workflow', undefined]]);
  if (preCommitService) reached.set('pre-commit', undefined);
  const toxEnvs = [...new Set(sites.filter((s) => s.unit.startsWith('tox:')).map((s) => s.unit))];
  // strict reach first, so that a unit also reached through a lenient line keeps the strict one
  for (const strict of [true, false]) {
    let grew = true;
    while (grew) {
      grew = false;
      for (const s of sites) {
        if (!reached.has(s.unit) || (strict && (s.lenient !== undefined || reached.get(s.unit) !== undefined))) continue;
        const why = s.lenient ?? reached.get(s.unit);
        for (const call of s.calls) {
          // a tox env without its own commands inherits [testenv]'s
          const targets = call === 'tox:*' ? toxEnvs : call.startsWith('tox:') && !toxEnvs.includes(call) ? ['tox:'] : [call];
          for (const t of targets) {
            if (reached.has(t)) continue;
            reached.set(t, why);
            grew = true;
          }
        }
      }
    }
  }
  return reached;
}

/**
 * Every check the texts configure, one per tool: the first one CI runs in a form that fails, else
 * the first one CI runs, else the first one found. `files` maps base paths to their text.
 */
export function discoverChecks(files: ReadonlyMap<string, string>, baseBranch?: string): Map<CheckTool, DiscoveredCheck> {
  const sites: Site[] = [];
  let preCommitService = false;
  for (const [path, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    if (isWorkflowPath(path)) sites.push(...workflowSites(path, text, baseBranch));
  }
  for (const [path, text] of files) {
    if (path === '.pre-commit-config.yaml' || path === '.pre-commit-config.yml') {
      const pc = preCommitSites(path, text);
      sites.push(...pc.sites);
      preCommitService ||= pc.ciService;
    } else if (path === 'package.json') sites.push(...packageJsonSites(text));
    else if (path === 'Makefile' || path === 'makefile' || path === 'GNUmakefile') sites.push(...makefileSites(path, text));
    else if (path === 'tox.ini') sites.push(...toxSites(text));
  }
  const ci = ciUnits(sites, preCommitService);
  const golangci = golangciFormatters(files);
  const eslintPrettier = eslintRunsPrettier(files);
  const all: DiscoveredCheck[] = sites.flatMap((s) =>
    s.checks.flatMap((found) => {
      const { when, ...c } = found;
      let line = s.line;
      if (when === 'golangci-gofmt') {
        if (!golangci) return [];
        line = `${s.line} (${golangci.note})`;
        if (!golangci.tests) c.exclude = ['_test\\.go$'];
      }
      if (when === 'eslint-prettier') {
        if (!eslintPrettier) return [];
        line = `${s.line} (${eslintPrettier})`;
      }
      // eslint's plugin judges only what eslint lints
      if (when === 'eslint-prettier') c.exclude = ['\\.(?:css|scss|less|json|jsonc|json5|md|mdx|ya?ml|html|graphql|gql)$'];
      const inCi = ci.has(s.unit);
      const lenient = inCi ? (s.lenient ?? ci.get(s.unit)) : undefined;
      return [{ ...c, source: s.source, line, inCi, ...(lenient ? { lenient } : {}), ...(s.pins ? { pins: s.pins } : {}) }];
    }),
  );
  // at equal standing, the tool's own command beats a formatter a linter runs (it judges every file of its kind)
  const derived = (c: DiscoveredCheck) => (c.tool === 'prettier' && c.line.includes('(eslint-plugin-prettier in ') ? 0.5 : 0);
  const rank = (c: DiscoveredCheck) => (c.inCi && c.enforced && !c.lenient ? 0 : c.inCi ? 1 : c.enforced ? 2 : 3) + derived(c);
  const best = new Map<CheckTool, DiscoveredCheck>();
  for (const c of all) {
    const prev = best.get(c.tool);
    if (!prev || rank(c) < rank(prev)) best.set(c.tool, c);
  }
  const mypy = best.get('mypy');
  if (mypy) best.set('mypy', withMypyConfig(mypy, files));
  return best;
}

/**
 * The formatters golangci-lint's configuration enables (`linters.enable` before v2, `formatters.enable`
 * from v2; `enable-all` without them in `disable`), which fail `golangci-lint run` on a file they would
 * print differently. goimports and gofumpt print what gofmt prints and more, so each is a gofmt check.
 * `tests: false` under `run:` leaves `_test.go` files out.
 */
function golangciFormatters(files: ReadonlyMap<string, string>): { note: string; tests: boolean } | null {
  const path = GOLANGCI_CONFIGS.find((p) => files.has(p));
  const text = path === undefined ? undefined : files.get(path);
  if (path === undefined || text === undefined) return null;
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch {
    return null;
  }
  if (!isRecord(doc)) return null;
  const names = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const FORMATTERS = ['gofmt', 'goimports', 'gofumpt'];
  const enabled = new Set<string>();
  const v2 = doc.version === 2 || doc.version === '2';
  const section = v2 ? doc.formatters : doc.linters;
  if (isRecord(section)) {
    for (const n of names(section.enable)) if (FORMATTERS.includes(n)) enabled.add(n);
    if (!v2 && section['enable-all'] === true) {
      const off = names(section.disable);
      for (const n of FORMATTERS) if (!off.includes(n)) enabled.add(n);
    }
  }
  if (enabled.size === 0) return null;
  const tests = !(isRecord(doc.run) && doc.run.tests === false);
  return { note: `${[...enabled].join(', ')} enabled in ${path}`, tests };
}

/** Where eslint's configuration runs eslint-plugin-prettier (`plugin:prettier/recommended`, the `prettier/prettier` rule). */
function eslintRunsPrettier(files: ReadonlyMap<string, string>): string | null {
  const PLUGIN = /plugin:prettier\/recommended|['"]prettier\/prettier['"]|eslint-plugin-prettier(?:\/recommended)?['"]/;
  for (const path of ESLINT_CONFIGS) {
    const text = files.get(path);
    if (text !== undefined && PLUGIN.test(text)) return `eslint-plugin-prettier in ${path}`;
  }
  const pkg = files.get('package.json');
  if (pkg !== undefined) {
    try {
      const doc: unknown = JSON.parse(pkg);
      if (isRecord(doc) && doc.eslintConfig !== undefined && PLUGIN.test(JSON.stringify(doc.eslintConfig)))
        return 'eslint-plugin-prettier in package.json eslintConfig';
    } catch {
      // not JSON: nothing to read
    }
  }
  return null;
}

/** A mypy check with what its configuration says: `files` when the command names no paths, and `exclude`. */
function withMypyConfig(check: DiscoveredCheck, files: ReadonlyMap<string, string>): DiscoveredCheck {
  const command = readMypyCommand(check.args ?? []);
  const config = mypyConfigOf(files, command.configFile);
  const exclude = [...command.exclude, ...(config?.exclude ?? [])];
  const paths = check.paths ?? config?.files?.map((p) => p.replace(/^\.\//, '').replace(/\/+$/, '')).filter((p) => p && p !== '.');
  return {
    ...check,
    ...(paths?.length ? { paths } : {}),
    ...(exclude.length ? { exclude } : {}),
    ...(config ? { config: config.path } : {}),
  };
}
