import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PG_URL, dropSchema, uniqueSchema } from './backends.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';

const run = promisify(execFile);
const script = fileURLToPath(new URL('./fixtures/migrate-proc.ts', import.meta.url));

describe('migrations on a shared PostgreSQL', () => {
  const schema = uniqueSchema();
  afterAll(() => dropSchema(schema));

  it('two processes starting at once apply each migration exactly once', async () => {
    const spawnOne = () => run(process.execPath, ['--import', 'tsx', script, PG_URL, schema], { timeout: 60_000 });
    const outputs = await Promise.all([spawnOne(), spawnOne(), spawnOne()]);
    const applied = outputs.map((o) => JSON.parse(o.stdout.trim()).applied as number[]);
    // One process did the work, the others waited on the lock and found nothing to do.
    expect(applied.filter((a) => a.length > 0)).toEqual([MIGRATIONS.map((m) => m.version).sort((a, b) => a - b)]);
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM ${schema}.schema_migrations`);
      expect(rows[0].n).toBe(MIGRATIONS.length);
      const tables = await client.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`, [
        schema,
      ]);
      const names = [
        'baselines',
        'decisions',
        'deliveries',
        'dismissals',
        'findings',
        'guard_failures',
        'refine_attempts',
        'rounds',
        'runs',
        'schema_migrations',
      ];
      expect(tables.rows.map((r) => r.table_name)).toEqual(expect.arrayContaining(names));
    } finally {
      await client.end();
    }
  });
});
