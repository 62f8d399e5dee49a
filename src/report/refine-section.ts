import type { RefineRowView, RefineView } from '../core/report-sections.js';
import { escapeCell } from './markdown-escape.js';
import { stripControl } from './format-helpers.js';
import { isRecord } from '../core/is-record.js';

/**
 * The `refine` report section: the refine attempts of this PR (recipes and model replies), kept
 * small — at most 10 rows, each with its source, outcome, paths and the first line of its reason.
 */

const MAX_ROWS = 10;
const MAX_REASON = 200;

function row(v: unknown): RefineRowView | null {
  if (!isRecord(v) || typeof v.source !== 'string' || typeof v.outcome !== 'string') return null;
  const r: RefineRowView = {
    n: typeof v.n === 'number' ? v.n : 0,
    source: v.source,
    outcome: v.outcome,
    paths: Array.isArray(v.paths) ? v.paths.filter((p): p is string => typeof p === 'string').slice(0, 5) : [],
  };
  if (typeof v.round === 'number') r.round = v.round;
  if (typeof v.reason === 'string' && v.reason) r.reason = v.reason.split('\n')[0]!.slice(0, MAX_REASON);
  return r;
}

/** An attempt, stored or fresh: a report row plus the tokens it spent. */
export interface AttemptLike extends RefineRowView {
  tokens?: { prompt: number; completion: number };
}

/** Builds the section from attempts (stored or fresh); undefined when there are none. */
export function refineSection(attempts: readonly AttemptLike[]): RefineView | undefined {
  if (attempts.length === 0) return undefined;
  const rows = attempts
    .slice(-MAX_ROWS)
    .map(row)
    .filter((r): r is RefineRowView => r !== null);
  return {
    attempts: rows,
    kept: attempts.filter((a) => a.outcome === 'kept').length,
    reverted: attempts.filter((a) => a.outcome === 'reverted').length,
    tokens: attempts.reduce((n, a) => n + (a.tokens ? a.tokens.prompt + a.tokens.completion : 0), 0),
  };
}

/** Tolerant reader (the section may come from an older or newer slopgate). */
export function readRefine(section: unknown): RefineView | null {
  if (!isRecord(section) || !Array.isArray(section.attempts)) return null;
  const attempts = section.attempts
    .map(row)
    .filter((r): r is RefineRowView => r !== null)
    .slice(-MAX_ROWS);
  if (attempts.length === 0) return null;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return { attempts, kept: num(section.kept), reverted: num(section.reverted), tokens: num(section.tokens) };
}

function headline(v: RefineView): string {
  return `Refine attempts: ${v.kept} kept, ${v.reverted} reverted${v.tokens ? `, ${v.tokens} tokens` : ''}`;
}

/** Terminal lines (untrusted text stripped of control characters). */
export function refineTextLines(section: unknown): string[] {
  const v = readRefine(section);
  if (!v) return [];
  const out = [headline(v)];
  for (const a of v.attempts) {
    const where = a.paths.length ? ` ${a.paths.join(', ')}` : '';
    const round = a.round ? ` (round ${a.round})` : '';
    out.push(stripControl(`  #${a.n}${round} ${a.source} → ${a.outcome}${where}${a.reason ? ` — ${a.reason}` : ''}`));
  }
  return out;
}

/** Markdown block (every untrusted cell escaped). */
export function refineMarkdown(section: unknown): string {
  const v = readRefine(section);
  if (!v) return '';
  const rows = v.attempts.map((a) => {
    const cells = [String(a.n), escapeCell(a.source), escapeCell(a.outcome), escapeCell(a.paths.join(', ')), escapeCell(a.reason ?? '')];
    return `| ${cells.join(' | ')} |`;
  });
  return ['', `### ${headline(v)}`, '', '| # | source | outcome | paths | why |', '|--:|---|---|---|---|', ...rows].join('\n') + '\n';
}
