import { describe, expect, it } from 'vitest';
import { beforeRemedy, testsHeadline } from '../../src/report/tests-headline.js';
import { BASE_SHA, HEAD_SHA, testsSection } from './build-report.js';

const side = (over: { total: number; broken?: number; failure?: string; status?: string }) => ({
  sha: HEAD_SHA,
  status: over.status ?? 'ok',
  failing: 0,
  broken: over.broken ?? 0,
  total: over.total,
  durationMs: 10,
  ...(over.failure ? { failure: over.failure } : {}),
});

describe('report/tests-headline', () => {
  it('"no regressions" only when both sides ran and were compared', () => {
    const ran = testsHeadline(
      testsSection({ baseline: { ...side({ total: 3 }), sha: BASE_SHA, cached: false }, candidate: side({ total: 3 }) }),
    );
    expect(ran).toEqual({ headline: 'no regressions', short: 'no regressions', compared: true });
    expect(testsHeadline(testsSection({ regressions: ['a', 'b'] })).headline).toBe('2 regressions');
  });

  it('a skip or a stop says "tests not run: <why>", once, and the short form stops before the remedy', () => {
    const h = testsHeadline(
      testsSection({ skipped: 'no test results at the base: `conftest.py` imports `x`, which is not installed; declare it …' }),
    );
    expect(h).toEqual({
      headline: 'tests not run: no test results at the base: `conftest.py` imports `x`, which is not installed; declare it …',
      short: 'tests not run: no test results at the base: `conftest.py` imports `x`, which is not installed',
      compared: false,
    });
    expect(testsHeadline(testsSection({ skipped: 'tests not run: the sandbox cannot be established' })).headline).toBe(
      'tests not run: the sandbox cannot be established',
    );
    expect(testsHeadline(testsSection({ notRun: 'with this change, the test run did not finish' })).compared).toBe(false);
  });

  it('no results at the head: "suite does not start at the head" (or, for exit-code-only runners, "test command fails at the head")', () => {
    const broken = (runner: string) =>
      testsHeadline(
        testsSection({
          runner,
          suiteBroken: true,
          candidate: side({ total: 0, status: 'no-results', failure: 'exit 4 — its output ends with `x`' }),
        }),
      );
    expect(broken('pytest')).toMatchObject({
      headline: 'suite does not start at the head: exit 4 — its output ends with `x`',
      compared: false,
    });
    expect(broken('npm-test').headline).toBe('test command fails at the head: exit 4 — its output ends with `x`');
  });

  it('every test unit broken at the base and nothing run at the head: no test ran, not "no regressions"', () => {
    const h = testsHeadline(
      testsSection({
        baseline: { ...side({ total: 0, broken: 2 }), sha: BASE_SHA, cached: false },
        candidate: side({ total: 0, broken: 2 }),
      }),
    );
    expect(h).toMatchObject({ headline: 'no test ran: 2 test units already fail to build or load at the base', compared: false });
  });

  it('the remedy cut ignores a `; ` inside a code span', () => {
    expect(beforeRemedy('pytest rejects `-k "a; b"` (unrecognized); install it')).toBe('pytest rejects `-k "a; b"` (unrecognized)');
    expect(beforeRemedy('a ``x ` y; z`` b; c')).toBe('a ``x ` y; z`` b');
    expect(beforeRemedy('no remedy here')).toBe('no remedy here');
  });
});
