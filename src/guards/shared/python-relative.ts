import { posix } from 'node:path';

/**
 * The folder path a relative Python import names, from the importing file: `from ..pkg.mod import x` in
 * `a/b/c.py` is `a/pkg/mod`; `from . import x` is the importer's own folder. Normalised: a result that starts
 * with `..` escapes the repository, and `.` is the root.
 */
export function relativePythonModule(module: string, importer: string): string {
  const dots = module.length - module.replace(/^\.+/, '').length;
  let dir = posix.dirname(importer);
  for (let i = 1; i < dots; i++) dir = posix.dirname(dir);
  const rest = module.slice(dots).replace(/\./g, '/');
  return posix.normalize(rest ? posix.join(dir, rest) : dir);
}
