/**
 * Turning a model's reply into one JSON object. Models wrap JSON in markdown fences, put a sentence before
 * or after it, leave trailing commas, forget to escape a quote inside a string, or break a string over
 * several lines. `parseJsonReply` tries, in order: each fenced block whose body starts with `{`, the
 * first balanced `{…}` (string-aware), and the span from the first `{` to the last `}`. Each candidate is
 * parsed as is, then once more after `repairJson` (only when the repair changed something). The first
 * candidate that parses to a plain object wins; otherwise the error of the first candidate is returned so
 * the corrective turn can quote it.
 */

export type JsonReply = { ok: true; value: Record<string, unknown>; repaired: boolean } | { ok: false; error: string };
import { isRecord } from '../core/is-record.js';

/** Removes reasoning blocks (`<think>…</think>`) a Qwen3-class model puts before its answer. */
export function stripThinking(raw: string): string {
  let text = raw.replace(/<think>[\s\S]*?<\/think>/g, '');
  // A reply cut inside its reasoning has an opener and no closer: nothing after it is an answer.
  const open = text.indexOf('<think>');
  if (open >= 0) text = text.slice(0, open);
  return text.trim();
}

export function parseJsonReply(raw: string): JsonReply {
  const candidates = jsonCandidates(raw);
  if (candidates.length === 0) return { ok: false, error: 'the reply contains no JSON object (no "{" found)' };
  let firstError = '';
  for (const candidate of candidates) {
    const direct = tryParse(candidate);
    if (direct.ok) return { ok: true, value: direct.value, repaired: false };
    if (firstError === '') firstError = direct.error;
    const repaired = repairJson(candidate);
    if (repaired !== candidate) {
      const second = tryParse(repaired);
      if (second.ok) return { ok: true, value: second.value, repaired: true };
    }
  }
  return { ok: false, error: firstError };
}

function tryParse(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!isRecord(parsed)) {
    return { ok: false, error: `expected one JSON object, got ${Array.isArray(parsed) ? 'an array' : typeof parsed}` };
  }
  return { ok: true, value: parsed };
}

/** The texts worth parsing, most specific first, without duplicates. */
export function jsonCandidates(raw: string): string[] {
  const text = raw.trim();
  const out: string[] = [];
  const add = (c: string | null): void => {
    if (c === null) return;
    const t = c.trim();
    if (t.startsWith('{') && !out.includes(t)) out.push(t);
  };
  const fence = /```[^\n`]*\n([\s\S]*?)```/g;
  let fenced = 0;
  for (const m of text.matchAll(fence)) {
    fenced++;
    add(m[1] ?? null);
  }
  // An opening fence without a closer (the reply was cut or the model forgot it).
  const opener = fenced === 0 ? /^```[^\n`]*\n([\s\S]*)$/.exec(text) : null;
  if (opener) add(opener[1] ?? null);
  const first = text.indexOf('{');
  if (first >= 0) {
    add(balancedObject(text, first));
    const last = text.lastIndexOf('}');
    if (last > first) add(text.slice(first, last + 1));
    // Nothing closes: keep the tail so the error names what is missing instead of "no JSON".
    if (out.length === 0) add(text.slice(first));
  }
  return out;
}

/** From `start` (a `{`) to its matching `}`, skipping braces inside double-quoted strings; null when unbalanced. */
function balancedObject(text: string, start: number): string | null {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) return text.slice(start, i + 1);
    }
  }
  return null;
}

const CLOSERS_AFTER_STRING = new Set([',', ':', '}', ']']);
const VALID_ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const PYTHON_LITERALS: Record<string, string> = { True: 'true', False: 'false', None: 'null' };

/**
 * One pass over the text that fixes what models get wrong most often, and leaves valid JSON unchanged:
 * - commas before `}` or `]` (outside strings) are dropped;
 * - single-quoted strings become double-quoted; bare keys (`{name: 1}`) get quotes; `True`/`False`/`None` become JSON;
 * - inside a string, a `"` that is not followed by `,` `:` `}` `]` (or a line break and then one of `,` `}` `]`,
 *   or the end) is taken as part of the text and escaped;
 * - raw line breaks, tabs and other control characters inside strings are escaped; an invalid escape such as
 *   `\d` keeps its backslash as text.
 * The quote rule is a guess: `"he said "no", then left"` still fails and goes back to the model.
 */
export function repairJson(text: string): string {
  let out = '';
  let quote: '"' | "'" | null = null;
  let lastSignificant = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (quote === null) {
      if (ch === '"' || ch === "'") {
        quote = ch;
        out += '"';
      } else if (ch === ',') {
        const next = nextNonSpace(text, i + 1);
        if (next !== '}' && next !== ']') {
          out += ch;
          lastSignificant = ch;
        }
      } else if (/[A-Za-z_$]/.test(ch)) {
        const word = /^[A-Za-z_$][\w$]*/.exec(text.slice(i))?.[0] ?? ch;
        const isKey = (lastSignificant === '{' || lastSignificant === ',') && nextNonSpace(text, i + word.length) === ':';
        out += isKey ? `"${word}"` : (PYTHON_LITERALS[word] ?? word);
        lastSignificant = word.charAt(word.length - 1);
        i += word.length - 1;
      } else {
        out += ch;
        if (!/\s/.test(ch)) lastSignificant = ch;
      }
      continue;
    }
    if (ch === '\\') {
      const next = text.charAt(i + 1);
      if (quote === "'" && next === "'") out += "'";
      else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) out += '\\u';
      else if (VALID_ESCAPES.has(next)) out += `\\${next}`;
      else if (next === '') out += '\\\\';
      else {
        out += '\\\\';
        continue; // the next character is ordinary text; let the loop handle it (it may be a raw newline)
      }
      i++;
      continue;
    }
    if (ch === quote) {
      if (closesString(text, i + 1)) {
        quote = null;
        out += '"';
        lastSignificant = '"';
      } else out += quote === '"' ? '\\"' : "'";
      continue;
    }
    if (ch === '"')
      out += '\\"'; // a double quote inside a single-quoted string
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch < ' ') out += `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out;
}

function nextNonSpace(text: string, from: number): string {
  for (let i = from; i < text.length; i++) {
    const ch = text.charAt(i);
    if (!/\s/.test(ch)) return ch;
  }
  return '';
}

/** Whether a quote whose next character is at `from` ends the string (see `repairJson`). */
function closesString(text: string, from: number): boolean {
  let i = from;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r')) i++;
  if (i >= text.length) return true;
  const ch = text.charAt(i);
  if (CLOSERS_AFTER_STRING.has(ch)) return true;
  if (ch !== '\n') return false;
  const next = nextNonSpace(text, i);
  return next === '' || next === ',' || next === '}' || next === ']';
}
