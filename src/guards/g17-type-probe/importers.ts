import type * as TS from 'typescript';
import { treePath, virtualPath, ROOT, type Compiler } from './program.js';
import { DECLARATION, SCRIPT } from './tree-files.js';

/** The file name without folders and extensions (`src/merge.test.ts` → `merge`): what an import of it must mention. */
const stem = (path: string) => (path.split('/').pop() ?? path).replace(/\.(?:d\.)?[cm]?[jt]sx?$/, '').replace(/\..*$/, '');

/**
 * Files of the tree that import one of `changed`: a changed declaration can break a caller the pull
 * request did not touch (`merger.merge()` after `merger` lost `merge`). Found by resolving the imports of
 * every file that mentions a changed file's name; at most `max`, nearest first in path order.
 */
export function importersOf(
  ts: Compiler,
  files: ReadonlyMap<string, string>,
  changed: ReadonlySet<string>,
  options: TS.CompilerOptions,
  max: number,
): string[] {
  const stems = [...new Set([...changed].map(stem))].filter((s) => s.length > 0);
  const host: TS.ModuleResolutionHost = {
    fileExists: (name) => {
      const p = treePath(name);
      return p !== null && files.has(p);
    },
    readFile: (name) => {
      const p = treePath(name);
      return p === null ? undefined : files.get(p);
    },
    directoryExists: () => true,
    getCurrentDirectory: () => ROOT,
    realpath: (name) => name,
  };
  const out: string[] = [];
  for (const [path, text] of files) {
    if (out.length >= max) break;
    if (changed.has(path) || !SCRIPT.test(path) || DECLARATION.test(path) || !stems.some((s) => text.includes(s))) continue;
    const imports = ts.preProcessFile(text, true, true).importedFiles;
    const hit = imports.some((imp) => {
      const resolved = ts.resolveModuleName(imp.fileName, virtualPath(path), options, host).resolvedModule?.resolvedFileName;
      const p = resolved === undefined ? null : treePath(resolved);
      return p !== null && changed.has(p);
    });
    if (hit) out.push(path);
  }
  return out;
}
