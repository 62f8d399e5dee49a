import type { ImportEdge } from './import-graph.js';
import { srcFolder } from './import-graph.js';

/** Folder (or top-level file) under src/ -> its rank; a folder may import only folders of a lower rank. */
export type FolderRanks = Map<string, number>;

/**
 * Reads the rank table of docs/architecture.md (the section "## Folder ranks"): one row per rank,
 * `| <rank> | <folders as code spans> | <what they are> |`. A code span `core/` names the folder src/core/,
 * `cli.ts` the file src/cli.ts.
 */
export function readFolderRanks(markdown: string): FolderRanks {
  const start = markdown.indexOf('\n## Folder ranks');
  if (start < 0) throw new Error('docs/architecture.md has no "## Folder ranks" section');
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const ranks: FolderRanks = new Map();
  for (const row of section.matchAll(/^\|\s*(\d+)\s*\|([^|]*)\|/gm)) {
    const rank = Number(row[1]);
    for (const span of row[2]!.matchAll(/`([^`]+)`/g)) {
      const name = span[1]!.replace(/\/$/, '');
      if (ranks.has(name)) throw new Error(`the folder ranks name ${name} twice`);
      ranks.set(name, rank);
    }
  }
  return ranks;
}

/** One import that runs sideways or up between folders: the folder it leaves must rank above the one it enters. */
export interface RankViolation {
  edge: ImportEdge;
  fromRank: number | undefined;
  toRank: number | undefined;
}

/**
 * The imports between two different src/ folders whose target does not rank strictly lower than the importer
 * (an unranked folder is a violation too: every folder must have a place in the table).
 */
export function rankViolations(edges: ImportEdge[], ranks: FolderRanks): RankViolation[] {
  const out: RankViolation[] = [];
  for (const edge of edges) {
    if (edge.target === undefined) continue;
    const from = srcFolder(edge.from);
    const to = srcFolder(edge.target);
    if (from === to) continue;
    const fromRank = ranks.get(from);
    const toRank = ranks.get(to);
    if (fromRank === undefined || toRank === undefined || toRank >= fromRank) out.push({ edge, fromRank, toRank });
  }
  return out;
}

/**
 * Two parts of one folder that import each other (`deps/` imports `run-suite.ts` and `run-suite.ts` imports
 * `deps/`), each listed once as `a <-> b`. A part is a sub-folder or a file directly in the folder; imports from
 * outside the folder do not count.
 */
export function partLoops(edges: ImportEdge[], folder: string): string[] {
  const prefix = `${folder}/`;
  const partOf = (file: string): string | undefined => (file.startsWith(prefix) ? file.slice(prefix.length).split('/')[0] : undefined);
  const pairs = new Set<string>();
  for (const edge of edges) {
    if (edge.target === undefined) continue;
    const from = partOf(edge.from);
    const to = partOf(edge.target);
    if (from !== undefined && to !== undefined && from !== to) pairs.add(`${from} ${to}`);
  }
  const loops: string[] = [];
  for (const pair of pairs) {
    const [a, b] = pair.split(' ') as [string, string];
    if (a < b && pairs.has(`${b} ${a}`)) loops.push(`${a} <-> ${b}`);
  }
  return loops.sort();
}

/**
 * The imports that reach into a folder with a front door (`src/sandbox`, `src/testgate`) from a file under src/
 * outside it, anywhere but the folder's `index.ts`. Tests are not src/ and may import the insides.
 */
export function frontDoorViolations(edges: ImportEdge[], folder: string): ImportEdge[] {
  const prefix = `${folder}/`;
  return edges.filter(
    (e) =>
      e.target !== undefined &&
      e.from.startsWith('src/') &&
      !e.from.startsWith(prefix) &&
      e.target.startsWith(prefix) &&
      e.target !== `${folder}/index.ts`,
  );
}
