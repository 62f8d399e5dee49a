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

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
