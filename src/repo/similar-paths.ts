import { posix } from 'node:path';

/** At most this many candidates are returned (a recipe only uses a unique one). */
const MAX_CANDIDATES = 5;

const stem = (p: string) => p.replace(/\.[^./]+$/, '');

/**
 * Files of a tree that a link to the missing `wanted` most likely meant, from the closest kind of
 * slip to the loosest; the first kind with any match wins:
 *  1. the same path in another letter case (`docs/Guide.md` for `docs/guide.md`);
 *  2. the same path with another or no extension (`docs/guide` → `docs/guide.md`, `.md` → `.rst`);
 *  3. the same file name (any case) in another folder.
 */
export function similarPaths(files: Iterable<string>, wanted: string): string[] {
  const want = wanted.replace(/\/+$/, '').toLowerCase();
  if (!want) return [];
  const wantStem = stem(want);
  const wantBase = posix.basename(want);
  const classes: string[][] = [[], [], []];
  for (const file of files) {
    const lower = file.toLowerCase();
    if (lower === want) classes[0]!.push(file);
    else if (stem(lower) === wantStem || stem(lower) === want) classes[1]!.push(file);
    else if (posix.basename(lower) === wantBase) classes[2]!.push(file);
  }
  const hit = classes.find((c) => c.length > 0) ?? [];
  return hit.sort().slice(0, MAX_CANDIDATES);
}
