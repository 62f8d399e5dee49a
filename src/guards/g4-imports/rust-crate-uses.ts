import type { Node } from 'web-tree-sitter';
import { withTree } from '../../repo/languages.js';
import { extractImports } from './import-extract.js';
import { rustFileNames } from './import-resolve.js';

/**
 * The lines of a Rust file that name the external crate `crate` (as code spells it, `serde_json`):
 * `use crate::…`, `extern crate crate`, and paths that start with it anywhere (`serde_json::json!`,
 * `#[tokio::main]`, `anyhow::Result<()>`). Empty when the file itself binds the name (a `mod`, an item,
 * a `use … as crate`), since then the path may be its own.
 */
export async function rustCrateUses(text: string, crate: string): Promise<number[]> {
  const imports = await extractImports('rust', text);
  const names = rustFileNames(
    text,
    imports.map((r) => r.spec),
  );
  if (names.has(crate)) return [];
  const lines = new Set<number>();
  for (const r of imports) if (r.spec.replace(/^::/, '').split('::')[0] === crate) lines.add(r.line);
  await withTree('rust', text, (tree) => {
    const visit = (n: Node): void => {
      if (n.type === 'scoped_identifier' || n.type === 'scoped_type_identifier') {
        const path = n.childForFieldName('path');
        if (path?.type === 'identifier' && path.text === crate) lines.add(n.startPosition.row + 1);
      }
      for (const c of n.namedChildren) if (c) visit(c);
    };
    visit(tree.rootNode);
  });
  return [...lines].sort((a, b) => a - b);
}
