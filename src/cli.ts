#!/usr/bin/env node
import { isMainModule } from './cli/is-main.js';
import { main } from './cli/main.js';
import { GateInfraError, InputError, errorMessage } from './core/errors.js';

export { main } from './cli/main.js';
export type { CheckArgs } from './cli/check.js';

/** `slopgate check` as a function; the pipeline loads on the first call, not when the CLI starts. */
export async function runCheck(...args: Parameters<typeof import('./cli/check.js').runCheck>): Promise<number> {
  const check = await import('./cli/check.js');
  return check.runCheck(...args);
}

/**
 * How a thrown error ends the process: 2 with a message for what the user can fix, else 3 — with one
 * line and a hint, no stack, when slopgate could not run a check it must run (no sandbox for the tests).
 */
export function reportError(err: unknown, writeErr: (s: string) => void): number {
  if (err instanceof GateInfraError) {
    writeErr(`slopgate: not about your code: ${err.message}\n  hint: ${err.hint}\n`);
    return 3;
  }
  if (err instanceof InputError || isParseArgsError(err)) {
    writeErr(`slopgate: ${errorMessage(err)}\n`);
    if (err instanceof InputError && err.hint) writeErr(`  hint: ${err.hint}\n`);
    else if (!(err instanceof InputError)) writeErr('  hint: run slopgate <command> --help\n');
    return 2;
  }
  writeErr(`slopgate: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 3;
}

if (isMainModule(import.meta.url)) {
  const write = (s: string) => process.stderr.write(s);
  // Signal handling and the sweep of killed runs' folders (a tiny module, loaded after start-up).
  import('./cli/interrupt-exit.js')
    .then((m) => m.prepareCommand(process.argv[2], write))
    .then(() => main(process.argv.slice(2)))
    .then(
      (code) => {
        process.exitCode = code;
      },
      (err: unknown) => {
        process.exitCode = reportError(err, (s) => process.stderr.write(s));
      },
    );
}

/** node:util parseArgs rejects unknown or malformed options with an error whose code starts ERR_PARSE_ARGS. */
function isParseArgsError(err: unknown): boolean {
  const code: unknown = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}
