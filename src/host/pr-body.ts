import { qaBlockMarkdown } from '../report/qa-section.js';
import { escapeInline } from '../report/markdown-escape.js';
import type { Decision } from '../routing/types.js';

export const BODY_START = '<!-- slopgate:start -->';
export const BODY_END = '<!-- slopgate:end -->';
/** GitHub takes ~65,536 characters in a PR body; stay well below, like other bots do. */
export const MAX_BODY_CHARS = 60_000;

/** State of the Q&A self-consistency phase, as the PR body shows it. */
export type QaState = { status: 'not-run'; reason: string } | { status: 'crashed'; reason: string } | { status: 'ran'; markdown: string };

export interface BodySectionInput {
  decision: Pick<Decision, 'outcome' | 'reason' | 'blocking' | 'advisory' | 'round' | 'maxRounds'>;
  headSha: string;
  checkRunUrl?: string;
  /** Extra lines for the summary (e.g. "tests: 1 regression"). */
  notes?: string[];
  qa: QaState;
  /** Shows the PR's round only where rounds are kept (the App; default). */
  rounds?: boolean;
}

/** The Q&A block of the PR body (one heading deeper than the check run's); a crash is loud. */
export function renderQaBlock(qa: QaState): string {
  return qaBlockMarkdown(qa, 4);
}

const OUTCOME_ICON: Record<string, string> = {
  PASS: '✅',
  ADVISE: 'ℹ️',
  SKIPPED: '⏭️',
  REFINE: '❌',
  RESEARCH: '❓',
  ASK_AUTHOR: '❓',
  ESCALATE: '🧑‍⚖️',
  STUCK: '⛔',
};

/** The whole section between the markers (markers included). */
export function renderBodySection(input: BodySectionInput): string {
  const d = input.decision;
  const link = input.checkRunUrl ? ` · [details](${input.checkRunUrl})` : '';
  const lines = [
    BODY_START,
    '### slopgate',
    '',
    `${OUTCOME_ICON[d.outcome] ?? ''} **${d.outcome}** on \`${input.headSha.slice(0, 7)}\` — ${escapeInline(d.reason.replace(/\s+/g, ' '))}${link}`.trim(),
    '',
    `${d.blocking} blocking · ${d.advisory} advisory${input.rounds === false ? '' : ` · round ${d.round} of ${d.maxRounds}`}`,
  ];
  for (const n of input.notes ?? []) lines.push('', escapeInline(n));
  lines.push(
    '',
    renderQaBlock(input.qa),
    '',
    '<sub>This section is rewritten by slopgate on every run; edits inside it are lost.</sub>',
    BODY_END,
  );
  return lines.join('\n');
}

/**
 * Puts `section` into `body`: replaces the first marked section, drops any further copies, and
 * appends it when there is none. Text outside the markers is kept byte for byte. A start marker
 * without an end (or the reverse) is removed on its own; nothing around it is touched.
 */
export function spliceBodySection(body: string | null | undefined, section: string): string {
  const text = body ?? '';
  const pieces: string[] = [];
  let placed = false;
  let pos = 0;
  for (;;) {
    const first = text.indexOf(BODY_START, pos);
    if (first < 0) break;
    const end = text.indexOf(BODY_END, first + BODY_START.length);
    if (end < 0) break;
    // With several starts before one end, the section begins at the last of them.
    const start = text.lastIndexOf(BODY_START, end);
    pieces.push(stripStrayMarkers(text.slice(pos, start)));
    if (!placed) pieces.push(section);
    placed = true;
    pos = end + BODY_END.length;
  }
  pieces.push(stripStrayMarkers(text.slice(pos)));
  let out = pieces.join('');
  if (!placed) {
    const author = out.replace(/\s+$/, '');
    out = author ? `${author}\n\n${section}\n` : `${section}\n`;
  }
  return out;
}

function stripStrayMarkers(text: string): string {
  return text.split(BODY_START).join('').split(BODY_END).join('');
}

/** Fits the section into the body limit by shortening only our part. */
export function fitSection(body: string | null | undefined, section: string): string {
  const outside = (body ?? '').length;
  const room = MAX_BODY_CHARS - outside - 4;
  if (section.length <= room) return section;
  const short = [
    BODY_START,
    '### slopgate',
    '',
    'The summary did not fit into the PR description; see the slopgate check run.',
    BODY_END,
  ].join('\n');
  return short;
}
