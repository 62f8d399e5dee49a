#!/usr/bin/env node
import { InputError, errorMessage } from './core/errors.js';
import { runAppServer } from './platforms/github/app-server.js';

/** `npm start` and the Docker image's command: the GitHub App server (src/platforms/github/app-server.ts). */
runAppServer().catch((err: unknown) => {
  console.error(`slopgate could not start: ${errorMessage(err)}`);
  if (err instanceof InputError && err.hint) console.error(`  hint: ${err.hint}`);
  process.exit(err instanceof InputError ? 2 : 1);
});
