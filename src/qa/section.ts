import { codeSpan, escapeInline } from '../report/markdown-escape.js';
import { stripControl } from '../report/format-helpers.js';
import type { QaResult, QaSection } from './types.js';

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
