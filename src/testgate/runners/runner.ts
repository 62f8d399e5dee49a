import { commandNotFound, commandNotFoundReason } from './failure-cause.js';
import { headOf } from '../message-cap.js';
import type { KilledBy, SandboxResult } from '../../sandbox/index.js';
import type { RunnerId, TestOutcome, UnitStatus } from '../../core/suite-result.js';

/** Where one suite run happens: the exported tree, a private output dir, and the sandbox. */
export interface RunContext {
  /** The exported tree (cwd of every command). */
  workdir: string;
  /** Private directory for report files; the commands see it as `$SLOPGATE_OUT`. */
  outDir: string;
  /** Runs a shell command in the sandbox (cwd = workdir) within what is left of the time budget. */
  exec(command: string): Promise<SandboxResult>;
}

/** What a runner made of one run (or re-run) of the suite. */
export interface RunnerOutput {
  tests: TestOutcome[];
  units: UnitStatus[];
  exitCode: number | null;
  killedBy?: KilledBy;
  /** Evidence: the end of the relevant output. */
  outputTail: string;
  /** The runner found no tests at all (e.g. pytest exit code 5). */
  noTests?: boolean;
  /**
   * The suite cannot give a meaningful result here: the toolchain is missing, a dependency cannot be
   * resolved in the sandbox, or the tests imported the project from outside the tree. The reason
   * names the cause and how to provide what is missing; the run counts as skipped.
   */
  missingToolchain?: string;
  /** What the reader should know about how the suite ran (where the command came from, import paths). */
  notes?: string[];
  /** True for runners that only know the exit code (no per-test output). */
  exitCodeOnly?: boolean;
}

export interface Runner {
  id: RunnerId;
  /**
   * The exact command the sandbox runs, with slopgate's own wrapping (report files under
   * `$SLOPGATE_OUT`, import-path setup, reporters); part of the baseline cache key. The JSON report
   * keeps it as `tests.internalCommand`; no message asks a person to run it.
   */
  command: string;
  /**
   * The project's own test command, as a developer types it: the CI line the runner took its
   * arguments from when there was one, else the plain command (`pytest`, `go test ./...`,
   * `cargo test`, `npx vitest run`, `npm test`, or the configured tests.command). Findings and the
   * report show this one.
   */
  displayCommand: string;
  /** Runs the whole suite. */
  run(ctx: RunContext): Promise<RunnerOutput>;
  /** Re-runs only the given tests (or the smallest unit that contains them). */
  rerun?(ctx: RunContext, tests: TestOutcome[]): Promise<RunnerOutput>;
}

/** Escapes a string for use inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A command that was not found (exit 127), or a known "not installed" message, as a reason. */
export function missingToolchain(result: SandboxResult, tool: string, patterns: RegExp[] = []): string | undefined {
  const text = `${result.stdout}\n${result.stderr}`;
  if (result.exitCode === 127 || patterns.some((p) => p.test(text))) {
    // `npm test` whose script calls `mocha`: name the command that is missing, not npm.
    const notFound = commandNotFound(text);
    if (notFound && notFound !== tool) return commandNotFoundReason(text) ?? undefined;
    return `${tool} is not available in the sandbox (${firstLine(/[^\n]*(not found|No module named)[^\n]*/.exec(text)?.[0] ?? `exit ${result.exitCode}`)})`;
  }
  return undefined;
}

export function firstLine(text: string): string {
  return (text.trim().split('\n')[0] ?? '').slice(0, 200);
}

/** The first `maxLines` lines of a message, each trimmed on the right. */
export function shortMessage(text: string | undefined, maxLines = 6, maxChars = 600): string | undefined {
  if (!text) return undefined;
  // A failure message can be megabytes long: only its head is split and kept.
  const lines = headOf(text)
    .replace(/\r/g, '')
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l, i, a) => l || (i > 0 && a[i - 1]));
  const out = lines.slice(0, maxLines).join('\n').trim();
  return out ? out.slice(0, maxChars) : undefined;
}
