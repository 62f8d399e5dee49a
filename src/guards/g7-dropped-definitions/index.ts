import { posix } from 'node:path';
import type { Guard, GuardContext, GuardFinding } from '../../core/guard.js';
import { headLineForBaseLine } from '../../core/line-map.js';
import { isAddedLine, type ChangedFile } from '../../core/patch-set.js';
import { splitLines } from '../../core/text-content.js';
import { languageOf } from '../../repo/languages.js';
import { languageFamily, type Definition } from '../../repo/top-level-definitions.js';
import { candidatesOf, classifyVanished, indexOf, type Vanished } from './classify.js';
import { searchHead, type HeadHit } from '../shared/head-search.js';
import { hitsFor, referencesOf, type Reference } from './references.js';
import { isTestDefinition, isTestPath } from '../shared/test-paths.js';
import { isGenericPlaceholder, placeholderComments, placeholderFor, type PlaceholderComment } from './placeholder-comments.js';
import { G7_EVIDENCE, type G7DroppedEvidence, type G7RemovedPublicEvidence, type G7RenamedEvidence } from './evidence.js';

/**
 * G7: top-level definitions that exist on the base side of a modified (or renamed) source file and
 * are gone at head. Moves into another file of the PR, replacements by an import, renames, removed
 * tests (G8's business) and names a module `__getattr__` or a re-export still serves are told apart
 * from real deletions. A deletion fails only on evidence that something breaks: a use of the name
 * still present anywhere in the head tree, or an added placeholder comment standing in for it.
 * Removed together with all its uses it passes when private and is a risk when public.
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

/** One vanished definition with what G7 found out about it. */
interface Judged {
  v: Vanished;
  /** Head lines that still need it. */
  refs: Reference[];
  /** Added placeholder comments that stand in for it. */
  placeholders: PlaceholderComment[];
}

const MAX_REFS_SHOWN = 3;

function describeRefs(refs: readonly Reference[]): string {
  const shown = refs.slice(0, MAX_REFS_SHOWN).map((r) => `${r.path}:${r.line} (\`${r.text.replace(/`/g, "'")}\`)`);
  return refs.length > MAX_REFS_SHOWN ? `${shown.join('; ')} and ${refs.length - MAX_REFS_SHOWN} more` : shown.join('; ');
}

function failFindings(file: ChangedFile, judged: Judged[], headHasError: boolean): GuardFinding[] {
  const headLines = splitLines(file.head.text ?? '').length;
  const groups = new Map<number, Judged[]>();
  for (const j of judged) {
    const anchor = j.placeholders[0]?.line ?? headLineForBaseLine(j.v.def.line, file.removed, file.added, headLines);
    const list = groups.get(anchor) ?? [];
    list.push(j);
    groups.set(anchor, list);
  }
  const basePath = file.oldPath ?? file.path;
  return [...groups].map(([line, list]) => {
    const names = list.map((j) => j.v.def.name);
    const where = list.map((j) => `${code(j.v.def.name)} (${j.v.def.kind}, base line ${j.v.def.line})`);
    const quoted = [...new Map(list.flatMap((j) => j.placeholders).map((p) => [p.line, p])).values()];
    // One head line can use several of the lost names (`from m import a, b`): quote it once.
    const refs = [...new Map(list.flatMap((j) => j.refs).map((r) => [`${r.path}:${r.line}`, r])).values()];
    const n = list.length;
    const it = n === 1 ? 'it' : 'them';
    let message = `${file.path} lost ${n === 1 ? 'a top-level definition' : `${n} top-level definitions`} that ${basePath === file.path ? 'it has' : `${basePath} has`} on the base branch: ${joinAnd(where)}.`;
    if (refs.length) message += ` The head of this PR still uses ${it}: ${describeRefs(refs)}. Those lines will fail.`;
    if (quoted.length) {
      const q = quoted
        .slice(0, 2)
        .map((p) => `line ${p.line}: "${p.text}"`)
        .join('; ');
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
        'If the deletion is intended, remove or update every use in the same PR.',
      evidence: {
        dropped: list.map((j) => ({ name: j.v.def.name, kind: j.v.def.kind, baseLine: j.v.def.line, baseEndLine: j.v.def.endLine })),
        ...(basePath !== file.path ? { basePath } : {}),
        ...(refs.length ? { references: refs.slice(0, 10).map((r) => ({ path: r.path, line: r.line, how: r.how })) } : {}),
        ...(quoted.length ? { placeholderComments: quoted.map((p) => ({ line: p.line, text: p.text })) } : {}),
        headHasSyntaxError: headHasError,
      } satisfies G7DroppedEvidence,
    };
  });
}

/** Public definitions removed together with every use in this repository: other code may still need them. */
function publicRemovalFinding(file: ChangedFile, judged: Judged[]): GuardFinding {
  const headLines = splitLines(file.head.text ?? '').length;
  const names = judged.map((j) => j.v.def.name);
  const where = judged.map((j) => `${code(j.v.def.name)} (${j.v.def.kind}, base line ${j.v.def.line})`);
  const one = judged.length === 1;
  return {
    category: 'toplevel-dropped',
    severity: 'risk',
    path: file.path,
    line: headLineForBaseLine(judged[0]!.v.def.line, file.removed, file.added, headLines),
    message:
      `${file.path} no longer defines ${one ? 'the public' : `${judged.length} public definitions:`} ${joinAnd(where)}. ` +
      `Nothing in this repository uses ${one ? 'it' : 'them'} any more, but code outside it (dependents of a library, plugins) may.`,
    remediation: `If ${listNames(names)} ${one ? 'is' : 'are'} part of a public API, keep ${one ? 'it' : 'them'} (or deprecate first) and mention the removal in the changelog; otherwise nothing to do.`,
    evidence: {
      removedPublic: judged.map((j) => ({ name: j.v.def.name, kind: j.v.def.kind, baseLine: j.v.def.line })),
    } satisfies G7RemovedPublicEvidence,
  };
}

function renamedFinding(file: ChangedFile, j: Judged, headLines: number): GuardFinding {
  const v = j.v as Vanished & { fate: { kind: 'renamed' } }; // cast: the caller picked renamed fates only
  const { to, path, similarity } = v.fate;
  const sameFile = path === file.path;
  const line = sameFile ? to.line : headLineForBaseLine(v.def.line, file.removed, file.added, headLines);
  const pct = Math.round(similarity * 100);
  const broken = j.refs.length > 0;
  return {
    category: 'toplevel-dropped',
    severity: broken ? 'fail' : 'risk',
    path: file.path,
    line,
    message:
      `${code(v.def.name)} (base line ${v.def.line}) is gone from ${file.path}, but ${code(to.name)} at ${path}:${to.line} has ` +
      `${pct === 100 ? 'the same body' : `a ${pct} % similar body`}, so it looks renamed to ${code(to.name)}. ` +
      (broken
        ? `The head still uses the old name: ${describeRefs(j.refs)}.`
        : `Nothing in this repository uses the old name any more; code outside it may.`),
    remediation: `If renaming ${code(v.def.name)} to ${code(to.name)} is intended, update every caller (or keep the old name as an alias); otherwise restore ${code(v.def.name)}.`,
    evidence: {
      name: v.def.name,
      baseLine: v.def.line,
      renamedTo: to.name,
      renamedIn: path,
      headLine: to.line,
      similarity: Number(similarity.toFixed(3)),
      ...(broken ? { references: j.refs.slice(0, 10).map((r) => ({ path: r.path, line: r.line, how: r.how })) } : {}),
    } satisfies G7RenamedEvidence,
  };
}

/** What one changed file lost, before the head tree is searched. */
interface FileLoss {
  file: ChangedFile;
  family: string;
  headHasError: boolean;
  vanished: Vanished[];
  placeholders: PlaceholderComment[];
}

/** True when the comment sits where the definition used to be (a stand-in, not a remark elsewhere). */
function near(file: ChangedFile, v: Vanished, p: PlaceholderComment): boolean {
  const headLines = splitLines(file.head.text ?? '').length;
  return Math.abs(headLineForBaseLine(v.def.line, file.removed, file.added, headLines) - p.line) <= 3;
}

async function lossOf(
  file: ChangedFile,
  ctx: GuardContext,
  candidates: Awaited<ReturnType<typeof candidatesOf>>,
): Promise<FileLoss | null> {
  const lang = languageOf(file.path);
  const baseLang = languageOf(file.oldPath ?? file.path);
  if (!lang || !baseLang || file.base.text === null || file.head.text === null) return null;
  const family = languageFamily(lang);
  if (family !== languageFamily(baseLang)) return null;
  const base = await indexOf(ctx, 'base', file.oldPath ?? file.path, baseLang, file.base.text);
  const head = await indexOf(ctx, 'head', file.path, lang, file.head.text);
  const all = classifyVanished(file, base, head, family, candidates);
  // a module-level __getattr__ (PEP 562) can still serve any top-level name of a Python module
  const dynamic = family === 'python' && head.definitions.some((d) => d.name === '__getattr__');
  const otherRustHeads = family === 'rust' ? rustHeadsOf(ctx, file.path) : [];
  const vanished: Vanished[] = [];
  for (const v of all) {
    const skip =
      v.fate.kind === 'rebound' || v.fate.kind === 'uncertain'
        ? v.fate.kind
        : isTestDefinition(v.def, file.oldPath ?? file.path, family, file.base.text)
          ? 'a test (G8 reports removed tests)'
          : dynamic && !v.def.container
            ? 'served by the module __getattr__'
            : family === 'rust' && !v.def.container && declaredInMacroBody(v.def, otherRustHeads)
              ? 'declared again inside a macro body of this PR'
              : v.fate.kind === 'moved' && family === 'go' && posix.dirname(v.fate.path) === posix.dirname(file.path)
                ? 'moved within its Go package'
                : null;
    if (skip) ctx.log.debug({ guard: 'G7', path: file.path, name: v.def.name, why: skip }, 'definition gone but accounted for');
    else vanished.push(v);
  }
  if (vanished.length === 0) return null;
  const placeholders = placeholderComments(
    file.head.text,
    lang,
    (l) => isAddedLine(file, l),
    vanished.map((v) => v.def.simpleName),
  );
  return { file, family, headHasError: head.hasError, vanished, placeholders };
}

/** Head texts of the files the search hit, read in one batch (bounded). */
const MAX_TEXTS = 2000;

async function judge(losses: FileLoss[], ctx: GuardContext): Promise<Map<FileLoss, Judged[]>> {
  const byFamily = new Map<string, Set<string>>();
  for (const l of losses) {
    let names = byFamily.get(l.family);
    if (!names) byFamily.set(l.family, (names = new Set()));
    for (const v of l.vanished) names.add(v.def.simpleName);
  }
  const hits = new Map<string, HeadHit[]>();
  for (const [family, names] of byFamily) hits.set(family, await searchHead(ctx, family, [...names]));
  const paths = [...new Set([...hits.values()].flat().map((h) => h.path))].slice(0, MAX_TEXTS);
  const texts = await ctx.head.readTexts(paths);
  const out = new Map<FileLoss, Judged[]>();
  for (const l of losses) {
    const familyHits = hits.get(l.family) ?? [];
    const judged: Judged[] = [];
    for (const v of l.vanished) {
      const placeholders =
        v.fate.kind === 'dropped'
          ? l.placeholders.filter(
              (p) => placeholderFor(p.text, v.def.simpleName) || (isGenericPlaceholder(commentText(p)) && near(l.file, v, p)),
            )
          : [];
      const subject = { def: v.def, path: l.file.path, family: l.family, headText: l.file.head.text ?? '' };
      const verdict = referencesOf(subject, hitsFor(familyHits, v.def.simpleName), (p) => texts.get(p));
      if (verdict.servedBy && !verdict.refs.length && !placeholders.length) {
        ctx.log.debug(
          { guard: 'G7', path: l.file.path, name: v.def.name, servedBy: verdict.servedBy },
          'definition still served by a re-export',
        );
        continue;
      }
      judged.push({ v, refs: verdict.refs, placeholders });
    }
    out.set(l, judged);
  }
  return out;
}

/** The comment part of a quoted placeholder line. */
function commentText(p: PlaceholderComment): string {
  return p.text.replace(/^\s*(?:#+|\/\/+|\/\*+|\*)\s?/, '');
}

/**
 * Modules nobody outside the repository imports: Python modules under a `_private` package or file
 * (`pkg/_internal/x.py`), `__main__.py`; Go `internal/` packages and `package main`.
 */
function privateModule(file: ChangedFile, family: string): boolean {
  const parts = file.path.split('/');
  if (family === 'python') return parts.some((p) => p.startsWith('_') && p !== '__init__.py' && p !== '__init__.pyi');
  if (family === 'go') return parts.includes('internal') || /^\s*package\s+main\b/m.test(file.head.text ?? '');
  return false;
}

function findingsFor(l: FileLoss, judged: Judged[]): GuardFinding[] {
  const { file } = l;
  const headLines = splitLines(file.head.text ?? '').length;
  const notApi = isTestPath(file.path) || privateModule(file, l.family);
  const fail: Judged[] = [];
  const publicRemoved: Judged[] = [];
  const out: GuardFinding[] = [];
  for (const j of judged) {
    const broken = j.refs.length > 0 || j.placeholders.length > 0;
    if (j.v.fate.kind === 'renamed') {
      if (broken || (j.v.def.isPublic && !notApi)) out.push(renamedFinding(file, j, headLines));
    } else if (broken) fail.push(j);
    else if (j.v.fate.kind === 'dropped' && j.v.def.isPublic && !notApi) publicRemoved.push(j);
  }
  if (fail.length) out.unshift(...failFindings(file, fail, l.headHasError));
  if (publicRemoved.length) out.push(publicRemovalFinding(file, publicRemoved));
  return out;
}

function guardError(what: string, err: unknown, path?: string): GuardFinding {
  return {
    category: 'guard-error',
    severity: 'fail',
    ...(path ? { path } : {}),
    message: `${what}: ${err instanceof Error ? err.message : String(err)}`,
    remediation: 'G7 left this unchecked; re-run the gate, and report the error if it repeats.',
  };
}

/** Head texts of the PR's other changed Rust files that define macros (where items can be declared). */
function rustHeadsOf(ctx: GuardContext, except: string): string[] {
  return ctx.patch.files
    .filter((f) => f.path !== except && f.path.endsWith('.rs') && f.head.text?.includes('macro_rules!'))
    .map((f) => f.head.text ?? '');
}

/**
 * Items a Rust PR moved into a `macro_rules!` body (expanded where the macro is invoked) are not
 * top-level definitions of any file, so they look dropped; their declaration text is still there.
 */
function declaredInMacroBody(def: Definition, heads: readonly string[]): boolean {
  const name = def.simpleName.replace(/[^\w]/g, '');
  if (!name) return false;
  const decl = new RegExp(`\\b(?:mod|fn|struct|enum|trait|type|const|static|union)\\s+${name}\\b|macro_rules!\\s*${name}\\b`);
  return heads.some((text) => decl.test(text));
}

export const g7: Guard = {
  id: 'G7',
  name: 'top-level definitions kept',
  evidence: G7_EVIDENCE,
  needs: { services: [] },

  appliesTo(file) {
    return TARGET_STATUSES.has(file.status) && file.head.text !== null && languageOf(file.path) !== null;
  },
  async checkAll(files, ctx) {
    const candidates = await candidatesOf(files, ctx);
    const findings: GuardFinding[] = [];
    const losses: FileLoss[] = [];
    for (const file of files) {
      if (ctx.signal.aborted) break;
      if (!SOURCE_STATUSES.has(file.status)) continue;
      try {
        const loss = await lossOf(file, ctx, candidates);
        if (loss) losses.push(loss);
      } catch (err) {
        findings.push(guardError(`G7 could not compare the definitions of ${file.path}`, err, file.path));
      }
    }
    if (losses.length === 0) return findings;
    let judged: Map<FileLoss, Judged[]>;
    try {
      judged = await judge(losses, ctx);
    } catch (err) {
      return [...findings, guardError('G7 could not search the head tree for remaining uses of removed definitions', err)];
    }
    for (const l of losses) findings.push(...findingsFor(l, judged.get(l) ?? []));
    return findings;
  },
};
