import type { BaselineCache, BaselineKey } from '../core/ports.js';
import { looksLikeSuiteResult, type SuiteResult } from '../core/suite-result.js';
import type { Db } from './db.js';

/**
 * The baseline cache kept in the store, shared by every worker on the same database: a baseline run
 * once by any of them is a hit for all. A put for an existing key replaces the result (upsert); a row
 * that does not parse as a suite result is a miss.
 */
export class StoreBaselineCache implements BaselineCache {
  constructor(private readonly db: Db) {}

  async get(key: BaselineKey): Promise<SuiteResult | null> {
    let rows: { result: unknown }[];
    try {
      ({ rows } = await this.db.query<{ result: unknown }>(
        'SELECT result FROM baselines WHERE repo = $1 AND base_tree = $2 AND command = $3 AND lockfile_hash = $4',
        [key.repo, key.baseTree, key.command, key.lockfileHash],
      ));
    } catch (err) {
      // A row whose JSON cannot even be decoded surfaces here on some drivers: still just a miss.
      if (isDecodeError(err)) return null;
      throw err;
    }
    const raw = rows[0]?.result;
    if (raw === undefined) return null;
    const value = typeof raw === 'string' ? safeParse(raw) : raw;
    return looksLikeSuiteResult(value) ? value : null;
  }

  async put(key: BaselineKey, result: SuiteResult): Promise<void> {
    await this.db.query(
      `INSERT INTO baselines (repo, base_tree, command, lockfile_hash, result, created_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, now())
       ON CONFLICT (repo, base_tree, command, lockfile_hash) DO UPDATE SET result = EXCLUDED.result, created_at = now()`,
      [key.repo, key.baseTree, key.command, key.lockfileHash, JSON.stringify(result)],
    );
  }

  /** Drops baselines stored before `olderThan`; returns how many. */
  async prune(olderThan: Date): Promise<number> {
    return (await this.db.query('DELETE FROM baselines WHERE created_at < $1', [olderThan])).affected;
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isDecodeError(err: unknown): boolean {
  return err instanceof SyntaxError;
}
