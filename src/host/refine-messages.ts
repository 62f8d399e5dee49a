import type { Finding } from '../core/finding.js';
import type { RefineResult } from '../refiner/refine.js';
import { codeBlock, codeSpan, escapeInline, inertText } from '../report/markdown-escape.js';
import { clip, firstLine, stripControl } from '../report/format-helpers.js';

/** Marks slopgate's refine comments and reviews (an HTML comment built here, never from PR content). */
export const REFINE_MARKER = '<!-- slopgate:refine -->';

const MAX_LISTED = 30;
/** A review body may hold 65,536 characters; the diff gets most of it. */
const MAX_DIFF_CHARS = 50_000;

function findingLine(f: Finding): string {
  const where = f.path ? ` ${f.path}${f.line ? `:${f.line}` : ''}` : '';
  return `${f.id} [${f.guard}]${where}: ${firstLine(stripControl(f.message), 100)}`;
}

/**
 * The commit message of a landed refine: a subject, then each fixed finding on its own line (id,
 * guard, place, the first line of its message), then what made the fix. Plain text, but GitHub links
 * mentions and issue references in commit messages (and `fixes #12` closes an issue on merge), so it
 * is made inert like everything else slopgate writes.
 */
export function refineCommitMessage(result: RefineResult, fixed: readonly Finding[], round: number): string {
  const n = fixed.length;
  const subject = `slopgate refine: fix ${n} finding${n === 1 ? '' : 's'} (round ${round})`;
  const listed = fixed.slice(0, MAX_LISTED).map((f) => `- ${findingLine(f)}`);
  if (fixed.length > MAX_LISTED) listed.push(`- … and ${fixed.length - MAX_LISTED} more`);
  const how = result.attempts.filter((a) => a.outcome === 'kept').map((a) => a.source);
  const lines = [subject, '', 'Fixes:', ...listed, '', `Made by: ${how.join(', ') || 'the refiner'}`];
  lines.push('Every guard of the refiner phase ran on this change before it was pushed; it strictly reduced the blocking findings.');
  return inertText(lines.join('\n')) + '\n';
}

/** The findings of the report the kept patch fixed, in report order. */
export function fixedFindings(report: { findings: Finding[] }, result: RefineResult): Finding[] {
  const ids = new Set(result.fixed);
  return report.findings.filter((f) => ids.has(f.id));
}

function attemptLines(result: RefineResult): string[] {
  return result.attempts.map((a) => {
    const why = a.reason ? `: ${escapeInline(firstLine(stripControl(a.reason), 200))}` : '';
    return `- attempt ${a.n}, ${codeSpan(a.source)}, **${a.outcome}**${why}`;
  });
}

/** Why nothing was pushed or suggested: every attempt and how it ended, and the notes. */
export function nothingKeptComment(result: RefineResult, head: string): string {
  const out = [
    `### slopgate refine: nothing to land on \`${head.slice(0, 7)}\``,
    '',
    `No candidate patch passed the refiner's guards while strictly reducing the ${result.blockingBefore} blocking finding(s), so nothing was pushed or suggested. A candidate that fails a guard is reverted, never landed.`,
  ];
  const attempts = attemptLines(result);
  if (attempts.length) out.push('', ...attempts);
  for (const n of result.notes) out.push(`- note: ${escapeInline(stripControl(n))}`);
  for (const e of result.excluded) out.push(`- left out: ${codeSpan(e.path)} (${escapeInline(stripControl(e.reason))})`);
  out.push('', 'Fix the findings in the check run by hand and push; slopgate gates the new head.');
  return out.join('\n');
}

/** The conversation comment after a push: the new commit and what it fixed. */
export function pushedComment(sha: string, branch: string, fixed: readonly Finding[], model: string | null): string {
  const list = fixed.slice(0, MAX_LISTED).map((f) => `- ${escapeInline(findingLine(f))}`);
  return [
    `### slopgate refine: pushed \`${sha.slice(0, 7)}\` to ${codeSpan(branch)}`,
    '',
    `One commit fixing ${fixed.length} finding(s); it passed the refiner's guards before it was pushed. slopgate gates the new head now.`,
    '',
    ...list,
    ...madeBy(model),
  ].join('\n');
}

/** Which fixers ran: recipes only (no model configured) is said plainly. */
function madeBy(model: string | null): string[] {
  return model ? [] : ['', 'Recipes only: no model is configured for this installation (SLOPGATE_LLM_*).'];
}

/**
 * The body of the suggestions review: why suggestions (not a push), what they fix, and the part of the
 * patch that could not be placed as suggestions, as a collapsed diff (code-fenced, so it is inert).
 */
export function suggestionsBody(opts: {
  why: string;
  fixed: readonly Finding[];
  diff: string;
  leftOver: readonly string[];
  suggested: number;
  /** The model that took part, or null when only recipes ran. */
  model: string | null;
}): string {
  const out = [
    '### slopgate refine: suggested fixes',
    '',
    `${opts.why} The patch passed the refiner's guards; commit the suggestions to apply it.`,
    '',
    ...opts.fixed.slice(0, MAX_LISTED).map((f) => `- ${escapeInline(findingLine(f))}`),
    ...madeBy(opts.model),
  ];
  if (opts.leftOver.length) {
    const files = opts.leftOver.map((p) => codeSpan(p)).join(', ');
    const reason =
      opts.suggested === 0
        ? 'The patch is too large, or lies outside the lines this PR changed, to be offered as suggestions.'
        : 'Part of the patch is too large, or lies outside the lines this PR changed, to be offered as suggestions.';
    out.push(
      '',
      `${reason} Its diff for ${files}:`,
      '',
      '<details><summary>the proposed patch</summary>',
      '',
      codeBlock(clip(opts.diff, MAX_DIFF_CHARS), 'diff'),
      '',
      '</details>',
    );
  }
  return out.join('\n');
}
