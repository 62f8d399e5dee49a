import { isRecord } from './is-record.js';

/**
 * Plain-data shapes of the test-regression gate (G8). A {@link SuiteResult} is what one run of a
 * repository's test suite produced; it is JSON-serialisable so that the baseline cache can keep it in
 * memory or in the store unchanged.
 */

/** The runners the gate knows how to drive and parse. */
export type RunnerId = 'pytest' | 'go' | 'cargo' | 'maven' | 'vitest' | 'jest' | 'node-test' | 'npm-test' | 'custom';

export type TestStatus = 'passed' | 'failed' | 'skipped';

/** The outcome of one test, under an id that stays the same between runs and commits. */
export interface TestOutcome {
  /** Stable id, e.g. `py:tests/test_db.py::test_row_factory`, `go:example.com/m/pkg.TestX`. */
  id: string;
  status: TestStatus;
  /** Id of the unit (module, package, target, file) the test belongs to; see {@link UnitStatus}. */
  unit: string;
  /** Repo-relative file that defines the test, when the runner says so. */
  file?: string;
  /** 1-based line of the test's definition, when the runner says so. */
  line?: number;
  /** First lines of the failure message (kept short). */
  message?: string;
  durationMs?: number;
}

export type UnitKind = 'module' | 'package' | 'target' | 'file' | 'suite';

/**
 * Build / collection status of one unit: a Python test module (collection error), a Go package
 * (build failed), a Rust test target (compile error), a Maven module (its build failed), a JS test
 * file (failed to load), or the whole suite (for runners without per-test output).
 */
export interface UnitStatus {
  id: string;
  kind: UnitKind;
  /** Units sharing a group break together (a Rust package's targets); equals `id` otherwise. */
  group: string;
  status: 'ok' | 'broken';
  /** Repo-relative path of the unit (module file, package dir, target source, test file), or of its first compile error. */
  file?: string;
  /** 1-based line of the first compile error in `file`, when the runner says so (Maven). */
  line?: number;
  /** First lines of the build / collection error. */
  message?: string;
}

/**
 * - `ok`: the run produced per-test results (or, for exit-code-only runners, exited 0).
 * - `no-results`: it ran to the end but produced nothing parseable and exited non-zero.
 * - `skipped`: it could not run or not finish (no runner, missing toolchain, no tests, setup failed,
 *   time or process limit); `skippedReason` says which.
 */
export type SuiteStatus = 'ok' | 'no-results' | 'skipped';

export interface SuiteResult {
  runner: RunnerId;
  /** The command as configured / detected (no temp paths; part of the cache key). */
  command: string;
  status: SuiteStatus;
  skippedReason?: string;
  /**
   * `no-results` only: why, in words — the cause read from the output (a module that is not
   * installed, an option pytest rejects, a command not found), else the exit code with the last lines.
   */
  failure?: string;
  /** Exit code of the test command (null when killed by a signal or never started). */
  exitCode: number | null;
  /** Why the sandbox stopped the run early, if it did. */
  killedBy?: 'timeout' | 'process-limit' | 'aborted' | 'disk-limit';
  /** What the run's tree held when it ended (MiB), where slopgate could measure it: how close it came to tests.diskMb. */
  diskUsedMb?: number;
  tests: TestOutcome[];
  units: UnitStatus[];
  durationMs: number;
  /** The last few KiB of stdout + stderr, for evidence (never the app's environment). */
  outputTail: string;
  /** The commit the suite ran on. */
  sha: string;
  /** What the reader should know about how the suite ran (command source, import path, missing deps). */
  notes?: string[];
}

const SUITE_STATUSES = new Set(['ok', 'no-results', 'skipped']);

/**
 * True when a stored value still has the shape of a SuiteResult. Rows written by an older version,
 * edited by hand or cut short are rejected here, so the gate re-runs the baseline instead of
 * comparing against garbage.
 */
export function looksLikeSuiteResult(value: unknown): value is SuiteResult {
  if (!isRecord(value)) return false;
  const v = value;
  return (
    typeof v.runner === 'string' &&
    typeof v.command === 'string' &&
    typeof v.status === 'string' &&
    SUITE_STATUSES.has(v.status) &&
    typeof v.sha === 'string' &&
    typeof v.durationMs === 'number' &&
    Array.isArray(v.tests) &&
    Array.isArray(v.units) &&
    v.tests.every((t) => isRecord(t) && typeof t.id === 'string' && typeof t.status === 'string')
  );
}
