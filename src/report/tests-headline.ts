import type { TestsSection } from '../core/report-sections.js';
import { splitCodeSpans } from './markdown-escape.js';

/**
 * The one line that says what the test gate did, for the check-run title, the summary and the
 * terminal. "no regressions" only when both sides produced results and were compared; otherwise it
 * says what happened: `tests not run: <why>`, `suite does not start at the head: <why>`.
 */
export interface TestsHeadline {
  headline: string;
  /** The headline without the remedy (cut at the first `; ` outside a code span), for one-line titles. */
  short: string;
  /** Both sides ran and their results were compared (the headline is a verdict about tests). */
  compared: boolean;
}

const NOT_RUN = /^tests not run:\s*/i;

/** Runners that only know the exit code: a failing test and a suite that never started look the same. */
const EXIT_CODE_ONLY = new Set(['npm-test', 'custom']);

/** Text up to the first `; ` that is not inside a code span (a cause's remedy follows it). */
export function beforeRemedy(text: string): string {
  let out = '';
  for (const part of splitCodeSpans(text)) {
    if (part.code) {
      const fence = '`'.repeat(Math.max(0, ...(part.text.match(/`+/g) ?? []).map((r) => r.length)) + 1);
      out += `${fence}${part.text}${fence}`;
      continue;
    }
    const cut = part.text.indexOf('; ');
    if (cut >= 0) return out + part.text.slice(0, cut);
    out += part.text;
  }
  return out;
}

export function testsHeadline(s: TestsSection): TestsHeadline {
  const { headline, compared } = headlineOf(s);
  return { headline, compared, short: compared ? headline : beforeRemedy(headline) };
}

function headlineOf(s: TestsSection): Omit<TestsHeadline, 'short'> {
  const notRun = s.notRun ?? s.skipped;
  // The sandbox refusal already reads "tests not run: …"; say it once.
  if (notRun !== undefined) return { headline: `tests not run: ${notRun.replace(NOT_RUN, '')}`, compared: false };
  if (s.suiteBroken) {
    const why = s.candidate?.failure;
    const what = s.runner && EXIT_CODE_ONLY.has(s.runner) ? 'test command fails at the head' : 'suite does not start at the head';
    return { headline: why ? `${what}: ${why}` : what, compared: false };
  }
  const regressions = s.regressions.length;
  // A unit that no longer builds is a G8 `build-broken` finding: the line never says "no regressions" beside one.
  const broken = s.brokenUnits.length;
  const parts = [
    ...(regressions > 0 ? [`${regressions} regression${regressions === 1 ? '' : 's'}`] : []),
    ...(broken > 0 ? [`${broken} test unit${broken === 1 ? '' : 's'} no longer build${broken === 1 ? 's' : ''}`] : []),
  ];
  const held = heldText(s);
  if (parts.length > 0) return { headline: `${parts.join(', ')}${held ? ` (${held})` : ''}`, compared: true };
  const base = s.baseline;
  if (base && base.total === 0 && base.broken > 0 && (s.candidate?.total ?? 0) === 0) {
    // Every test unit fails to build at the base and at the head: nothing was compared.
    return {
      headline: `no test ran: ${base.broken} test unit${base.broken === 1 ? '' : 's'} already fail${base.broken === 1 ? 's' : ''} to build or load at the base`,
      compared: false,
    };
  }
  return { headline: held ? `no regressions (${held})` : 'no regressions', compared: true };
}

/** What the flaky memory and the quarantine held back: "1 known-flaky test failed, not blocking". */
function heldText(s: TestsSection): string {
  const parts = [
    ...(s.knownFlaky?.length ? [`${s.knownFlaky.length} known-flaky test${s.knownFlaky.length === 1 ? '' : 's'} failed`] : []),
    ...(s.quarantined?.length ? [`${s.quarantined.length} quarantined test${s.quarantined.length === 1 ? '' : 's'} failed`] : []),
  ];
  return parts.length ? `${parts.join(', ')}, not blocking` : '';
}
