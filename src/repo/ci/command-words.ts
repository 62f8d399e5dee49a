/**
 * How CI readers cut a shell script into commands and a command into words. Pure text work: nothing
 * here runs a shell, so anything it cannot read plainly (variables, subshells) is left as words.
 */

/** Wrappers that run the next word as the command (`uv run ruff`, `npx eslint`, `python -m black`), with how many of their own words come first. */
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

/** The last path segment of a word (`./node_modules/.bin/eslint` → `eslint`). */
export const basename = (w: string): string => w.replace(/^.*\//, '');

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

/** Joins `\`-continued lines and drops comments and blank lines. */
export function scriptLines(script: string): string[] {
  return script
    .replace(/[ \t]*\\\r?\n\s*/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}
