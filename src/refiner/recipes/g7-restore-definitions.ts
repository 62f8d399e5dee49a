import { evidenceAs } from '../../core/evidence.js';
import type { Finding } from '../../core/finding.js';
import { g7DroppedEvidence, type G7DroppedEvidence } from '../../guards/g7-dropped-definitions/evidence.js';
import { languageOf } from '../../repo/languages.js';
import { topLevelDefinitions, type Definition } from '../../repo/top-level-definitions.js';
import type { Recipe, RecipeContext, RecipeFix } from '../types.js';
import { fixOf } from './line-suggestion.js';

/**
 * G7: top-level definitions the PR dropped (typically behind a "# X remains unchanged" comment) are
 * copied back from the base, verbatim, between the same neighbours they had there. A placeholder
 * comment standing in the gap is replaced by the code it claims is still there.
 */

const COMMENT_LINE = /^\s*(?:#(?!!)|\/\/|\/\*|\*)/;

/** First line of a definition including the comment lines glued on top of it (doc comments). */
function startOf(def: Definition, lines: readonly string[], floor: number): number {
  let s = def.line;
  while (s - 1 > floor && COMMENT_LINE.test(lines[s - 2] ?? '')) s--;
  return s;
}

interface Edit {
  /** 0-based index of the first current line replaced (or the insertion point). */
  at: number;
  remove: number;
  lines: string[];
  order: number;
}

function topLevel(defs: readonly Definition[]): Definition[] {
  return defs.filter((d) => !d.container).sort((a, b) => a.line - b.line);
}

/** The base definitions the finding names that the current content still lacks; null when one cannot be found. */
function missingOf(evidence: G7DroppedEvidence, baseTop: readonly Definition[], currentNames: ReadonlySet<string>): Definition[] | null {
  const out: Definition[] = [];
  for (const { name, baseLine } of evidence.dropped) {
    if (!name) return null;
    const byName = baseTop.filter((d) => d.name === name);
    const def = byName.find((d) => d.line === baseLine) ?? (byName.length === 1 ? byName[0] : undefined);
    if (!def) return null; // a member, or a name the base no longer has: not a top-level restore
    if (!currentNames.has(def.name)) out.push(def);
  }
  return out;
}

/** Runs of missing definitions that stand next to each other in the base (no other definition between). */
function groupsOf(baseTop: readonly Definition[], missing: readonly Definition[]): Definition[][] {
  const wanted = new Set(missing);
  const groups: Definition[][] = [];
  let run: Definition[] = [];
  for (const d of baseTop) {
    if (wanted.has(d)) run.push(d);
    else if (run.length) {
      groups.push(run);
      run = [];
    }
  }
  if (run.length) groups.push(run);
  return groups;
}

async function restore(finding: Finding, ctx: RecipeContext): Promise<RecipeFix | null> {
  const path = finding.path;
  const evidence = evidenceAs(g7DroppedEvidence, finding);
  if (!path || !evidence) return null; // every finding this recipe handles names its file and what it lost
  const basePath = evidence.basePath ?? path;
  const lang = languageOf(path);
  if (!lang || languageOf(basePath) !== lang) return null;
  const [base, current] = await Promise.all([ctx.readBase(basePath), ctx.readCurrent(path)]);
  if (base === null || current === null) return null;
  const [baseIdx, curIdx] = await Promise.all([topLevelDefinitions(lang, base), topLevelDefinitions(lang, current)]);
  if (baseIdx.hasError) return null;
  const baseTop = topLevel(baseIdx.definitions);
  const curTop = topLevel(curIdx.definitions);
  const curByName = new Map(curTop.map((d) => [d.name, d]));
  const missing = missingOf(evidence, baseTop, new Set(curByName.keys()));
  if (!missing || missing.length === 0) return null;

  const baseLines = base.split('\n');
  const curLines = current.split('\n');
  const placeholders = new Set((evidence.placeholderComments ?? []).map((p) => p.text).filter((t) => !!t));
  const usedPlaceholders = new Set<number>();
  const edits: Edit[] = [];
  const groups = groupsOf(baseTop, missing);
  for (const [order, group] of groups.entries()) {
    const first = group[0]!;
    const last = group[group.length - 1]!;
    const i = baseTop.indexOf(first);
    const j = baseTop.indexOf(last);
    const prev = baseTop
      .slice(0, i)
      .reverse()
      .find((d) => curByName.has(d.name));
    const next = baseTop.slice(j + 1).find((d) => curByName.has(d.name));
    if (!prev && !next) return null;
    const blockStart = startOf(first, baseLines, baseTop[i - 1]?.endLine ?? 0);
    const block = baseLines.slice(blockStart - 1, last.endLine);
    const curPrev = prev && curByName.get(prev.name);
    const curNext = next && curByName.get(next.name);
    const gapFrom = curPrev ? curPrev.endLine : 0; // 0-based index of the first gap line
    const gapTo = curNext ? startOf(curNext, curLines, gapFrom) - 1 : curLines.length; // exclusive
    if (gapTo < gapFrom) return null; // the neighbours swapped places: no position matches the base
    // a placeholder glued to the next definition is not its doc comment: search up to the definition itself
    const searchTo = curNext ? curNext.line - 1 : curLines.length;
    let at = -1;
    for (let k = gapFrom; k < searchTo; k++) {
      if (!usedPlaceholders.has(k) && placeholders.has(curLines[k]!.trim().slice(0, 160))) {
        at = k;
        break;
      }
    }
    if (at >= 0) {
      usedPlaceholders.add(at);
      edits.push({ at, remove: 1, lines: block, order });
    } else if (prev && curPrev) {
      edits.push({ at: curPrev.endLine, remove: 0, lines: [...baseLines.slice(prev.endLine, blockStart - 1), ...block], order });
    } else if (next) {
      const nextStart = startOf(next, baseLines, last.endLine);
      edits.push({ at: gapTo, remove: 0, lines: [...block, ...baseLines.slice(last.endLine, nextStart - 1)], order });
    }
  }
  const out = [...curLines];
  for (const e of [...edits].sort((a, b) => b.at - a.at || b.order - a.order)) out.splice(e.at, e.remove, ...e.lines);
  const after = out.join('\n');

  // The result must define every restored name and keep everything the current content defines.
  const check = await topLevelDefinitions(lang, after);
  if (check.hasError && !curIdx.hasError) return null;
  const names = new Set(topLevel(check.definitions).map((d) => d.name));
  if (![...missing, ...curTop].every((d) => names.has(d.name))) return null;
  const listed = missing.map((d) => `\`${d.name}\``).join(', ');
  return fixOf(ctx, {
    recipe: 'g7-restore-definitions',
    findingIds: [finding.id],
    path,
    before: current,
    after,
    summary: `restored ${listed} in ${path} from the base`,
  });
}

export const g7RestoreDefinitions: Recipe = {
  id: 'g7-restore-definitions',
  handles: (f) =>
    f.guard === 'G7' && f.category === 'toplevel-dropped' && !!f.path && (evidenceAs(g7DroppedEvidence, f)?.dropped.length ?? 0) > 0,
  fix: restore,
};
