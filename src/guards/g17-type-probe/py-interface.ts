import type { LineRange } from '../../core/diff-hunks.js';
import type { ChangedFile } from '../../core/patch-set.js';
import { withTree } from '../../repo/languages.js';

/**
 * Whether a change to a Python file can change what other modules see of it, as pyright sees them:
 * the names it defines, their signatures, the members of its classes and the types its functions
 * return. Only when it can do the unchanged files that import it need checking again (pyright's cost
 * grows with every file it checks, and those files mostly run beside the test suite).
 *
 * A changed line leaves the interface alone only when it is blank or a comment, or when it lies in
 * the body of a function (below its signature) that declares its return type and no `global` name,
 * and it assigns no attribute of `self` or `cls` (pyright reads instance attributes from such
 * assignments in any method). Everything else counts: lines at module or class level (names,
 * imports, decorators, class attributes), signatures, the body of a function whose return type
 * pyright infers from it, and any file that is added, deleted or renamed, or whose text cannot be
 * read or parsed.
 */

const QUIET = /^\s*(?:#.*)?$/;
/** An attribute of `self` or `cls` assigned (left of the line's first `=`) or declared with an annotation alone. */
const OWN_ATTRIBUTE = /^[^=]*?\b(?:self|cls)\s*\.\s*\w+[^=]*(?<![=<>!+\-*/%&|^@:])=(?!=)|\b(?:self|cls)\s*\.\s*\w+\s*:\s*[\w[\]., |]+$/;

function lineTexts(text: string): string[] {
  return text.split(/\r?\n/);
}

/** True when any of `ranges` (1-based lines of `text`) holds a line that can change the interface. */
async function rangesTouchInterface(text: string, ranges: readonly LineRange[]): Promise<boolean> {
  const lines = lineTexts(text);
  const changed: number[] = [];
  for (const r of ranges) for (let l = r.start; l <= r.end; l++) if (!QUIET.test(lines[l - 1] ?? '')) changed.push(l);
  if (!changed.length) return false;
  if (changed.some((l) => OWN_ATTRIBUTE.test(lines[l - 1] ?? ''))) return true;
  return withTree('python', text, (tree) => {
    if (tree.rootNode.hasError) return true;
    return changed.some((line) => {
      const row = line - 1;
      const column = (lines[row] ?? '').search(/\S/);
      // The outermost function around the line: a method, or a function at module level.
      let outer = null;
      for (let n = tree.rootNode.descendantForPosition({ row, column: Math.max(column, 0) }); n; n = n.parent)
        if (n.type === 'function_definition') outer = n;
      // Inside a function: its signature counts, and so does its body when the return type is inferred
      // or when it declares module names (`global`).
      const returns = outer?.childForFieldName('return_type');
      return !returns || row <= returns.endPosition.row || /^\s*global\s/m.test(outer?.text ?? '');
    });
  });
}

/** Whether this change to a Python file may change what its importers see (see above). */
export async function pyInterfaceMayChange(file: ChangedFile): Promise<boolean> {
  if (file.status !== 'modified' || file.head.text === null || file.base.text === null) return true;
  try {
    return (await rangesTouchInterface(file.head.text, file.added)) || (await rangesTouchInterface(file.base.text, file.removed));
  } catch {
    return true;
  }
}
