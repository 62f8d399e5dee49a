import { inRanges } from '../../core/diff-hunks.js';
import type { ChangedFile } from '../../core/patch-set.js';

/** How a doc is written, which decides how links and code blocks are read. */
export type DocKind = 'markdown' | 'rst' | 'text';

/** `.txt` files that are data or build input, not prose. */
const NOT_PROSE_TXT =
  /^(requirements[^/]*|constraints[^/]*|[^/]*-requirements|cmakelists|robots|license|licence|copying|notice|authors|third[-_]party[^/]*|top_level|sources|dependency_links|entry_points|vocab[^/]*|words?|dictionary[^/]*)\.txt$/i;

/** Doc kind of a path, or null when it is not a doc G11/G14 read. */
export function docKindOf(path: string): DocKind | null {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const lower = base.toLowerCase();
  if (/\.(md|mdx|markdown)$/.test(lower)) return 'markdown';
  if (lower.endsWith('.rst')) return 'rst';
  if (lower.endsWith('.txt')) {
    if (NOT_PROSE_TXT.test(lower)) return null;
    // requirements/ folders (requirements/dev.txt) and egg-info metadata are not prose either
    if (/(^|\/)(requirements|[^/]+\.egg-info)\//i.test(path)) return null;
    return 'text';
  }
  return null;
}

/** True when `file` is a doc with text at head that the PR added or changed lines in. */
export function isChangedDoc(file: ChangedFile): boolean {
  return file.status !== 'deleted' && file.head.text !== null && file.added.length > 0 && docKindOf(file.path) !== null;
}

/** True when head line `line` (1-based) was added by the PR. */
export function isAdded(file: ChangedFile, line: number): boolean {
  return inRanges(file.added, line);
}

/** Lines of a text without their line ends ("\r\n" tolerated). */
export function textLines(text: string): string[] {
  return text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}
