import { posix } from 'node:path';
import type { HeadHit } from '../shared/head-search.js';
import {
  esc,
  groupByPath,
  isComment,
  ref,
  uses,
  type Reference,
  type ReferenceVerdict,
  type Subject,
  type TextOf,
} from './reference-text.js';

const goPackage = (text: string | undefined) => (text ? /^\s*package\s+(\w+)/m.exec(text)?.[1] : undefined);

function goShadows(text: string, n: string): boolean {
  const e = esc(n);
  return new RegExp(
    `\\b${e}\\s*(?:,\\s*[\\w]+\\s*)*:=|\\b(?:[\\w]+\\s*,\\s*)+${e}\\s*:=|\\bvar\\s+${e}\\b|[(,]\\s*${e}\\s+[\\w*\\[.]|\\brange\\b.*\\b${e}\\b`,
    'm',
  ).test(text);
}

/** A line that declares `n` itself: a func or method, an interface method, a struct field. */
function goDeclares(text: string, n: string): boolean {
  const e = esc(n);
  return new RegExp(`\\bfunc\\s*(?:\\([^)]*\\)\\s*)?${e}\\s*[(\\[]|^\\s*${e}\\s*\\(|^\\s*${e}(?:\\s*,\\s*\\w+)*\\s+[\\w*\\[.]`).test(text);
}

/**
 * A Go definition still used at head: bare in its package, qualified by the package elsewhere, or (a method) called on a value in the package.
 */
export function go(s: Subject, hits: readonly HeadHit[], textOf: TextOf): ReferenceVerdict {
  const n = s.def.simpleName;
  const dir = posix.dirname(s.path);
  const pkg = goPackage(s.headText) ?? posix.basename(dir);
  const refs: Reference[] = [];
  const grouped = groupByPath(hits);
  const samePackage = (p: string) => posix.dirname(p) === dir && (goPackage(textOf(p)) ?? pkg) === pkg;
  if (s.def.container) {
    // a method: `.n` in the package counts only when nothing else in the package declares `n`
    const declared = [...grouped].some(
      ([p, lines]) => samePackage(p) && lines.some((h) => !isComment('go', h.text) && goDeclares(h.text, n)),
    );
    if (declared) return { refs };
    for (const [p, lines] of grouped) {
      if (!samePackage(p)) continue;
      for (const u of uses(lines, n, 'go', textOf(p)))
        if (/\.\s*$/.test(u.before)) {
          refs.push(ref(u.hit, 'member'));
          break;
        }
    }
    return { refs };
  }
  const lower = !/^\p{Lu}/u.test(n);
  for (const [p, lines] of grouped) {
    const text = textOf(p);
    if (samePackage(p)) {
      if (lower && text !== undefined && goShadows(text, n)) continue;
      for (const u of uses(lines, n, 'go', textOf(p))) {
        if (/\.\s*$/.test(u.before) || /\b(?:func|type)\s+$|\bfunc\s*\([^)]*\)\s*$/.test(u.before)) continue;
        if (/^\s*:(?!=)/.test(u.after)) continue; // a composite-literal key or a label
        if (/^\s*$/.test(u.before) && /^\s+[\w*[\]]/.test(u.after) && !/^\s+(?:=|:=)/.test(u.after)) continue; // a struct field declaration
        refs.push(ref(u.hit, 'bare'));
        break;
      }
      continue;
    }
    if (lower || (text !== undefined && !new RegExp(`"(?:[^"\\n]*/)?${esc(posix.basename(dir))}"`).test(text))) continue;
    for (const u of uses(lines, n, 'go', textOf(p))) {
      if (new RegExp(`(?<![\\w.])${esc(pkg)}\\.$`).test(u.before)) {
        refs.push(ref(u.hit, 'qualified'));
        break;
      }
    }
  }
  return { refs };
}
