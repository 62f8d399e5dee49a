/**
 * Which files G13 treats as documentation: Markdown/MDX, reStructuredText and prose `.txt`.
 * `.txt` files that are data or build input (requirements, CMake, robots) or legal text (a license
 * swap is a legitimate full replacement) are not docs.
 */
const DOC_SUFFIX = /\.(md|mdx|markdown|rst|txt)$/i;

const NOT_PROSE_TXT =
  /^(requirements[^/]*|constraints[^/]*|[^/]*-requirements|cmakelists|robots|license[^/]*|licence[^/]*|copying[^/]*|notice|authors|third[-_]party[^/]*|top_level|sources|dependency_links|entry_points|vocab[^/]*|words?|dictionary[^/]*)\.txt$/i;

export function isDocPath(path: string): boolean {
  if (!DOC_SUFFIX.test(path)) return false;
  if (!/\.txt$/i.test(path)) return true;
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (NOT_PROSE_TXT.test(base)) return false;
  return !/(^|\/)(requirements|[^/]+\.egg-info)\//i.test(path);
}
