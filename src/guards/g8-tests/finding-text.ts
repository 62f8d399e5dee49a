import type { TestOutcome } from '../../core/suite-result.js';

// The words G8's findings share: a short sha, the telling line of an error, a test's name, counts and name lists.

export const short = (sha: string | undefined) => (sha ?? '').slice(0, 7);

/** The most telling line of an error: the first that names an error, else the first non-empty one. */
export function firstLine(text: string | undefined): string {
  const lines = (text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const telling = lines.find((l) => /(\w*Error\b|\berror(\[\w+\])?:|^undefined:|: undefined:|\bassert|\bpanicked\b|\bexpected\b)/i.test(l));
  return (telling ?? lines[0] ?? '').slice(0, 240);
}

/** Human name of a test: its id without the language prefix. */
export function testName(id: string): string {
  // A workspace package's folder stays in front (`packages/b: test/sum.test.js > adds`).
  return id.replace(/^([^\s:]+: )?(py|go|rust|js|junit|java):/, '$1');
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function namesOf(tests: TestOutcome[]): string {
  const names = tests.slice(0, 8).map((t) => `\`${testName(t.id)}\``);
  return `${names.join(', ')}${tests.length > 8 ? ` and ${tests.length - 8} more` : ''}`;
}
