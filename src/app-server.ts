#!/usr/bin/env node
import { InputError, errorMessage } from './core/errors.js';
import { runAppServer } from './platforms/github/app-server.js';

/**
 * `npm start` and the Docker image's command: the GitHub App server (src/platforms/github/app-server.ts).
 * A start that fails says so in one line (and a hint): exit 2 for a setting to fix, 3 for anything else.
 * The stack trace only with LOG_LEVEL=debug.
 */
runAppServer().catch((err: unknown) => {
  console.error(`slopgate could not start: ${errorMessage(err).split('\n')[0] ?? ''}`);
  if (err instanceof InputError && err.hint) console.error(`  hint: ${err.hint}`);
  else if (!(err instanceof InputError)) console.error('  hint: LOG_LEVEL=debug shows where it failed');
  if (process.env.LOG_LEVEL === 'debug' && err instanceof Error && err.stack) console.error(err.stack);
  process.exit(err instanceof InputError ? 2 : 3);
});
