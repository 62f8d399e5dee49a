import { codeSpan, escapeInline } from '../report/markdown-escape.js';
import { stripControl } from '../report/format-helpers.js';
import type { QaResult, QaSection } from './types.js';
import { isRecord } from '../core/is-record.js';

const VERDICT_ICON = { handled: '✅', gap: '⚠️', uncertain: '❔' } as const;

function counts(result: QaResult) {
  const n = (v: string) => result.answers.filter((a) => a.verdict === v).length;
  return { handled: n('handled'), gap: n('gap'), uncertain: n('uncertain') };
}

function inline(text: string, max: number): string {
  const one = stripControl(text).replace(/\s+/g, ' ').trim();
  return escapeInline(one.length > max ? `${one.slice(0, max - 1)}…` : one);
}

/** The Markdown the PR body and the check run show for a phase that ran. Model text is escaped. */
export function qaMarkdown(result: QaResult): string {
  const c = counts(result);
  const lines = [`${c.handled} handled · ${c.gap} gap · ${c.uncertain} uncertain`, ''];
  for (const a of result.answers) {
    const q = result.questions.find((x) => x.slot === a.slot);
    lines.push(`- ${VERDICT_ICON[a.verdict]} **${a.slot}** — ${a.verdict}${a.evidence ? ` (${codeSpan(a.evidence.slice(0, 200))})` : ''}`);
    if (q) lines.push(`  - Q: ${inline(q.question, 300)}`);
    lines.push(`  - A: ${inline(a.rationale, 300)}`);
    if (a.flipped) lines.push(`  - Flipped from handled: ${inline(a.flipped, 200)}`);
  }
  if (result.roundTrip) lines.push('', '_The defender was asked once more because a citation did not hold._');
  if (result.revisedPatch.length) {
    lines.push('', `_The defender proposed a revised patch (${result.revisedPatch.length} file(s)); it is not applied here._`);
  }
  if (c.gap) lines.push('', '**Review carefully before merging.**');
  return lines.join('\n');
}

export function ranSection(result: QaResult): QaSection {
  return { status: 'ran', markdown: qaMarkdown(result), ...counts(result) };
}

export function notRunSection(reason: string): QaSection {
  return { status: 'not-run', reason, handled: 0, gap: 0, uncertain: 0 };
}

/** `<ErrorType>: <first line of the message>`, capped. */
export function crashReason(err: unknown): string {
  const type = err instanceof Error ? err.name || 'Error' : typeof err;
  const message = err instanceof Error ? err.message : String(err);
  const first =
    stripControl(message)
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? 'no message';
  const kind = typeof err === 'object' && err !== null && 'kind' in err && typeof err.kind === 'string' ? ` (${err.kind})` : '';
  return `${type}${kind}: ${first}`.slice(0, 300);
}

export function crashedSection(reason: string): QaSection {
  return { status: 'crashed', reason, handled: 0, gap: 0, uncertain: 0 };
}

/** The one Q&A line of the check-run summary, from whatever `sections.qa` holds; `escape` applies to the reason. */
export function qaSummaryLine(section: unknown, escape: (text: string) => string = (t) => t): string | null {
  if (!isRecord(section)) return null;
  const s = section; // a report read back from JSON: checked field by field below
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const reason = typeof s.reason === 'string' ? stripControl(s.reason).split('\n', 1)[0]!.slice(0, 160) : 'no reason recorded';
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
