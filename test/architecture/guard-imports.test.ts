import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles, type ImportEdge } from './import-graph.js';

/**
 * A guard owns its folder: no guard imports another guard's folder (or single file). What two guards
 * share lives in src/guards/shared/, which imports no guard either; src/guards/index.ts, the registry,
 * imports them all.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The guard a file under src/guards/ belongs to (its folder, or the file of a single-file guard); null for the registry and shared/. */
function guardOf(file: string): string | null {
  const [src, guards, unit] = file.split('/');
  if (src !== 'src' || guards !== 'guards' || unit === undefined) return null;
  return unit === 'index.ts' ? null : unit;
}

/** Imports from one guard (or from shared/) into another guard. */
function crossings(edges: ImportEdge[]): string[] {
  return edges.flatMap((e) => {
    if (e.target === undefined) return [];
    const from = guardOf(e.from);
    const to = guardOf(e.target);
    if (from === null || to === null || to === 'shared' || from === to) return [];
    return [`${e.from} -> ${e.target}`];
  });
}

const edges = sourceFiles(ROOT, 'src/guards').flatMap((file) => importsOf(ROOT, file));

describe('guard folders', () => {
  it('sees the guards (the scan works): shared/ is imported by several guards', () => {
    const sharers = new Set(edges.filter((e) => e.target?.startsWith('src/guards/shared/')).map((e) => guardOf(e.from)));
    expect(sharers.size).toBeGreaterThan(3);
  });

  it('no guard imports another guard', () => {
    expect(crossings(edges)).toEqual([]);
  });

  it('catches a guard importing another guard, a single-file guard, and shared/ importing a guard', () => {
    const fake: ImportEdge[] = [
      { from: 'src/guards/g8-tests/a.ts', specifier: '../g7-x/b.js', target: 'src/guards/g7-x/b.ts' },
      { from: 'src/guards/g8-tests/a.ts', specifier: '../g9-history.js', target: 'src/guards/g9-history.ts' },
      { from: 'src/guards/shared/c.ts', specifier: '../g15-y/d.js', target: 'src/guards/g15-y/d.ts' },
      { from: 'src/guards/g8-tests/a.ts', specifier: '../shared/c.js', target: 'src/guards/shared/c.ts' },
      { from: 'src/guards/g8-tests/a.ts', specifier: './e.js', target: 'src/guards/g8-tests/e.ts' },
      { from: 'src/guards/index.ts', specifier: './g8-tests/index.js', target: 'src/guards/g8-tests/index.ts' },
      { from: 'src/guards/g8-tests/a.ts', specifier: '../../repo/f.js', target: 'src/repo/f.ts' },
    ];
    expect(crossings(fake)).toEqual([
      'src/guards/g8-tests/a.ts -> src/guards/g7-x/b.ts',
      'src/guards/g8-tests/a.ts -> src/guards/g9-history.ts',
      'src/guards/shared/c.ts -> src/guards/g15-y/d.ts',
    ]);
  });
});
