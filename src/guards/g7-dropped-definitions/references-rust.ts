import { posix } from 'node:path';
import type { HeadHit } from '../shared/head-search.js';
import {
  esc,
  firstLine,
  groupByPath,
  lineOf,
  ref,
  stripExt,
  uses,
  type Reference,
  type ReferenceVerdict,
  type Subject,
  type TextOf,
} from './reference-text.js';

/** The module name other files use for a Rust file (`foo.rs`, `foo/mod.rs` → `foo`; `lib.rs`, `main.rs` → `crate`). */
function rustModuleName(path: string): string {
  const stem = posix.basename(stripExt(path));
  if (stem === 'lib' || stem === 'main') return 'crate';
  if (stem === 'mod') return posix.basename(posix.dirname(path));
  return stem;
}

function rustShadows(text: string, n: string): boolean {
  const e = esc(n);
  return new RegExp(
    `\\blet\\s+(?:mut\\s+)?${e}\\b|[(,|]\\s*(?:mut\\s+)?${e}\\s*[:|,)]|\\bfor\\s+${e}\\s+in\\b|\\b(?:Some|Ok|Err)\\(\\s*${e}\\s*\\)`,
    'm',
  ).test(text);
}

const RUST_USE = /\b(pub(?:\([^)]*\))?\s+)?use\s+[^;]*;/g;

/**
 * A Rust definition still used at head: a `use` of its module path, a module-qualified or type-qualified name, a `self.` call, or a bare use in its own file.
 */
export function rust(s: Subject, hits: readonly HeadHit[], textOf: TextOf): ReferenceVerdict {
  const n = s.def.simpleName;
  const mod = rustModuleName(s.path);
  const refs: Reference[] = [];
  let servedBy: Reference | undefined;
  const grouped = groupByPath(hits);
  const container = s.def.container?.split('::').pop();
  const isMember = s.def.kind === 'method';
  const declaredElsewhere = [...grouped].some(([, lines]) => lines.some((h) => new RegExp(`\\bfn\\s+${esc(n)}\\b`).test(h.text)));
  for (const [path, lines] of grouped) {
    const text = textOf(path);
    if (path === s.path) {
      if (isMember) {
        for (const u of uses(lines, n, 'rust', textOf(path) ?? (path === s.path ? s.headText : undefined))) {
          const qualified = container && new RegExp(`(?<![\\w])(?:${esc(container)}|Self)\\s*(?:<[^>]*>)?\\s*::\\s*$`).test(u.before);
          if (qualified || (!declaredElsewhere && /\bself\s*\.\s*$/.test(u.before) && /^\s*\(/.test(u.after))) {
            refs.push(ref(u.hit, qualified ? 'qualified' : 'member'));
            break;
          }
        }
        continue;
      }
      if (rustShadows(s.headText, n)) continue;
      for (const u of uses(lines, n, 'rust', textOf(path) ?? (path === s.path ? s.headText : undefined))) {
        if (/(?:\.|::)\s*$/.test(u.before) && !/\b(?:self|Self|crate|super)\s*::\s*$/.test(u.before)) continue;
        if (/\b(?:fn|struct|enum|trait|type|const|static|mod|union|macro_rules!|let|let\s+mut)\s+$/.test(u.before)) continue;
        if (/^\s*:(?!:)/.test(u.after)) continue; // a field or a named argument
        if (/^\s*(?:pub(?:\([^)]*\))?\s+)?use\b/.test(u.hit.text)) continue;
        refs.push(ref(u.hit, 'bare'));
        break;
      }
      continue;
    }
    if (isMember) {
      if (!container) continue;
      for (const u of uses(lines, n, 'rust', textOf(path) ?? (path === s.path ? s.headText : undefined)))
        if (new RegExp(`(?<![\\w])${esc(container)}\\s*(?:<[^>]*>)?\\s*::\\s*$`).test(u.before)) {
          refs.push(ref(u.hit, 'qualified'));
          break;
        }
      continue;
    }
    if (text !== undefined) {
      for (const m of text.matchAll(RUST_USE)) {
        const stmt = m[0];
        if (!new RegExp(`(?:::|\\{|,)\\s*${esc(n)}\\b`).test(stmt)) continue;
        const hit = { path, line: lineOf(text, m.index), text: firstLine(stmt) };
        if (new RegExp(`\\b${esc(mod)}\\s*::`).test(stmt)) refs.push(ref(hit, 'import'));
        else if (m[1]) servedBy ??= ref(hit, 'import');
      }
    }
    for (const u of uses(lines, n, 'rust', textOf(path) ?? (path === s.path ? s.headText : undefined))) {
      if (
        mod !== 'crate' &&
        new RegExp(`(?<![\\w])${esc(mod)}\\s*::\\s*$`).test(u.before) &&
        !/^\s*(?:pub(?:\([^)]*\))?\s+)?use\b/.test(u.hit.text)
      ) {
        refs.push(ref(u.hit, 'qualified'));
        break;
      }
    }
  }
  return { refs, ...(servedBy ? { servedBy } : {}) };
}
