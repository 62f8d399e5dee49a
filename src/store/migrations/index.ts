import { initial } from './001-initial.js';
import { refineAttempts } from './002-refine-attempts.js';
import { dismissals } from './003-dismissals.js';
import { commandAttempts } from './004-command-attempts.js';
import { operatorView } from './005-operator-view.js';

export interface Migration {
  /** Increasing, never reused. */
  version: number;
  name: string;
  sql: string;
}

/**
 * Every schema change, oldest first, one entry per line. Never edit a migration that has shipped:
 * append a new one. `migrate` sorts by version, so the order here is only for the reader.
 */
export const MIGRATIONS: Migration[] = [
  { version: 1, name: 'initial', sql: initial },
  { version: 2, name: 'refine-attempts', sql: refineAttempts },
  { version: 3, name: 'dismissals', sql: dismissals },
  { version: 4, name: 'command-attempts', sql: commandAttempts },
  { version: 5, name: 'operator-view', sql: operatorView },
];
