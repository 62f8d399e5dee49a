import type { GuardContext } from '../../core/guard.js';
import { blockKey, codeBlocksOf, type CodeBlock } from '../../core/fenced-blocks.js';
import { isAddedLine, type ChangedFile } from '../../core/patch-set.js';
import { docKindOf, textLines } from '../shared/doc-files.js';
import { addedComponentText, isComponentFile, phraseOf } from './component-text.js';

/**
 * Where the text a doc lost went. A PR that splits a long README into `docs/*.md`, or merges two pages,
 * removes text from one doc and adds it to another: that is a move, not destruction. This collects
 * what every other doc of the PR gained (lines it added, code blocks new at head), so G13 can count
 * moved content as kept. Text a page component of the PR gained (`component-text.ts`) counts too:
 * a doc page whose content became a Vue or JSX layout moved, it was not destroyed.
 */
export interface Landing {
  /** Trimmed lines other docs added, by doc. */
  lines: Map<string, string>;
  /** Body keys of code blocks that are new at head in another doc, by doc. */
  blocks: Map<string, string>;
  /** Added text of the PR's page components (markup stripped), by file. */
  components: Map<string, string>;
  /** Runs of SHINGLE words (lower case, markup and line breaks ignored) in the text other docs added, by doc. */
  shingles: Map<string, string>;
}

/** Words per shingle: a paragraph moved and re-wrapped, or under a heading of another level, still matches. */
const SHINGLE = 5;
/** A removed paragraph moved when at least this share of its shingles is in text other docs added. */
const MOVED_SHARE = 0.8;

const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];

function shinglesOf(words: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + SHINGLE <= words.length; i++) out.push(words.slice(i, i + SHINGLE).join(' '));
  return out;
}

function collect(files: ChangedFile[]): Landing {
  const lines = new Map<string, string>();
  const blocks = new Map<string, string>();
  const components = new Map<string, string>();
  const shingles = new Map<string, string>();
  for (const f of files) {
    if (f.status !== 'deleted' && f.head.text !== null && f.added.length > 0 && isComponentFile(f.path)) {
      const text = addedComponentText(f);
      if (text) components.set(f.path, text);
    }
    if (f.status === 'deleted' || f.head.text === null || docKindOf(f.path) === null) continue;
    // Consecutive added lines are one run of words, so a paragraph re-wrapped over other lines matches.
    let run: string[] = [];
    const flush = () => {
      for (const sh of shinglesOf(run)) if (!shingles.has(sh)) shingles.set(sh, f.path);
      run = [];
    };
    textLines(f.head.text).forEach((line, i) => {
      const t = line.trim();
      const added = isAddedLine(f, i + 1);
      if (t && added && !lines.has(t)) lines.set(t, f.path);
      if (added) run.push(...wordsOf(line));
      else flush();
    });
    flush();
    const before = new Set(f.base.text === null ? [] : codeBlocksOf(f.oldPath ?? f.path, f.base.text).map(blockKey));
    for (const b of codeBlocksOf(f.path, f.head.text)) {
      const key = blockKey(b);
      if (key && !before.has(key) && !blocks.has(key)) blocks.set(key, f.path);
    }
  }
  return { lines, blocks, components, shingles };
}

/** What other docs of the PR gained (computed once per run). */
export function landingOf(ctx: GuardContext): Promise<Landing> {
  return ctx.memo('g13:landing', async () => collect(ctx.patch.files));
}

/** The lost blocks of `file` that another doc of the PR gained, with where they went. */
export function movedBlocks(file: ChangedFile, lost: CodeBlock[], landing: Landing): { block: CodeBlock; to: string }[] {
  const out: { block: CodeBlock; to: string }[] = [];
  for (const block of lost) {
    const to = landing.blocks.get(blockKey(block));
    if (to && to !== file.path) out.push({ block, to });
  }
  return out;
}

/** The page component of the PR whose added text holds the words of doc line `line`, if any. */
function componentHolding(line: string, landing: Landing): string | undefined {
  const phrase = landing.components.size ? phraseOf(line) : null;
  if (!phrase) return undefined;
  for (const [path, text] of landing.components) if (text.includes(phrase)) return path;
  return undefined;
}

/**
 * Characters of the lines `file` removed that reappear as added lines of another doc, or as added text
 * of a page component, and where they went.
 */
export function movedText(file: ChangedFile, landing: Landing): { chars: number; to: string[] } {
  const base = textLines(file.base.text ?? '');
  const to = new Set<string>();
  let chars = 0;
  for (const range of file.removed) {
    // A paragraph (removed lines up to a blank one) whose words reappear in another doc moved as a whole.
    let para: number[] = [];
    const paragraph = () => {
      const lines = para;
      para = [];
      const sh = shinglesOf(wordsOf(lines.map((n) => base[n - 1] ?? '').join(' ')));
      if (sh.length === 0) return lines;
      const where = sh.map((x) => landing.shingles.get(x)).filter((w): w is string => !!w && w !== file.path);
      if (where.length < MOVED_SHARE * sh.length) return lines;
      for (const n of lines) chars += (base[n - 1] ?? '').length + 1;
      for (const w of new Set(where)) to.add(w);
      return [];
    };
    const rest: number[] = [];
    for (let n = range.start; n <= range.end + 1; n++) {
      if (n <= range.end && base[n - 1]?.trim()) para.push(n);
      else rest.push(...paragraph());
    }
    for (const n of rest) {
      const t = base[n - 1]?.trim();
      if (!t) continue;
      const where = landing.lines.get(t) ?? componentHolding(t, landing);
      if (where && where !== file.path) {
        chars += (base[n - 1] ?? '').length + 1;
        to.add(where);
      }
    }
  }
  return { chars, to: [...to].sort() };
}
