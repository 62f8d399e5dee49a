import type { SuiteResult } from '../core/suite-result.js';

/**
 * Caps on the failure messages a suite result keeps. A test can fail with a message of any size (an
 * assertion that prints a 50 MB string); what the gate keeps, caches and reports is bounded: each
 * message to {@link MESSAGE_CAP} characters, all messages of one run together to {@link TOTAL_CAP}.
 */
export const MESSAGE_CAP = 4096;
export const TOTAL_CAP = 256 * 1024;

/** Cuts `text` to `max` characters with a marker saying how much was left out. */
export function capMessage(text: string, max = MESSAGE_CAP): string {
  if (text.length <= max) return text;
  const note = ` … [${text.length - max} more characters cut]`;
  return text.slice(0, Math.max(0, max - note.length)) + note;
}

/**
 * Cuts the first `max` characters of a text before any further processing (splitting into lines,
 * regular expressions), so that parsing work stays proportional to what is kept.
 */
export function headOf(text: string, max = MESSAGE_CAP * 4): string {
  return text.length <= max ? text : text.slice(0, max);
}

/** The same result with every test and unit message capped, each and in total. */
export function capSuiteMessages(r: SuiteResult): SuiteResult {
  let budget = TOTAL_CAP;
  const cap = (m: string): string => {
    if (budget <= 0) return '[message dropped: the failure messages of this run exceed the total cap]';
    const kept = capMessage(m, Math.min(MESSAGE_CAP, Math.max(budget, 64)));
    budget -= kept.length;
    return kept;
  };
  const units = r.units.map((u) => (u.message === undefined ? u : { ...u, message: cap(u.message) }));
  const tests = r.tests.map((t) => (t.message === undefined ? t : { ...t, message: cap(t.message) }));
  return { ...r, units, tests };
}
