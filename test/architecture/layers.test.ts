import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findCycles, importsOf, sourceFiles, srcFolder, type ImportEdge } from './import-graph.js';

/**
 * The dependency rule (docs/architecture.md): the stages that decide never know which code host asked.
 * Folders that do not exist yet are skipped, so the rule holds while the layout grows into its target shape.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Stages that must stay free of any code host. */
const HOST_FREE = ['core', 'gate', 'guards', 'testgate', 'routing', 'llm', 'refiner', 'qa'];
/** Folders under src/ that speak to a code host. */
const HOST_FOLDERS = ['host', 'platforms', 'github'];
/** Packages that are a code host's SDK. */
const isHostPackage = (specifier: string): boolean =>
  specifier === 'probot' || specifier.startsWith('probot/') || specifier.startsWith('@octokit/');

/**
 * Cycles that exist today and are being removed. This list must only shrink, to empty: a new cycle fails the test,
 * and so does a listed cycle that is gone (delete its line then).
 */
const KNOWN_CYCLES: string[] = [];

const edges: ImportEdge[] = sourceFiles(ROOT, 'src').flatMap((file) => importsOf(ROOT, file));
const show = (e: ImportEdge): string => `${e.from} imports '${e.specifier}'`;

describe('the dependency rule', () => {
  it('sees the source tree (the scan itself works)', () => {
    expect(edges.length).toBeGreaterThan(100);
    expect(edges.some((e) => e.from === 'src/cli.ts' && e.target === 'src/cli/main.ts')).toBe(true);
    const unresolved = edges.filter((e) => e.specifier.startsWith('.') && e.target === undefined).map(show);
    expect(unresolved).toEqual([]);
  });

  it.each(HOST_FREE)('src/%s/ never imports a code host (src/host, src/platforms, src/github, probot, @octokit/*)', (folder) => {
    const bad = edges.filter(
      (e) =>
        srcFolder(e.from) === folder &&
        (isHostPackage(e.specifier) || (e.target !== undefined && HOST_FOLDERS.includes(srcFolder(e.target)))),
    );
    expect(bad.map(show)).toEqual([]);
  });

  it('src/core/ imports nothing from another src/ folder (only node: built-ins and packages)', () => {
    const bad = edges.filter((e) => srcFolder(e.from) === 'core' && e.target !== undefined && srcFolder(e.target) !== 'core');
    expect(bad.map(show)).toEqual([]);
  });
});

describe('import cycles under src/', () => {
  const cycles = findCycles(edges).map((c) => c.join(' -> '));

  it('has no cycle beyond the known ones (each listed as a -> b -> … -> back to a)', () => {
    expect(cycles.filter((c) => !KNOWN_CYCLES.includes(c))).toEqual([]);
  });

  it('still has every listed known cycle (remove a line from KNOWN_CYCLES when its cycle is fixed)', () => {
    expect(KNOWN_CYCLES.filter((c) => !cycles.includes(c))).toEqual([]);
  });

  it('finds a cycle when there is one (the DFS is not blind)', () => {
    const fake: ImportEdge[] = [
      { from: 'a.ts', specifier: './b.js', target: 'b.ts' },
      { from: 'b.ts', specifier: './c.js', target: 'c.ts' },
      { from: 'c.ts', specifier: './a.js', target: 'a.ts' },
      { from: 'c.ts', specifier: './d.js', target: 'd.ts' },
    ];
    expect(findCycles(fake)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });
});
