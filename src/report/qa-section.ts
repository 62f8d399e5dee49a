import { isRecord } from '../core/is-record.js';
import { clipAtWord, stripControl } from './format-helpers.js';
import { codeSpan, escapeInline } from './markdown-escape.js';

/*
 * The Q&A phase's block in a report (`sections.qa`), rendered for the check run and the PR body. The phase
 * (src/qa/) writes the section; this file only reads it, from whatever a stored report holds.
 */

/** An environment variable's name (`SLOPGATE_LLM_BASE_URL`): the part of a reason that says what to set. */
const ENV_VAR = /\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/;

/**
 * The reason's first line for a one-line summary: cut at a word with an ellipsis past 160 characters, or
 * past 400 when it names an environment variable (the remedy: what to set is never cut off).
 */
function summaryReason(reason: string): string {
  const line = stripControl(reason).split('\n', 1)[0]!;
  return clipAtWord(line, ENV_VAR.test(line) ? 400 : 160);
}

/** The one Q&A line of the check-run summary, from whatever `sections.qa` holds; `escape` applies to the reason. */
export function qaSummaryLine(section: unknown, escape: (text: string) => string = (t) => t): string | null {
  if (!isRecord(section)) return null;
  const s = section; // a report read back from JSON: checked field by field below
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const reason = typeof s.reason === 'string' ? summaryReason(s.reason) : 'no reason recorded';
  if (s.status === 'ran') return `Q&A: ${num(s.handled)} handled / ${num(s.gap)} gap / ${num(s.uncertain)} uncertain`;
  if (s.status === 'crashed') return `Q&A: crashed (${escape(reason)}) — treat this PR as ungated`;
  if (s.status === 'not-run') return `Q&A: not run (${escape(reason)})`;
  return null;
}

/**
 * The Q&A block in Markdown, for `--format markdown` and the PR body (which nests it one heading deeper): a
 * crash is loud, so the PR never looks gated when it was not; a run shows its answers; a skip says why.
 * Reads whatever `sections.qa` holds; returns '' when there is none.
 */
export function qaBlockMarkdown(section: unknown, headingLevel: 3 | 4 = 3): string {
  if (!isRecord(section)) return '';
  const s = section; // a report read back from JSON: checked field by field below
  const h = '#'.repeat(headingLevel);
  const reason =
    typeof s.reason === 'string'
      ? (stripControl(s.reason)
          .split('\n')
          .map((l) => l.trim())
          .find(Boolean) ?? '')
      : '';
  if (s.status === 'crashed') {
    return [
      `${h} ⚠️ Q&A self-consistency phase CRASHED`,
      '',
      `Reason: ${codeSpan(reason.slice(0, 500)) || 'no reason recorded'}`,
      '',
      '**Treat this PR as ungated** by the Q&A phase until it runs again: its questions were never asked or answered.',
    ].join('\n');
  }
  if (s.status === 'ran' && typeof s.markdown === 'string') return [`${h} Q&A self-consistency`, '', s.markdown].join('\n');
  if (s.status === 'not-run') {
    return [`${h} Q&A self-consistency`, '', `Not run: ${escapeInline(reason || 'no reason recorded')}`].join('\n');
  }
  return '';
}
