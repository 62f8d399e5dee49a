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

const JS_MODULE_STATEMENT = /\b(import|export)\s+(?:type\s+)?([^;'"`]*?)\s*from\s*['"]([^'"\n]+)['"]/g;
const JS_REQUIRE = /\{([^{}]*)\}\s*=\s*require\(\s*['"]([^'"\n]+)['"]\s*\)/g;

function jsResolves(spec: string, importer: string, target: string): boolean {
  if (!spec.startsWith('./') && !spec.startsWith('../') && spec !== '.' && spec !== '..') return false;
  const resolved = posix.normalize(posix.join(posix.dirname(importer), spec)).replace(/\/$/, '');
  const bare = resolved.replace(/\.(?:[cm]?[jt]sx?)$/, '');
  return bare === target || `${resolved}/index` === target;
}

/** Names a `{ a, b as c, type d }` clause imports (the exported side). */
function braceNames(clause: string): string[] {
  const m = /\{([^}]*)\}/.exec(clause);
  if (!m) return [];
  return m[1]!
    .split(',')
    .map((s) =>
      s
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+|\s*:\s*/)[0]!
        .trim(),
    )
    .filter(Boolean);
}

function jsShadows(text: string, n: string): boolean {
  const e = esc(n);
  return new RegExp(
    `^[ \\t]+(?:export\\s+)?(?:const|let|var|function|class)\\s+${e}\\b|[(,]\\s*(?:\\.\\.\\.)?${e}\\s*[,)=:?]|\\bcatch\\s*\\(\\s*${e}\\b|[{,]\\s*${e}\\s*[,}]\\s*=|\\bfor\\s*\\(\\s*(?:const|let|var)\\s+${e}\\b`,
    'm',
  ).test(text);
}

/**
 * A JavaScript or TypeScript definition still used at head: imported or required from its module, named through a namespace import, or used bare in its own file.
 */
export function js(s: Subject, hits: readonly HeadHit[], textOf: TextOf): ReferenceVerdict {
  const n = s.def.simpleName;
  const target = stripExt(s.path);
  const refs: Reference[] = [];
  let servedBy: Reference | undefined;
  const shadowed = jsShadows(s.headText, n);
  for (const [path, lines] of groupByPath(hits)) {
    if (path === s.path) {
      if (shadowed) continue;
      for (const u of uses(lines, n, 'js', textOf(path) ?? (path === s.path ? s.headText : undefined))) {
        if (/(?:\.|\?\.)\s*$/.test(u.before) || /\b(?:function\*?|class|const|let|var|interface|type|enum|namespace)\s+$/.test(u.before))
          continue;
        if (/^\s*\??:(?!:)/.test(u.after) && !/\?[^:]*$/.test(u.before)) continue; // an object key or a parameter name
        if (/^\s*(?:import|export)\b[^(]*\bfrom\b/.test(u.hit.text)) continue;
        refs.push(ref(u.hit, 'bare'));
        break;
      }
      continue;
    }
    const text = textOf(path);
    if (text === undefined) continue;
    for (const m of text.matchAll(JS_MODULE_STATEMENT)) {
      // cast: the regex has three groups, all required
      const [whole, kind, clause, spec] = m as unknown as [string, string, string, string];
      const hit = { path, line: lineOf(text, m.index), text: firstLine(whole) };
      const resolves = jsResolves(spec, path, target);
      if (braceNames(clause).includes(n)) {
        if (resolves) refs.push(ref(hit, 'import'));
        else if (kind === 'export') servedBy ??= ref(hit, 'import');
        continue;
      }
      const ns = resolves ? /\*\s*as\s+([\w$]+)/.exec(clause)?.[1] : undefined;
      if (ns && new RegExp(`(?<![\\w$.])${esc(ns)}\\s*\\.\\s*${esc(n)}(?![\\w$])`).test(text)) refs.push(ref(hit, 'qualified'));
    }
    for (const m of text.matchAll(JS_REQUIRE)) {
      if (braceNames(`{${m[1]!}}`).includes(n) && jsResolves(m[2]!, path, target))
        refs.push(ref({ path, line: lineOf(text, m.index), text: firstLine(m[0]) }, 'import'));
    }
  }
  return { refs, ...(servedBy ? { servedBy } : {}) };
}
