import { initial } from './001-initial.js';
import { refineAttempts } from './002-refine-attempts.js';

export interface Migration {
  /** Increasing, never reused. */
  version: number;
  name: string;
  sql: string;
}

/**
 * Every schema change, oldest first. Never edit a migration that has shipped: append a new one.
 */
export const MIGRATIONS: Migration[] = [
  { version: 1, name: 'initial', sql: initial },
  { version: 2, name: 'refine-attempts', sql: refineAttempts },
];
