import { posix } from 'node:path';
import type { HeadHit } from '../shared/head-search.js';
import { relativePythonModule } from '../shared/python-relative.js';
import {
  esc,
  firstLine,
  groupByPath,
  isComment,
  lineOf,
  ref,
  stripExt,
  uses,
  type Reference,
  type ReferenceVerdict,
  type Subject,
  type TextOf,
} from './reference-text.js';

/** The file as a module path without extension (`src/pkg/mod`, `src/pkg` for `__init__.py`). */
function pyModuleKey(path: string): string {
  const key = stripExt(path);
  return posix.basename(key) === '__init__' ? posix.dirname(key) : key;
}

/** True when `from X import …` in `importer` names the module whose key is `target`. */
function pyResolves(module: string, importer: string, target: string): boolean {
  if (module.startsWith('.')) {
    return relativePythonModule(module, importer) === target;
  }
  const dotted = module.replace(/\./g, '/');
  return target === dotted || target.endsWith(`/${dotted}`);
}

const PY_FROM = /^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|(?:[^\n\\]|\\\n)*)/gm;

function pyImportedNames(clause: string): string[] {
  return clause
    .replace(/[()\\]/g, ' ')
    .replace(/#[^\n]*/g, '')
    .split(',')
    .map((s) =>
      s
        .trim()
        .split(/\s+as\s+/)[0]!
        .trim(),
    )
    .filter(Boolean);
}

function pyShadows(text: string, n: string): boolean {
  const e = esc(n);
  return new RegExp(
    `[(,]\\s*\\*{0,2}${e}\\s*[:=,)]|\\bfor\\s+(?:[\\w\\s,(]*,\\s*)?${e}\\b|\\bas\\s+${e}\\b|^[ \\t]+${e}\\s*(?::[^=\\n]*)?=(?!=)|\\b(?:global|nonlocal)\\s+${e}\\b|\\blambda\\b[^:\\n]*\\b${e}\\b`,
    'm',
  ).test(text);
}

function pyAllMentions(text: string, n: string): number | null {
  const m = /^__all__\s*(?::[^=\n]*)?\+?=\s*[[(]([^\])]*)[\])]/ms.exec(text);
  if (!m) return null;
  return new RegExp(`["']${esc(n)}["']`).test(m[1]!) ? lineOf(text, m.index) : null;
}

/** A pytest fixture is used by naming it as a parameter (or in `usefixtures`), not by calling it. */
function fixtureUses(n: string, hits: readonly HeadHit[]): Reference[] {
  const param = new RegExp(`\\bdef\\s+\\w+\\s*\\([^)]*(?<![\\w.=])${esc(n)}\\s*[,):]|\\busefixtures\\([^)]*["']${esc(n)}["']`);
  const first = hits.find((h) => !isComment('python', h.text) && param.test(h.text));
  return first ? [ref(first, 'bare')] : [];
}

/**
 * A Python definition still used at head: imported from its module, named through the module, or used bare in its own file.
 */
export function python(s: Subject, hits: readonly HeadHit[], textOf: TextOf): ReferenceVerdict {
  const n = s.def.simpleName;
  if (/@(?:pytest\.)?fixture\b/.test(s.def.shape)) return { refs: fixtureUses(n, hits) };
  const key = pyModuleKey(s.path);
  const stem = posix.basename(key);
  const refs: Reference[] = [];
  let servedBy: Reference | undefined;
  const shadowed = pyShadows(s.headText, n);
  const allLine = pyAllMentions(s.headText, n);
  if (allLine) refs.push({ path: s.path, line: allLine, text: '__all__ still lists it', how: 'all' });
  const byPath = groupByPath(hits);
  for (const [path, lines] of byPath) {
    if (path === s.path) {
      if (shadowed) continue;
      for (const u of uses(lines, n, 'python', textOf(path) ?? (path === s.path ? s.headText : undefined))) {
        if (/\.\s*$/.test(u.before) || /\b(?:def|class)\s+$/.test(u.before) || /^\s*=(?!=)/.test(u.after)) continue;
        if (/^\s*(?:from|import)\b/.test(u.hit.text)) continue;
        refs.push(ref(u.hit, 'bare'));
        break;
      }
      continue;
    }
    const text = textOf(path);
    if (text !== undefined) {
      for (const m of text.matchAll(PY_FROM)) {
        if (!pyImportedNames(m[2]!).includes(n)) continue;
        const hit = { path, line: lineOf(text, m.index), text: firstLine(m[0]) };
        if (pyResolves(m[1]!, path, key)) refs.push(ref(hit, 'import'));
        else if (posix.basename(path) === '__init__.py' || posix.basename(path) === '__init__.pyi') servedBy ??= ref(hit, 'import');
      }
    }
    const importsStem = text === undefined || new RegExp(`\\bimport\\b[^\\n]*\\b${esc(stem)}\\b`).test(text);
    if (!importsStem) continue;
    for (const u of uses(lines, n, 'python', textOf(path) ?? (path === s.path ? s.headText : undefined))) {
      if (new RegExp(`(?<![\\w.])${esc(stem)}\\s*\\.\\s*$`).test(u.before) && !/^\s*=(?!=)/.test(u.after)) {
        refs.push(ref(u.hit, 'qualified'));
        break;
      }
    }
  }
  return { refs, ...(servedBy ? { servedBy } : {}) };
}
