import type { SuiteResult } from '../core/suite-result.js';

/**
 * What the report should say about how the suites ran: the runners' notes (where the command came
 * from, how the package under test was imported) and a warning when many tests already fail at the
 * base, which almost always means the sandbox lacks something CI has.
 */

/** More failing tests than this at the base, or more than {@link BASE_FAILING_SHARE} of them, is a warning. */
export const BASE_FAILING_COUNT = 10;
export const BASE_FAILING_SHARE = 0.2;

/** The most common first line among failure messages, with its count. */
function commonCause(messages: string[]): { line: string; count: number } | undefined {
  const counts = new Map<string, number>();
  for (const m of messages) {
    const lines = m
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const line = (lines.find((l) => /\w*(Error|Exception)\b|error:|panicked|cannot|not found|refused/i.test(l)) ?? lines[0] ?? '').slice(
      0,
      160,
    );
    if (line) counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  const top = [...counts].sort((a, b) => b[1] - a[1])[0];
  return top && top[1] > 1 ? { line: top[0], count: top[1] } : undefined;
}

/** A warning when many tests (or test units) already fail at the base; undefined otherwise. */
export function baseFailingWarning(baseline: SuiteResult | undefined): string | undefined {
  if (baseline?.status !== 'ok') return undefined;
  const failing = baseline.tests.filter((t) => t.status === 'failed');
  const broken = baseline.units.filter((u) => u.status === 'broken');
  const total = baseline.tests.length;
  const many = failing.length > BASE_FAILING_COUNT || (total >= 5 && failing.length / total > BASE_FAILING_SHARE);
  if (!many && broken.length <= 1) return undefined;
  const parts: string[] = [];
  if (failing.length) parts.push(`${failing.length} of ${total} tests already fail`);
  if (broken.length > 1) parts.push(`${broken.length} test units already do not build or collect`);
  const cause = commonCause([...failing.map((t) => t.message ?? ''), ...broken.map((u) => u.message ?? '')]);
  const why = cause ? ` Most common error (${cause.count}×): ${cause.line}.` : '';
  return `${parts.join(' and ')} at the base: the sandbox probably lacks something CI has (a dependency, a service, an environment variable, network), and regressions among these tests cannot be seen.${why} Provide it with tests.setup, or set tests.command to the command CI runs.`;
}

/** Notes of both runs (deduplicated) plus the base warning, for the report. */
export function suiteNotes(baseline: SuiteResult | undefined, candidate: SuiteResult | undefined): string[] {
  const notes = new Set<string>([...(baseline?.notes ?? []), ...(candidate?.notes ?? [])]);
  const warning = baseFailingWarning(baseline);
  if (warning) notes.add(warning);
  return [...notes];
}
