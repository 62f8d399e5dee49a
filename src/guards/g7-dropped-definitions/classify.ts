import type { ChangedFile } from '../../core/patch-set.js';
import type { GuardContext } from '../../core/guard.js';
import { languageOf, type LangId } from '../../repo/languages.js';
import { languageFamily, topLevelDefinitions, type Definition, type DefinitionIndex } from '../../repo/top-level-definitions.js';
import { RENAME_SIMILARITY, shapeSimilarity } from './definition-similarity.js';
import { mentions } from './placeholder-comments.js';

/** What became of one definition that the base side of a file has and its head side lacks. */
export type Fate =
  | { kind: 'dropped' }
  /** The same body is now defined under another name. */
  | { kind: 'renamed'; to: Definition; path: string; similarity: number }
  /** The same name is defined in another file of the PR (a move or a module split). */
  | { kind: 'moved'; path: string }
  /** The file still binds the name, by an import, a re-export or an assignment. */
  | { kind: 'rebound' }
  /** The head has a syntax error and still mentions the name: it may sit in the unparsed part. */
  | { kind: 'uncertain' };

export interface Vanished {
  def: Definition;
  fate: Fate;
}

/** A side of a changed file, indexed (memoised per run so other guards can reuse it). */
export async function indexOf(
  ctx: GuardContext,
  side: 'base' | 'head',
  path: string,
  lang: LangId,
  text: string,
): Promise<DefinitionIndex> {
  return ctx.memo(`top-level-definitions:${side}:${path}`, () => topLevelDefinitions(lang, text));
}

/** Head definitions of a changed file that its base side did not have (possible rename targets). */
interface Candidate {
  path: string;
  family: string;
  def: Definition;
  fresh: boolean;
}

export async function candidatesOf(files: readonly ChangedFile[], ctx: GuardContext): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const f of files) {
    const lang = languageOf(f.path);
    if (!lang || f.head.text === null) continue;
    const head = await indexOf(ctx, 'head', f.path, lang, f.head.text);
    const baseLang = languageOf(f.oldPath ?? f.path);
    const baseNames = new Set<string>();
    if (baseLang && f.base.text !== null && f.status !== 'copied') {
      for (const d of (await indexOf(ctx, 'base', f.oldPath ?? f.path, baseLang, f.base.text)).definitions) baseNames.add(d.name);
    }
    for (const def of head.definitions) out.push({ path: f.path, family: languageFamily(lang), def, fresh: !baseNames.has(def.name) });
  }
  return out;
}

/** Missing members of a missing container (a whole class dropped) are reported as the container. */
function withoutImpliedMembers(missing: Definition[]): Definition[] {
  const names = new Set(missing.map((d) => d.name));
  return missing.filter((d) => !d.container || !names.has(d.container));
}

/** Classifies every definition the file lost between base and head. */
export function classifyVanished(
  file: ChangedFile,
  base: DefinitionIndex,
  head: DefinitionIndex,
  family: string,
  candidates: readonly Candidate[],
): Vanished[] {
  const headNames = new Set(head.definitions.map((d) => d.name));
  const seen = new Set<string>();
  const missing: Definition[] = [];
  for (const d of base.definitions) {
    if (headNames.has(d.name) || seen.has(d.name)) continue;
    seen.add(d.name);
    missing.push(d);
  }
  const headText = file.head.text ?? '';
  const others = candidates.filter((c) => c.family === family && c.path !== file.path);
  const fresh = candidates.filter((c) => c.family === family && c.fresh);
  return withoutImpliedMembers(missing).map((def) => ({ def, fate: fateOf(def, head, headText, others, fresh, family) }));
}

/** A Java method's unqualified calls resolve to a static import of the same name once the method is gone. */
function reboundByImport(def: Definition, head: DefinitionIndex, family: string): boolean {
  if (!head.bound.has(def.simpleName)) return false;
  return !def.container || (family === 'java' && def.kind === 'method');
}

function fateOf(
  def: Definition,
  head: DefinitionIndex,
  headText: string,
  others: readonly Candidate[],
  fresh: readonly Candidate[],
  family: string,
): Fate {
  if (reboundByImport(def, head, family)) return { kind: 'rebound' };
  const moved = others.find((c) => c.def.name === def.name);
  if (moved) return { kind: 'moved', path: moved.path };
  let best: { c: Candidate; s: number } | null = null;
  for (const c of fresh) {
    if (c.def.kind !== def.kind && !(c.def.kind === 'method' || def.kind === 'method')) continue;
    const s = shapeSimilarity(def.shape, c.def.shape);
    if (s >= RENAME_SIMILARITY && (!best || s > best.s)) best = { c, s };
  }
  if (best) return { kind: 'renamed', to: best.c.def, path: best.c.path, similarity: best.s };
  if (head.hasError && mentions(headText, def.simpleName)) return { kind: 'uncertain' };
  return { kind: 'dropped' };
}
