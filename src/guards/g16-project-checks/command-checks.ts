import { basename, commandWords } from '../../repo/ci/command-words.js';
import { isRecord } from '../../core/is-record.js';
import { readClippyCommand, rustflagsDenyWarnings } from './clippy-options.js';
import { readMypyCommand } from './mypy-options.js';
import { namedPaths } from './value-options.js';

/** Which check one command, action or hook runs, by its words (the tools G16 knows). */

/** The tools whose checks G16 discovers. */
export type CheckTool =
  'gofmt' | 'go-vet' | 'rustfmt' | 'ruff-check' | 'ruff-format' | 'black' | 'prettier' | 'eslint' | 'tsc' | 'mypy' | 'clippy';

/** A check as a command line names it, before discovery says where it runs. */
export interface Found {
  tool: CheckTool;
  enforced: boolean;
  paths?: string[];
  args?: string[];
  /** Counts only when the linter's configuration enables the formatter (golangci-lint's gofmt, eslint's prettier plugin). */
  when?: 'golangci-gofmt' | 'eslint-prettier';
  exclude?: string[];
}

const has = (words: string[], ...flags: string[]) =>
  words.some((w) => flags.includes(w) || flags.some((f) => f.endsWith('=') && w.startsWith(f)));

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
export function foundInCommand(segment: string, rustflags: string): Found[] {
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
export function clippyCheck(args: string[], rustflags: string): Found {
  return { tool: 'clippy', enforced: readClippyCommand(args).denyWarnings || rustflagsDenyWarnings(rustflags), args };
}

/** Well-known actions that run a check themselves. */
export function checksOfAction(uses: string, withArgs: unknown, rustflags: string): Found[] {
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

/** pre-commit hook ids of the common hook repositories, by what they run. */
export const HOOK_IDS: Record<string, CheckTool> = {
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
