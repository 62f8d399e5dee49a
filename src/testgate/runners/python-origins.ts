import { readdir } from 'node:fs/promises';
import { readCappedText, readCappedTextOr } from '../../core/safe-read.js';
import { join } from 'node:path';
import { z } from 'zod';
import { parseJsonAs } from '../../core/parse-data.js';

/**
 * Where the project's own packages were imported from during a pytest run. A tiny pytest plugin
 * (loaded with `-p`, from `$SLOPGATE_OUT/py`) writes, at the end of the session, for every name in
 * `SLOPGATE_PY_PACKAGES`: whether the tests imported it, from which file, and whether that file lies
 * inside the directory pytest was started in (the exported tree). The check runs inside the sandbox,
 * so it needs no knowledge of how the sandbox maps paths.
 */
export const PY_ORIGINS_PLUGIN_NAME = '_slopgate_origins';

export const PY_ORIGINS_PLUGIN = `"""slopgate: records where the project's own packages were imported from."""
import importlib.machinery
import importlib.util
import json
import os
import sys


def _file_of(mod_or_spec):
    f = getattr(mod_or_spec, "__file__", None) or getattr(mod_or_spec, "origin", None)
    if f and f not in ("built-in", "frozen", "namespace"):
        return f
    paths = getattr(mod_or_spec, "__path__", None) or getattr(mod_or_spec, "submodule_search_locations", None)
    for p in list(paths or []):
        return p
    return None


def _inside(path, root):
    return (os.path.realpath(path) + os.sep).startswith(root + os.sep)


def pytest_sessionfinish(session):
    out_dir = os.environ.get("SLOPGATE_OUT")
    if not out_dir:
        return
    root = os.path.realpath(str(session.config.invocation_params.dir))
    found = []
    for name in [n for n in os.environ.get("SLOPGATE_PY_PACKAGES", "").split(",") if n]:
        mod = sys.modules.get(name)
        imported = mod is not None
        target = mod
        if target is None:
            try:
                target = importlib.util.find_spec(name)
            except Exception:
                target = None
        f = _file_of(target) if target is not None else None
        in_tree = bool(f) and _inside(f, root)
        # A copy outside the tree that the import path would also reach (say, an older release in site-packages).
        elsewhere = None
        try:
            spec = importlib.machinery.PathFinder.find_spec(name, [p for p in sys.path if p and not _inside(p, root) and not _inside(p, os.path.realpath(out_dir))])
            elsewhere = _file_of(spec) if spec is not None else None
            # slopgate's own links to the tree's packages are the tree, not another copy
            if elsewhere and _inside(elsewhere, root):
                elsewhere = None
        except Exception:
            elsewhere = None
        found.append({"name": name, "imported": imported, "file": f, "inTree": in_tree, "outside": elsewhere if in_tree else None})
    with open(os.path.join(out_dir, "py-origins.json"), "w") as fh:
        json.dump(found, fh)
`;

export interface PackageOrigin {
  name: string;
  /** The tests imported it (it is in sys.modules at the end of the session). */
  imported: boolean;
  /** The file it was (or would be) imported from; null when it cannot be found. */
  file: string | null;
  inTree: boolean;
  /** Another copy, outside the tree, that the import path also reaches (when `file` is in the tree). */
  outside: string | null;
}

/**
 * One entry of the probe's JSON. The probe runs inside the sandbox next to the PR's code, so nothing is
 * trusted: an entry without a string `name` is dropped, and a field of another type reads as absent.
 */
const rawOrigin = z.object({
  name: z.string(),
  imported: z.unknown().transform((v) => v === true),
  file: z.unknown().transform((v) => (typeof v === 'string' ? v : null)),
  inTree: z.unknown().transform((v) => v === true),
  outside: z.unknown().transform((v) => (typeof v === 'string' ? v : null)),
});

export async function readOrigins(path: string): Promise<PackageOrigin[]> {
  try {
    const data = parseJsonAs(z.array(z.unknown()), await readCappedText(path, 1 << 20), 'the import-origin probe output');
    return data.flatMap((o) => {
      const origin = rawOrigin.safeParse(o);
      return origin.success ? [origin.data] : [];
    });
  } catch {
    return [];
  }
}

const SKIP_DIRS = new Set([
  '.git',
  'node_modules',
  '.venv',
  'venv',
  '.tox',
  '.nox',
  '__pycache__',
  'site-packages',
  'build',
  'dist',
  '.mypy_cache',
  '.pytest_cache',
]);

/**
 * True when the tree has a package directory or a module file named `name` (at most `depth` levels
 * down): then "No module named 'name'" means the repository's own code is not importable (a build
 * break), not a missing third-party dependency.
 */
export async function treeHasModule(root: string, name: string, depth = 4): Promise<boolean> {
  let level = [root];
  for (let d = 0; d <= depth && level.length; d++) {
    const next: string[] = [];
    for (const dir of level) {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        if (e.isFile() && e.name === `${name}.py`) return true;
        if (!e.isDirectory() || SKIP_DIRS.has(e.name) || e.name.startsWith('.')) continue;
        if (e.name === name) return true;
        next.push(join(dir, e.name));
      }
    }
    level = next.slice(0, 2000);
  }
  return false;
}

/** Files where a Python project declares (or its CI installs) dependencies. */
async function dependencyFiles(root: string): Promise<string[]> {
  const files = ['pyproject.toml', 'setup.cfg', 'setup.py', 'Pipfile', 'tox.ini', 'environment.yml', 'environment.yaml', 'noxfile.py'];
  for (const dir of ['', 'requirements', '.github/workflows']) {
    const names = await readdir(join(root, dir)).catch((): string[] => []);
    for (const n of names) if (dir || /^requirements.*\.(txt|in)$/.test(n)) files.push(dir ? `${dir}/${n}` : n);
  }
  return files;
}

/**
 * True when `name` appears in a dependency declaration of the tree (requirements, pyproject, setup.*,
 * Pipfile, tox.ini, the CI workflows), with `-`/`_` treated alike: then "No module named 'name'" is a
 * dependency the sandbox lacks. An import of something declared nowhere (a hallucinated module) is
 * the PR's to fix, as CI would say.
 */
export async function declaredDependency(root: string, name: string): Promise<boolean> {
  const norm = (t: string) => t.toLowerCase().replace(/[-_.]+/g, '_');
  const wanted = norm(name);
  for (const f of await dependencyFiles(root)) {
    const path = join(root, f);
    const text = (await readCappedTextOr(path, 1_000_000).catch(() => null)) ?? '';
    if (norm(text).includes(wanted)) return true;
  }
  return false;
}
