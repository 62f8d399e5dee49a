import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { frontDoorViolations, partLoops, readFolderRanks, rankViolations } from './folder-ranks.js';
import { findCycles, importsOf, sourceFiles, srcFolder, type ImportEdge } from './import-graph.js';

/**
 * The dependency rule (docs/architecture.md): the stages that decide never know which code host asked.
 * Folders that do not exist yet are skipped, so the rule holds while the layout grows into its target shape.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Stages that must stay free of any code host. */
const HOST_FREE = ['core', 'gate', 'guards', 'sandbox', 'testgate', 'routing', 'llm', 'navigator', 'refiner', 'qa'];
/** Folders under src/ that speak to a code host. */
const HOST_FOLDERS = ['host', 'platforms'];
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

  it.each(HOST_FREE)('src/%s/ never imports a code host (src/host, src/platforms, probot, @octokit/*)', (folder) => {
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

describe('the folder ranks (docs/architecture.md, "Folder ranks")', () => {
  const ranks = readFolderRanks(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'));
  const show = (v: ReturnType<typeof rankViolations>[number]): string =>
    `${v.edge.from} (rank ${v.fromRank ?? 'none'}) imports ${v.edge.target} (rank ${v.toRank ?? 'none'})`;

  it('ranks every folder and top-level file under src/, and no name that is gone', () => {
    const present = [...new Set(sourceFiles(ROOT, 'src').map(srcFolder))].sort();
    expect(present.filter((name) => !ranks.has(name))).toEqual([]);
    expect([...ranks.keys()].filter((name) => !present.includes(name))).toEqual([]);
  });

  it('every import between two folders points to a lower rank', () => {
    expect(rankViolations(edges, ranks).map(show)).toEqual([]);
  });

  it('catches an import that points up, one between folders of the same rank, and one from an unranked folder', () => {
    const fake: ImportEdge[] = [
      { from: 'src/gate/run-gate.ts', specifier: '../core/finding.js', target: 'src/core/finding.ts' },
      { from: 'src/gate/run-gate.ts', specifier: './blame.js', target: 'src/gate/blame.ts' },
      { from: 'src/report/markdown.ts', specifier: '../qa/section.js', target: 'src/qa/section.ts' },
      { from: 'src/routing/decide.ts', specifier: '../report/index.js', target: 'src/report/index.ts' },
      { from: 'src/nowhere/x.ts', specifier: '../core/finding.js', target: 'src/core/finding.ts' },
      { from: 'src/core/x.ts', specifier: 'zod' },
    ];
    const ranked = new Map([
      ['core', 1],
      ['report', 2],
      ['routing', 2],
      ['qa', 3],
      ['gate', 4],
    ]);
    expect(rankViolations(fake, ranked).map((v) => v.edge.from)).toEqual([
      'src/report/markdown.ts',
      'src/routing/decide.ts',
      'src/nowhere/x.ts',
    ]);
    expect(rankViolations(fake.slice(0, 2), ranked)).toEqual([]);
  });
});

describe('the front doors: src/sandbox/index.ts and src/testgate/index.ts', () => {
  it.each(['src/sandbox', 'src/testgate'])('no file under src/ outside %s/ imports anything of it but its index.ts', (folder) => {
    expect(frontDoorViolations(edges, folder).map(show)).toEqual([]);
  });

  it('src/sandbox/ imports nothing from another src/ folder but src/core/', () => {
    const bad = edges.filter(
      (e) => srcFolder(e.from) === 'sandbox' && e.target !== undefined && !['sandbox', 'core'].includes(srcFolder(e.target)),
    );
    expect(bad.map(show)).toEqual([]);
  });

  it('catches a file that goes round the front door, and lets the door itself, the folder and tests through', () => {
    const fake: ImportEdge[] = [
      { from: 'src/guards/g16/x.ts', specifier: '../../testgate/run-suite.js', target: 'src/testgate/run-suite.ts' },
      { from: 'src/guards/g16/x.ts', specifier: '../../testgate/index.js', target: 'src/testgate/index.ts' },
      { from: 'src/testgate/gate.ts', specifier: './run-suite.js', target: 'src/testgate/run-suite.ts' },
      { from: 'src/testgate/gate.ts', specifier: '../sandbox/sandbox.js', target: 'src/sandbox/sandbox.ts' },
      { from: 'test/testgate/gate.test.ts', specifier: '../../src/testgate/gate.js', target: 'src/testgate/gate.ts' },
    ];
    expect(frontDoorViolations(fake, 'src/testgate').map((e) => e.target)).toEqual(['src/testgate/run-suite.ts']);
    expect(frontDoorViolations(fake, 'src/sandbox').map((e) => e.from)).toEqual(['src/testgate/gate.ts']);
  });
});

describe('no loop between the parts of the sandbox or of the test gate', () => {
  it.each(['src/sandbox', 'src/testgate'])('%s: no two sub-folders (or top files) import each other', (folder) => {
    expect(partLoops(edges, folder)).toEqual([]);
  });

  it('catches two parts that import each other, and lets a one-way import pass', () => {
    const fake: ImportEdge[] = [
      { from: 'src/testgate/run-suite.ts', specifier: './deps/deps-plan.js', target: 'src/testgate/deps/deps-plan.ts' },
      { from: 'src/testgate/deps/prepare-sides.ts', specifier: '../run-suite.js', target: 'src/testgate/run-suite.ts' },
      { from: 'src/testgate/runners/maven.ts', specifier: '../deps/maven-deps.js', target: 'src/testgate/deps/maven-deps.ts' },
      { from: 'src/testgate/deps/x.ts', specifier: './y.js', target: 'src/testgate/deps/y.ts' },
      { from: 'src/guards/a.ts', specifier: '../testgate/gate.js', target: 'src/testgate/gate.ts' },
    ];
    expect(partLoops(fake, 'src/testgate')).toEqual(['deps <-> run-suite.ts']);
    expect(partLoops(fake.slice(2), 'src/testgate')).toEqual([]);
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
