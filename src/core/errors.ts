/**
 * An error the user can fix (bad ref, not a repository, malformed config, bad flag).
 * The CLI prints its message and exits with code 2; the App reports it without blaming the code.
 */
export class InputError extends Error {
  readonly exitCode = 2;
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'InputError';
  }
}

/**
 * slopgate cannot run a check it must run, for a reason that is not about the code under review: the
 * test sandbox cannot start on this machine (`sandbox`), or the tree it exported for the tests is not
 * the commit (`tree`). The gate stops instead of passing: the pipeline lets this error through (a guard
 * never turns it into a finding or a skip), the CLI exits 3 with the hint, and the App and the Action
 * conclude `action_required` with the message, which never blames the code.
 */
export class GateInfraError extends Error {
  constructor(
    message: string,
    /** What the person running the CLI can do about it (one line). */
    readonly hint: string,
    readonly kind: 'sandbox' | 'tree' | 'resources',
  ) {
    super(message);
    this.name = 'GateInfraError';
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
