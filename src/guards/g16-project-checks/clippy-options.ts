/**
 * What a project's `cargo clippy` command line says about G16's run of it: the cargo options that
 * choose what is checked (targets, features, packages), the lint levels after `--`, and whether
 * warnings fail the run (`-D warnings`). Pure: it reads words.
 *
 * G16 never passes `-D warnings` itself: a warning turned into an error stops the targets that depend
 * on the crate from being checked, and the base and the head would then be compared on different
 * code. A new warning weighs `fail` when the project's CI denies warnings, whatever G16 ran with.
 */

/** cargo options kept, without a value. */
const BARE = new Set([
  '--all-targets',
  '--workspace',
  '--all',
  '--lib',
  '--bins',
  '--tests',
  '--benches',
  '--examples',
  '--all-features',
  '--no-default-features',
  '--locked',
  '--frozen',
  '--offline',
]);

/** cargo options kept, with their value. */
const WITH_VALUE = new Set(['--features', '-F', '-p', '--package', '--exclude', '--bin', '--test', '--bench', '--example']);

/** The lint level options of rustc (after `--`). */
const LEVELS: Record<string, string> = {
  '-D': '-D',
  '--deny': '-D',
  '-W': '-W',
  '--warn': '-W',
  '-A': '-A',
  '--allow': '-A',
  '-F': '-F',
  '--forbid': '-F',
};

const plain = (w: string) => /^[\w./:=,@%+*-]+$/.test(w);

export interface ClippyCommand {
  /** cargo options, word by word. */
  options: string[];
  /** Lint levels for clippy-driver, word by word (`-A`, `clippy::x`), without `-D warnings`. */
  lints: string[];
  /** The command denies warnings (`-D warnings`, `-Dwarnings`, `--deny warnings`). */
  denyWarnings: boolean;
}

/** The lint levels of a rustc flag list, and whether it denies warnings (also for `RUSTFLAGS`). */
function readLints(words: readonly string[]): { lints: string[]; denyWarnings: boolean } {
  const lints: string[] = [];
  let denyWarnings = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const joined = /^(-[DWAF])(\S+)$/.exec(w) ?? /^(--(?:deny|warn|allow|forbid))=(\S+)$/.exec(w);
    const flag = joined ? LEVELS[joined[1]!] : LEVELS[w];
    if (!flag) continue;
    const lint = joined ? joined[2]! : words[++i];
    if (lint === undefined || !plain(lint)) continue;
    if (lint === 'warnings' && (flag === '-D' || flag === '-F')) denyWarnings = true;
    else lints.push(flag, lint);
  }
  return { lints, denyWarnings };
}

/** Whether a `RUSTFLAGS` value denies warnings. */
export const rustflagsDenyWarnings = (value: string): boolean => readLints(value.trim().split(/\s+/)).denyWarnings;

/** Reads the words after `cargo clippy` (or an action's `args`). */
export function readClippyCommand(args: readonly string[]): ClippyCommand {
  const dash = args.indexOf('--');
  const cargo = dash < 0 ? args : args.slice(0, dash);
  const options: string[] = [];
  for (let i = 0; i < cargo.length; i++) {
    const w = cargo[i]!;
    const eq = w.startsWith('--') ? w.indexOf('=') : -1;
    const name = eq > 0 ? w.slice(0, eq) : w;
    if (BARE.has(name) && eq < 0) options.push(name === '--all' ? '--workspace' : name);
    else if (WITH_VALUE.has(name)) {
      const v = eq > 0 ? w.slice(eq + 1) : cargo[++i];
      if (v !== undefined && plain(v)) options.push(name, v);
    } else if (/^-F\S+$/.test(w) && plain(w)) options.push(w);
    else if (w.startsWith('-') && eq < 0 && cargo[i + 1] !== undefined && !cargo[i + 1]!.startsWith('-')) i++; // an option this table does not know, with its value
  }
  const { lints, denyWarnings } = readLints(dash < 0 ? [] : args.slice(dash + 1));
  return { options, lints, denyWarnings };
}
