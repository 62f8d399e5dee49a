import { posix } from 'node:path';
import picomatch from 'picomatch';
import { parse as parseToml } from 'smol-toml';
import type { GuardContext } from '../../core/guard.js';
import { isRecord } from '../../core/is-record.js';
import { readIni } from '../../repo/manifests/ini-read.js';
import { findCiTestCommands, pytestCiArgs, unreadCiLines } from '../../testgate/index.js';

/**
 * What a plain `pytest` run collects, from the base's pytest configuration: the first of pytest.ini,
 * .pytest.ini, pyproject.toml (`[tool.pytest.ini_options]` or `[tool.pytest]`), tox.ini (`[pytest]`)
 * and setup.cfg (`[tool:pytest]`) that holds a pytest section, as pytest picks its inifile, in the
 * nearest folder above the file that has one (a subproject's tests run from the subproject). Only `testpaths` (where it looks) and `python_files` (which files it opens) are read.
 * Null when no pytest configuration exists: then the runner is not known for sure (unittest's
 * discovery differs), and nothing is said.
 */
export interface PytestCollection {
  /** Folders (or globs) pytest starts from; null: the rootdir, recursively. */
  testpaths: string[] | null;
  pythonFiles: string[];
  /** Where the settings come from, for messages (`pyproject.toml`). */
  source: string;
  /** The paths are those the CI's pytest command names (`source` quotes it). */
  fromCi?: boolean;
}

const DEFAULT_PYTHON_FILES = ['test_*.py', '*_test.py'];

const words = (v: unknown): string[] | null =>
  typeof v === 'string' ? v.split(/\s+/).filter(Boolean) : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : null;

function fromTable(table: Record<string, unknown>, source: string): PytestCollection {
  return {
    testpaths: words(table.testpaths)?.map((p) => p.replace(/^\.\//, '').replace(/\/$/, '')) ?? null,
    pythonFiles: words(table.python_files) ?? DEFAULT_PYTHON_FILES,
    source,
  };
}

function fromIni(text: string, section: string, source: string): PytestCollection | null {
  const table = readIni(text).get(section);
  return table ? fromTable(Object.fromEntries(table), source) : null;
}

function fromPyproject(text: string): PytestCollection | null {
  let doc: unknown;
  try {
    doc = parseToml(text);
  } catch {
    return null;
  }
  const tool = isRecord(doc) ? doc.tool : undefined;
  const pytest = isRecord(tool) ? tool.pytest : undefined;
  if (!isRecord(pytest)) return null;
  const table = isRecord(pytest.ini_options) ? pytest.ini_options : pytest;
  return fromTable(table, 'pyproject.toml');
}

const CONFIG_FILES = ['pytest.ini', '.pytest.ini', 'pyproject.toml', 'tox.ini', 'setup.cfg'];
/** Files that make a folder a Python project of its own (where pytest may be run from). */
const PROJECT_FILES = ['pyproject.toml', 'setup.py', 'setup.cfg', 'tox.ini', 'pytest.ini', '.pytest.ini'];

/** The pytest settings of folder `dir` ('' for the root), as its own config files give them; null when none has a pytest section. */
async function configIn(ctx: GuardContext, dir: string): Promise<PytestCollection | 'project' | null> {
  const at = (f: string) => (dir ? `${dir}/${f}` : f);
  const texts = await ctx.base.readTexts([...new Set([...CONFIG_FILES, ...PROJECT_FILES])].map(at));
  for (const f of CONFIG_FILES) {
    const text = texts.get(at(f));
    if (text === undefined) continue;
    const found =
      f === 'pytest.ini' || f === '.pytest.ini'
        ? (fromIni(text, 'pytest', f) ?? { testpaths: null, pythonFiles: DEFAULT_PYTHON_FILES, source: f })
        : f === 'pyproject.toml'
          ? fromPyproject(text)
          : fromIni(text, f === 'tox.ini' ? 'pytest' : 'tool:pytest', f);
    if (!found) continue;
    const prefix = (p: string) => (dir ? (p === '' || p === '.' ? dir : `${dir}/${p}`) : p);
    return { ...found, testpaths: found.testpaths?.map(prefix) ?? (dir ? [dir] : null), source: at(found.source) };
  }
  return PROJECT_FILES.some((f) => texts.has(at(f))) ? 'project' : null;
}

/**
 * The pytest settings that apply to `path`: those of the nearest folder above it with a pytest
 * configuration (a subproject runs pytest from its own folder). A Python project on the way without
 * one (its own pyproject.toml or setup.py) makes it unsure: null.
 */
export function pytestCollection(ctx: GuardContext, path: string): Promise<PytestCollection | null> {
  const dirs: string[] = [];
  for (let d = posix.dirname(path); d !== '.' && d !== ''; d = posix.dirname(d)) dirs.push(d);
  dirs.push('');
  return ctx.memo(`g15:pytest-collection:${posix.dirname(path)}`, async () => {
    for (const dir of dirs) {
      const found = await configIn(ctx, dir);
      if (found === 'project') return null;
      if (found) return found;
    }
    return null;
  });
}

/**
 * The folders the project's CI hands pytest (`pytest tests/`, `python -m pytest tests integration`),
 * which replace testpaths: read from the base's workflows, tox.ini and Makefile. Null unless every
 * pytest command found names its paths and can be read for sure (one without paths collects what the
 * configuration says), and no other CI line runs pytest in a form that cannot be read.
 */
export function ciPytestPaths(ctx: GuardContext): Promise<{ paths: string[]; source: string } | null> {
  return ctx.memo('g15:ci-pytest-paths', async () => {
    const commands = (await findCiTestCommands(ctx.base)).filter((c) => c.kind === 'pytest' || c.kind === 'python-m-pytest');
    if (commands.length === 0) return null;
    // a pytest line CI runs that cannot be read (a `${{ matrix… }}` argument, shell syntax) may collect anything
    if ((await unreadCiLines(ctx.base, 'pytest')).length > 0) return null;
    const paths = new Set<string>();
    for (const c of commands) {
      const merged = pytestCiArgs(c.args);
      const positional = merged?.positional.map((p) => p.split('::')[0]!.replace(/^\.\//, '').replace(/\/$/, '')) ?? [];
      if (positional.length === 0 || positional.some((p) => p === '' || p === '.' || p.startsWith('..') || p.startsWith('/'))) return null;
      for (const p of positional) paths.add(p);
    }
    return { paths: [...paths].sort(), source: `\`${commands[0]!.line}\` in ${commands[0]!.source}` };
  });
}

/** Why pytest never collects `path`, or null when a plain `pytest` run would. */
export function pytestMisses(c: PytestCollection, path: string): string | null {
  const base = posix.basename(path);
  const named = c.pythonFiles.some((g) => picomatch.isMatch(base, g, { dot: true }));
  const under =
    c.testpaths === null ||
    c.testpaths.some((tp) => {
      if (tp === '' || tp === '.') return true;
      if (path === tp || path.startsWith(`${tp}/`)) return true;
      // A glob in testpaths (pytest 7+): does it match one of the file's folders?
      const isMatch = picomatch(tp, { dot: true });
      for (let dir = posix.dirname(path); dir !== '.'; dir = posix.dirname(dir)) if (isMatch(dir)) return true;
      return false;
    });
  if (named && under) return null;
  const where = c.testpaths
    ? `${c.testpaths.map((t) => `\`${t}${t.endsWith('.py') ? '' : '/'}\``).join(', ')} (${c.fromCi ? c.source : `testpaths in ${c.source}`})`
    : 'the whole repository';
  const names = c.pythonFiles.map((g) => `\`${g}\``).join(' or ');
  const folder = posix.dirname(path);
  const here = folder === '.' ? 'at the repository root' : `in \`${folder}/\``;
  return `pytest collects ${where} and files named ${names}; this file is \`${base}\` ${here}`;
}
