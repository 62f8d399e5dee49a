/**
 * Whether a plain run of a suite (the benchmark's reference: the suite as a developer runs it) ran.
 * A real project's suite may have tests that fail at the base and the head alike; its non-zero exit is
 * then the suite's own verdict and the run still counts, as long as the output shows the suite ran
 * and reported its results. Only a run that did not get that far (a crash, a signal, a usage error,
 * a missing interpreter) is the benchmark's failure.
 */
export type PlainRunVerdict = { ran: true; note?: string } | { ran: false; reason: string };

/** Summary lines of the runners the benchmark's cases use: what each prints once it has run. */
const SUMMARIES: { runner: string; line: RegExp }[] = [
  // pytest: "3 failed, 120 passed, 2 skipped in 4.56s" (-q prints it bare, otherwise between "=" rules)
  { runner: 'pytest', line: /^[=\s]*(?:\d+ \w+, )*\d+ (?:passed|failed|errors?)\b.* in \d+(?:\.\d+)?s\b.*$/m },
  // go test: "FAIL\tgithub.com/x/y\t0.01s" / "ok  \tgithub.com/x/y\t0.01s"
  { runner: 'go test', line: /^(?:ok|FAIL)\s+\S+\s+\d+(?:\.\d+)?s$/m },
  // cargo test: "test result: FAILED. 10 passed; 2 failed; 0 ignored"
  { runner: 'cargo test', line: /^test result: \w+\. \d+ passed; \d+ failed;.*$/m },
  // vitest / jest: "Tests  2 failed | 40 passed (42)" / "Tests:       2 failed, 40 passed, 42 total"
  { runner: 'vitest/jest', line: /^\s*Tests:?\s+.*\b\d+ passed\b.*$/m },
];

/** pytest's exit 2-5 are an interruption, an internal or usage error, or no tests collected: not a run. */
const RAN_WITH_FAILURES = new Set([1, 101]);

export function plainRunVerdict(r: { status: number | null; signal: string | null; output: string }): PlainRunVerdict {
  if (r.signal) return { ran: false, reason: `it was ended by ${r.signal}` };
  if (r.status === 0) return { ran: true };
  if (r.status === null || !RAN_WITH_FAILURES.has(r.status))
    return { ran: false, reason: `it exited ${String(r.status)}, which is not a suite reporting failed tests` };
  for (const s of SUMMARIES) {
    const line = s.line.exec(r.output)?.[0].replace(/^[=\s]+|[=\s]+$/g, '');
    if (line) return { ran: true, note: `exit ${String(r.status)}, the suite's own failures (${s.runner}: ${line})` };
  }
  return { ran: false, reason: `it exited ${String(r.status)} and printed no test results` };
}
