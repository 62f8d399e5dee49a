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
export function namedPaths(tool: string, args: string[]): string[] | undefined {
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
