import { readIni } from '../../repo/manifests/ini-read.js';
import { dig, isTable, readToml } from '../../repo/manifests/toml-read.js';

/**
 * What a project's mypy command line and mypy configuration say about a G16 run of mypy: the paths
 * it checks, the options that change what it reports (passed on to the sandboxed run), and the
 * configuration's `files` and `exclude`. Pure: it reads words and texts.
 *
 * mypy applies `exclude` only to the files it finds by itself, never to files named on its command
 * line; G16 names the changed files, so it applies `exclude` (and `files`) itself, as the project's
 * own run would have.
 */

/** mypy's options that take a value (the next word is not a path). */
const VALUE_OPTIONS = new Set([
  '--config-file',
  '--python-version',
  '--platform',
  '--always-true',
  '--always-false',
  '--exclude',
  '--cache-dir',
  '--python-executable',
  '--custom-typeshed-dir',
  '--package-root',
  '--junit-xml',
  '--junit-format',
  '--html-report',
  '--txt-report',
  '--xml-report',
  '--linecount-report',
  '--linecoverage-report',
  '--memory-xml-report',
  '--cobertura-xml-report',
  '--lineprecision-report',
  '--any-exprs-report',
  '--xslt-html-report',
  '--xslt-txt-report',
  '--enable-error-code',
  '--disable-error-code',
  '--follow-imports',
  '--output',
  '-O',
  '--soft-error-limit',
  '--untyped-calls-exclude',
  '--enable-incomplete-feature',
  '--shadow-file',
]);

/** Options with a value that change what mypy reports, passed on to G16's run. */
const KEPT_WITH_VALUE = new Set([
  '--config-file',
  '--python-version',
  '--platform',
  '--always-true',
  '--always-false',
  '--enable-error-code',
  '--disable-error-code',
  '--follow-imports',
  '--untyped-calls-exclude',
  '--enable-incomplete-feature',
]);

/** Flags without a value that change what mypy reports (`--strict`, `--disallow-untyped-defs`, `--no-implicit-optional`, …). */
const KEPT_FLAG =
  /^--(?:no-)?(?:strict(?:-[a-z-]+)?|disallow-[a-z-]+|warn-[a-z-]+|check-untyped-defs|allow-[a-z-]+|implicit-[a-z-]+|extra-checks|ignore-missing-imports|follow-untyped-imports|local-partial-types|explicit-package-bases|namespace-packages|silent-imports|disable-bytearray-promotion|disable-memoryview-promotion)$/;

/** A word that is safe to pass on (no shell expansion, no workflow expression). */
const plain = (w: string) => /^[\w./:=,@%+*-]+$/.test(w);

export interface MypyCommand {
  /** Paths the command names (packages given with `-p` as their directories); undefined: the whole configured set. */
  paths?: string[];
  /** The command's options that change what mypy reports, word by word. */
  options: string[];
  /** `--config-file`, when the command names one. */
  configFile?: string;
  /** `--exclude` patterns of the command. */
  exclude: string[];
}

/** Reads the words after `mypy` on a command line. */
export function readMypyCommand(args: readonly string[]): MypyCommand {
  const paths: string[] = [];
  const options: string[] = [];
  const exclude: string[] = [];
  let configFile: string | undefined;
  let unreadable = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w === '--') continue;
    const eq = w.startsWith('--') ? w.indexOf('=') : -1;
    const name = eq > 0 ? w.slice(0, eq) : w;
    if (name === '-p' || name === '--package' || name === '-m' || name === '--module') {
      const v = eq > 0 ? w.slice(eq + 1) : args[++i];
      if (v === undefined || !/^[\w.]+$/.test(v)) unreadable = true;
      else {
        const dir = v.replace(/\./g, '/');
        // a module or package, directly or in a src layout
        paths.push(dir, `${dir}.py`, `src/${dir}`, `src/${dir}.py`);
      }
      continue;
    }
    if (name === '-c' || name === '--command') {
      unreadable = true;
      i += eq > 0 ? 0 : 1;
      continue;
    }
    if (w.startsWith('-')) {
      const value = eq > 0 ? w.slice(eq + 1) : VALUE_OPTIONS.has(name) ? args[++i] : undefined;
      if (name === '--shadow-file' && eq < 0) i++;
      if (name === '--exclude' && value !== undefined) exclude.push(value);
      if (name === '--config-file' && value !== undefined && plain(value)) configFile = value.replace(/^\.\//, '');
      if (KEPT_WITH_VALUE.has(name) && value !== undefined && plain(value)) options.push(`${name}=${value}`);
      else if (eq < 0 && !VALUE_OPTIONS.has(name) && KEPT_FLAG.test(name)) options.push(name);
      continue;
    }
    if (/[$`\\!]/.test(w)) {
      unreadable = true;
      continue;
    }
    const p = w.replace(/^\.\//, '').replace(/\/+$/, '');
    if (p === '' || p === '.') unreadable = true;
    else paths.push(p);
  }
  return { ...(paths.length && !unreadable ? { paths } : {}), options, exclude, ...(configFile ? { configFile } : {}) };
}

/** The files mypy reads its configuration from, in its own order (the first that has a mypy section wins). */
export const MYPY_CONFIG_FILES = ['mypy.ini', '.mypy.ini', 'pyproject.toml', 'setup.cfg'];

export interface MypyConfig {
  /** Where it was read from. */
  path: string;
  /** `files`: what mypy checks when the command names nothing. */
  files?: string[];
  /** `exclude`: regular expressions (Python syntax) of paths mypy does not find by itself. */
  exclude: string[];
}

const commaList = (v: string) =>
  v
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean);

/** The mypy section of one configuration file, or null when it has none. */
export function readMypyConfig(path: string, text: string): MypyConfig | null {
  if (path.endsWith('.toml')) {
    let doc: Record<string, unknown>;
    try {
      doc = readToml(text);
    } catch {
      return null;
    }
    const t = dig(doc, 'tool', 'mypy');
    if (!isTable(t)) return null;
    const list = (v: unknown) =>
      typeof v === 'string' ? commaList(v) : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
    const files = list(t.files);
    const ex = t.exclude;
    const exclude = typeof ex === 'string' ? [ex] : Array.isArray(ex) ? ex.filter((x): x is string => typeof x === 'string') : [];
    return { path, ...(files ? { files } : {}), exclude };
  }
  const section = readIni(text).get('mypy');
  if (!section) return null;
  const files = section.get('files');
  const ex = section.get('exclude');
  return { path, ...(files !== undefined ? { files: commaList(files) } : {}), exclude: ex ? [ex] : [] };
}

/** The configuration mypy would read, given the texts of {@link MYPY_CONFIG_FILES} (and a `--config-file`). */
export function mypyConfigOf(files: ReadonlyMap<string, string>, configFile?: string): MypyConfig | null {
  for (const p of configFile ? [configFile] : MYPY_CONFIG_FILES) {
    const text = files.get(p);
    if (text === undefined) continue;
    const c = readMypyConfig(p, text);
    if (c) return c;
  }
  return null;
}

/**
 * A Python regular expression as JavaScript reads it: verbose `(?x)` patterns (the form mypy's docs
 * show) lose their whitespace and comments; null when JavaScript cannot compile it.
 */
export function pythonRegex(pattern: string): RegExp | null {
  let p = pattern;
  const verbose = /^\(\?x\)/.exec(p);
  if (verbose) {
    p = p
      .slice(verbose[0].length)
      .split('\n')
      .map((l) => l.replace(/(?<!\\)#.*$/, ''))
      .join('')
      .replace(/(?<!\\)\s+/g, '');
  }
  try {
    return new RegExp(p);
  } catch {
    return null;
  }
}

/**
 * Whether mypy's `exclude` patterns leave a file out, as mypy tests them while it walks the tree:
 * each directory above the file (with a trailing `/`) and the file itself.
 */
export function excludedByMypy(path: string, patterns: readonly RegExp[]): boolean {
  const parts = path.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const sub = parts.slice(0, i).join('/') + (i < parts.length ? '/' : '');
    if (patterns.some((re) => re.test(sub))) return true;
  }
  return false;
}
