import { posix } from 'node:path';
import picomatch from 'picomatch';
import { parse as parseToml } from 'smol-toml';
import type { GuardContext } from '../../core/guard.js';
import { isRecord } from '../../core/is-record.js';
import { readIni } from '../../repo/manifests/ini-read.js';

/**
 * What a plain `pytest` run collects, from the base's pytest configuration: the first of pytest.ini,
 * .pytest.ini, pyproject.toml (`[tool.pytest.ini_options]` or `[tool.pytest]`), tox.ini (`[pytest]`)
 * and setup.cfg (`[tool:pytest]`) at the repository root that holds a pytest section, as pytest picks
 * its inifile. Only `testpaths` (where it looks) and `python_files` (which files it opens) are read.
 * Null when no pytest configuration exists: then the runner is not known for sure (unittest's
 * discovery differs), and nothing is said.
 */
export interface PytestCollection {
  /** Folders (or globs) pytest starts from; null: the rootdir, recursively. */
  testpaths: string[] | null;
  pythonFiles: string[];
  /** Where the settings come from, for messages (`pyproject.toml`). */
  source: string;
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

export function pytestCollection(ctx: GuardContext): Promise<PytestCollection | null> {
  return ctx.memo('g15:pytest-collection', async () => {
    const files = ['pytest.ini', '.pytest.ini', 'pyproject.toml', 'tox.ini', 'setup.cfg'];
    const texts = await ctx.base.readTexts(files);
    for (const f of files) {
      const text = texts.get(f);
      if (text === undefined) continue;
      if (f === 'pytest.ini' || f === '.pytest.ini')
        return fromIni(text, 'pytest', f) ?? { testpaths: null, pythonFiles: DEFAULT_PYTHON_FILES, source: f };
      const found = f === 'pyproject.toml' ? fromPyproject(text) : fromIni(text, f === 'tox.ini' ? 'pytest' : 'tool:pytest', f);
      if (found) return found;
    }
    return null;
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
  const where = c.testpaths ? `${c.testpaths.map((t) => `\`${t}/\``).join(', ')} (testpaths in ${c.source})` : 'the whole repository';
  const names = c.pythonFiles.map((g) => `\`${g}\``).join(' or ');
  const folder = posix.dirname(path);
  const here = folder === '.' ? 'at the repository root' : `in \`${folder}/\``;
  return `pytest collects ${where} and files named ${names}; this file is \`${base}\` ${here}`;
}
