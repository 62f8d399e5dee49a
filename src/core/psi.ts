import { codeBlocksOf } from './fenced-blocks.js';
import { countLiteralNewlines } from './literal-newlines.js';

/**
 * Ψ-lite, the pure part: the slop score Ω of one file and Ψ = α·Γ − λ·Ω.
 *
 * Ω is the sum of five signals, clamped to 1:
 *   A. written-out `\n` on a code-block line: +min(0.5, 0.1·count) per line
 *   B. runs of 3+ blank lines: +min(0.3, 0.05·runs)
 *   C. lines with trailing spaces/tabs: +min(0.2, lines / max(1, newlines in the file))
 *   D. a source file wrapped in a Markdown fence: +0.6
 *   E. a near-empty source file (< 5 chars after trimming): +0.4
 * Unlike the original, only what the PR wrote counts: A–C look at added lines only, D and E only
 * when the base version was not already like that, A ignores `\n` inside quoted strings, C ignores
 * Markdown hard line breaks, and E ignores `__init__.py` (empty by convention).
 */

export const SOURCE_SUFFIXES = [
  '.py',
  '.rs',
  '.go',
  '.ts',
  '.tsx',
  '.js',
  '.jsx',
  '.mjs',
  '.java',
  '.kt',
  '.rb',
  '.php',
  '.c',
  '.cpp',
  '.h',
  '.hpp',
];

export interface OmegaInput {
  path: string;
  text: string;
  /** The base version, or null for a file the PR adds. */
  baseText: string | null;
  /** True for head lines (1-based) the PR added. */
  isAdded: (line: number) => boolean;
}

export interface OmegaComponents {
  literalNewlines: number;
  blankRuns: number;
  trailingWhitespace: number;
  fencedSource: number;
  nearEmpty: number;
}

export interface OmegaResult {
  omega: number;
  components: OmegaComponents;
  /** Head lines behind A, B (first blank line of each run) and C. */
  lines: { literalNewlines: number[]; blankRuns: number[]; trailingWhitespace: number[] };
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

const isSource = (path: string) => SOURCE_SUFFIXES.some((s) => path.toLowerCase().endsWith(s));
const isMarkdown = (path: string) => /\.(md|mdx|markdown)$/i.test(path);
const fenceWrapped = (text: string) => {
  const t = text.trim();
  return t.startsWith('```') && t.endsWith('```');
};
const nearEmpty = (text: string) => text.trim().length < 5;

function literalNewlineScore(input: OmegaInput): { score: number; lines: number[] } {
  let score = 0;
  const lines: number[] = [];
  for (const block of codeBlocksOf(input.path, input.text)) {
    for (const l of block.body) {
      if (!input.isAdded(l.line)) continue;
      const n = countLiteralNewlines(l.text).outsideStrings;
      if (n === 0) continue;
      score += Math.min(0.5, 0.1 * n);
      lines.push(l.line);
    }
  }
  return { score, lines };
}

function blankRunScore(text: string, isAdded: (line: number) => boolean): { score: number; lines: number[] } {
  const lines: number[] = [];
  let pos = 0;
  let line = 1;
  const lineAt = (offset: number) => {
    for (; pos < offset; pos++) if (text.charCodeAt(pos) === 10) line++;
    return line;
  };
  for (const m of text.matchAll(/\n{4,}/g)) {
    const first = lineAt(m.index) + 1; // the first blank line of the run
    const last = first + m[0].length - 2;
    for (let l = first; l <= last; l++) {
      if (isAdded(l)) {
        lines.push(first);
        break;
      }
    }
  }
  return { score: Math.min(0.3, 0.05 * lines.length), lines };
}

function trailingWhitespaceScore(input: OmegaInput, text: string): { score: number; lines: number[] } {
  const all = text.split('\n');
  const newlines = all.length - 1;
  const inFence = new Set(isMarkdown(input.path) ? codeBlocksOf(input.path, text).flatMap((b) => b.body.map((l) => l.line)) : []);
  const lines: number[] = [];
  for (let i = 0; i < newlines; i++) {
    const line = all[i]!;
    if (!/[ \t]$/.test(line) || !input.isAdded(i + 1)) continue;
    const hardBreak = isMarkdown(input.path) && !inFence.has(i + 1) && /\S {2,}$/.test(line) && (all[i + 1] ?? '').trim() !== '';
    if (!hardBreak) lines.push(i + 1);
  }
  return { score: Math.min(0.2, lines.length / Math.max(1, newlines)), lines };
}

/** Ω of one file at head. */
export function omegaOf(input: OmegaInput): OmegaResult {
  const text = input.text.replace(/\r\n/g, '\n');
  const a = literalNewlineScore({ ...input, text });
  const b = blankRunScore(text, input.isAdded);
  const c = trailingWhitespaceScore(input, text);
  const source = isSource(input.path);
  const base = input.baseText?.replace(/\r\n/g, '\n') ?? null;
  const d = source && fenceWrapped(text) && !(base !== null && fenceWrapped(base)) ? 0.6 : 0;
  const basename = input.path.slice(input.path.lastIndexOf('/') + 1);
  const e = source && nearEmpty(text) && !/^__init__\.pyi?$/.test(basename) && !(base !== null && nearEmpty(base)) ? 0.4 : 0;
  const components: OmegaComponents = {
    literalNewlines: round(a.score),
    blankRuns: round(b.score),
    trailingWhitespace: round(c.score),
    fencedSource: d,
    nearEmpty: e,
  };
  const omega = round(Math.min(1, a.score + b.score + c.score + d + e));
  return { omega, components, lines: { literalNewlines: a.lines, blankRuns: b.lines, trailingWhitespace: c.lines } };
}

export interface PsiWeights {
  alpha: number;
  lambda: number;
}

/** Ψ = α·Γ − λ·Ω (not clamped: it can go below 0). */
export function psiOf(gamma: number, omega: number, w: PsiWeights): number {
  return round(w.alpha * gamma - w.lambda * omega);
}
