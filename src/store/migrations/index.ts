import { initial } from './001-initial.js';

export interface Migration {
  /** Increasing, never reused. */
  version: number;
  name: string;
  sql: string;
}

/**
 * Every schema change, oldest first. Never edit a migration that has shipped: append a new one.
 */
export const MIGRATIONS: Migration[] = [{ version: 1, name: 'initial', sql: initial }];
