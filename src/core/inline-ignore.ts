import { isCategory, type Category } from './categories.js';

/**
 * `slopgate-ignore <category>: <reason>` markers in source comments. The marker must follow a comment
 * opener (`#`, `//`, `--`, `/*`, `<!--`, or a `*` continuing a block comment), so the word in a string
 * literal or in prose does not count. A closing `*\/` or `-->` after the reason is not part of it.
 */
export type InlineMarker = { ok: true; category: Category; reason: string } | { ok: false; problem: string };

const MARKER = /(?:#|\/\/|--|\/\*+|<!--|^\s*\*)\s*slopgate-ignore\b(.*)$/;
const BODY = /^\s+([A-Za-z0-9_-]+)\s*:\s*(.*)$/;
const CLOSER = /\s*(?:\*\/|-->)\s*$/;
/** A reason longer than this is cut (the report shows it; the comment is PR-controlled). */
const MAX_REASON = 300;

/** Parses the marker on one line, or returns undefined when the line has none. */
export function parseInlineMarker(line: string): InlineMarker | undefined {
  const m = MARKER.exec(line);
  if (!m) return undefined;
  const rest = m[1]!.replace(CLOSER, '');
  const body = BODY.exec(rest);
  if (!body) return { ok: false, problem: 'it names no category and reason; write `slopgate-ignore <category>: <reason>`' };
  const category = body[1]!.toLowerCase();
  if (!isCategory(category)) return { ok: false, problem: `'${category}' is not a finding category` };
  const reason = body[2]!.trim();
  if (!reason) return { ok: false, problem: `it gives no reason; write \`slopgate-ignore ${category}: <why>\`` };
  return { ok: true, category, reason: reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON - 1)}…` : reason };
}

export interface MarkerAt {
  /** 1-based line of the marker. */
  line: number;
  marker: InlineMarker;
}

/** The markers that apply to a finding on `line`: one on that line, then one on the line above. */
export function markersFor(lines: readonly string[], line: number): MarkerAt[] {
  const out: MarkerAt[] = [];
  for (const at of [line, line - 1]) {
    if (at < 1 || at > lines.length) continue;
    const marker = parseInlineMarker(lines[at - 1]!);
    if (marker) out.push({ line: at, marker });
  }
  return out;
}
