#!/usr/bin/env node
import { errorMessage } from '../../core/errors.js';
import { runAction } from './run-action.js';
import { workflowCommand } from './workflow-commands.js';

/** The Action's entry: action.yml runs the bundle of this file (action/dist/index.js). */
runAction({ env: process.env, write: (line) => process.stdout.write(`${line}\n`) }).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stdout.write(`${workflowCommand('error', { title: 'slopgate crashed (not about your code)' }, errorMessage(err))}\n`);
    process.exit(3);
  },
);
