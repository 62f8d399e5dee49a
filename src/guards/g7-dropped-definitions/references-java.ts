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

const JAVA_NOT_A_TYPE = /\b(?:return|new|throw|else|case|yield|await|assert)\s+$/;

/**
 * A Java type still named at head, or a method still called through its class or from inside it.
 */
export function java(s: Subject, hits: readonly HeadHit[], textOf: TextOf): ReferenceVerdict {
  const n = s.def.simpleName;
  const refs: Reference[] = [];
  const grouped = groupByPath(hits);
  if (s.def.kind !== 'method') {
    const typeDecl = new RegExp(`\\b(?:class|interface|enum|record|@interface)\\s+${esc(n)}\\b`);
    if ([...grouped].some(([, lines]) => lines.some((h) => !isComment('java', h.text) && typeDecl.test(h.text)))) return { refs };
    for (const [path, lines] of grouped) {
      for (const u of uses(lines, n, 'java', textOf(path))) {
        refs.push(ref(u.hit, /^\s*import\b/.test(u.hit.text) ? 'import' : 'bare'));
        break;
      }
    }
    return { refs };
  }
  const container = s.def.container?.split('.').pop();
  if (!container) return { refs }; // a Java method always has its class; without it there is nothing to qualify by
  // an override is served by the superclass: give up when the class extends or implements anything
  if (new RegExp(`\\b(?:class|enum|record)\\s+${esc(container)}\\b[^{]*\\b(?:extends|implements)\\b`).test(s.headText)) return { refs };
  const declaration = (h: HeadHit, idx: number) => /[\w>\]]\s+$/.test(h.text.slice(0, idx)) && !JAVA_NOT_A_TYPE.test(h.text.slice(0, idx));
  const declared = [...grouped].some(([path, lines]) =>
    [...uses(lines, n, 'java', textOf(path))].some((u) => /^\s*\(/.test(u.after) && declaration(u.hit, u.idx)),
  );
  for (const [path, lines] of grouped) {
    for (const u of uses(lines, n, 'java', textOf(path))) {
      if (!/^\s*\(/.test(u.after)) continue;
      const qualified = new RegExp(`(?<![\\w])${esc(container)}\\s*\\.\\s*$`).test(u.before);
      const local =
        path === s.path && !declared && !declaration(u.hit, u.idx) && (/\bthis\s*\.\s*$/.test(u.before) || !/\.\s*$/.test(u.before));
      if (qualified || local) {
        refs.push(ref(u.hit, qualified ? 'qualified' : 'bare'));
        break;
      }
    }
  }
  return { refs };
}
