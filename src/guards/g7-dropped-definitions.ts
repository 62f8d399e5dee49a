import type { Guard, GuardContext, GuardFinding } from '../core/guard.js';
import { headLineForBaseLine } from '../core/line-map.js';
import { isAddedLine, type ChangedFile } from '../core/patch-set.js';
import { splitLines } from '../core/text-content.js';
import { languageOf } from '../repo/languages.js';
import { languageFamily } from '../repo/top-level-definitions.js';
import { candidatesOf, classifyVanished, indexOf, type Vanished } from './g7-classify.js';
import { placeholderComments, placeholderFor, type PlaceholderComment } from './placeholder-comments.js';

/**
 * G7: top-level definitions that exist on the base side of a modified (or renamed) source file and
 * are gone at head. Moves into another file of the PR, replacements by an import, and renames are
 * told apart from real deletions; a placeholder comment standing in for the deleted code is quoted.
 * Files the PR deletes outright are out of scope (deleting a whole module is a deliberate act).
 */
const SOURCE_STATUSES = new Set(['modified', 'renamed']);
const TARGET_STATUSES = new Set(['added', 'modified', 'renamed', 'copied']);

const code = (name: string) => `\`${name}\``;

function joinAnd(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function listNames(names: string[]): string {
  const shown = names.slice(0, 8).map(code);
  return names.length > 8 ? `${shown.join(', ')} and ${names.length - 8} more` : joinAnd(shown);
}

function droppedFindings(file: ChangedFile, dropped: Vanished[], placeholders: PlaceholderComment[], headHasError: boolean): GuardFinding[] {
  const headLines = splitLines(file.head.text ?? '').length;
  const groups = new Map<number, Vanished[]>();
  for (const v of dropped) {
    const naming = placeholders.find((p) => placeholderFor(p.text, v.def.simpleName));
    const anchor = naming?.line ?? headLineForBaseLine(v.def.line, file.removed, file.added, headLines);
    const list = groups.get(anchor) ?? [];
    list.push(v);
    groups.set(anchor, list);
  }
  const basePath = file.oldPath ?? file.path;
  return [...groups].map(([line, list]) => {
    const names = list.map((v) => v.def.name);
    const where = list.map((v) => `${code(v.def.name)} (${v.def.kind}, base line ${v.def.line})`);
    const quoted = placeholders.filter((p) => list.some((v) => placeholderFor(p.text, v.def.simpleName)) || p.line === line);
    const evidenceComments = quoted.length ? quoted : placeholders.slice(0, 1);
    const n = list.length;
    const it = n === 1 ? 'it' : 'them';
    let message =
      `${file.path} lost ${n === 1 ? 'a top-level definition' : `${n} top-level definitions`} that ${basePath === file.path ? 'it has' : `${basePath} has`} on the base branch: ${joinAnd(where)}. ` +
      `No other file in this PR defines ${it} and ${file.path} does not import ${it} either.`;
    if (evidenceComments.length) {
      const q = evidenceComments.slice(0, 2).map((p) => `line ${p.line}: "${p.text}"`).join('; ');
      message += ` The PR added a comment that stands in for the missing code (${q}), but that code is not in the file.`;
    }
    if (headHasError) message += ' (The head version also has a syntax error; only names that appear nowhere in it are reported here.)';
    return {
      category: 'toplevel-dropped',
      severity: 'fail',
      path: file.path,
      line,
      message,
      remediation:
        `Restore ${listNames(names)} in ${file.path} exactly as on the base branch and change only what the task needs. ` +
        'If the deletion is intended, remove or update every caller in the same PR and say so in the description.',
      evidence: {
        dropped: list.map((v) => ({ name: v.def.name, kind: v.def.kind, baseLine: v.def.line })),
        ...(evidenceComments.length ? { placeholderComments: evidenceComments.map((p) => ({ line: p.line, text: p.text })) } : {}),
        headHasSyntaxError: headHasError,
      },
    };
  });
}

function renamedFinding(file: ChangedFile, v: Vanished & { fate: { kind: 'renamed' } }, headLines: number): GuardFinding {
  const { to, path, similarity } = v.fate;
  const sameFile = path === file.path;
  const line = sameFile ? to.line : headLineForBaseLine(v.def.line, file.removed, file.added, headLines);
  const pct = Math.round(similarity * 100);
  return {
    category: 'toplevel-dropped',
    severity: 'risk',
    path: file.path,
    line,
    message:
      `${code(v.def.name)} (base line ${v.def.line}) is gone from ${file.path}, but ${code(to.name)} at ${path}:${to.line} has ` +
      `${pct === 100 ? 'the same body' : `a ${pct} % similar body`}, so it looks renamed to ${code(to.name)}. Code that still uses ${code(v.def.name)} will break.`,
    remediation:
      `If renaming ${code(v.def.name)} to ${code(to.name)} is intended, update every caller (or keep the old name as an alias); otherwise restore ${code(v.def.name)}.`,
    evidence: { name: v.def.name, baseLine: v.def.line, renamedTo: to.name, renamedIn: path, headLine: to.line, similarity: Number(similarity.toFixed(3)) },
  };
}

async function checkFile(file: ChangedFile, ctx: GuardContext, candidates: Awaited<ReturnType<typeof candidatesOf>>): Promise<GuardFinding[]> {
  const lang = languageOf(file.path);
  const baseLang = languageOf(file.oldPath ?? file.path);
  if (!lang || !baseLang || file.base.text === null || file.head.text === null) return [];
  if (languageFamily(lang) !== languageFamily(baseLang)) return [];
  const base = await indexOf(ctx, 'base', file.oldPath ?? file.path, baseLang, file.base.text);
  const head = await indexOf(ctx, 'head', file.path, lang, file.head.text);
  const vanished = classifyVanished(file, base, head, languageFamily(lang), candidates);
  if (vanished.length === 0) return [];
  for (const v of vanished) if (v.fate.kind !== 'dropped' && v.fate.kind !== 'renamed') ctx.log.debug({ guard: 'G7', path: file.path, name: v.def.name, fate: v.fate }, 'definition gone but accounted for');
  const dropped = vanished.filter((v) => v.fate.kind === 'dropped');
  const placeholders = placeholderComments(file.head.text, lang, (l) => isAddedLine(file, l), dropped.map((v) => v.def.simpleName));
  const headLines = splitLines(file.head.text).length;
  const findings = dropped.length ? droppedFindings(file, dropped, placeholders, head.hasError) : [];
  for (const v of vanished) if (v.fate.kind === 'renamed') findings.push(renamedFinding(file, v as Vanished & { fate: { kind: 'renamed' } }, headLines));
  return findings;
}

export const g7: Guard = {
  id: 'G7',
  name: 'top-level definitions kept',
  appliesTo(file) {
    return TARGET_STATUSES.has(file.status) && file.head.text !== null && languageOf(file.path) !== null;
  },
  async checkAll(files, ctx) {
    const candidates = await candidatesOf(files, ctx);
    const findings: GuardFinding[] = [];
    for (const file of files) {
      if (ctx.signal.aborted) break;
      if (!SOURCE_STATUSES.has(file.status)) continue;
      try {
        findings.push(...(await checkFile(file, ctx, candidates)));
      } catch (err) {
        findings.push({
          category: 'guard-error',
          severity: 'fail',
          path: file.path,
          message: `G7 could not compare the definitions of ${file.path}: ${err instanceof Error ? err.message : String(err)}`,
          remediation: 'G7 left this file unchecked; re-run the gate, and report the error if it repeats.',
        });
      }
    }
    return findings;
  },
};
