import { builtinModules } from 'node:module';

/**
 * Node's built-in modules as the running Node knows them (`module.builtinModules`, which includes
 * subpaths such as `fs/promises`), plus the `node:`-only ones (`node:test`, `node:sqlite`, `node:sea`).
 */
const BUILTINS: ReadonlySet<string> = new Set(builtinModules.filter((m) => !m.startsWith('_')));
const NODE_ONLY = new Set(['test', 'test/reporters', 'sqlite', 'sea']);

/** True for `fs`, `fs/promises`, `node:fs`, `node:test` …; false for packages that shadow nothing. */
export function isNodeBuiltin(specifier: string): boolean {
  if (specifier.startsWith('node:')) {
    const rest = specifier.slice(5);
    return BUILTINS.has(rest) || NODE_ONLY.has(rest) || BUILTINS.has(rest.split('/')[0]!);
  }
  return BUILTINS.has(specifier);
}
