import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCheck } from '../../src/cli.js';
import type { Report } from '../../src/core/report.js';
import { openStore } from '../../src/store/open-store.js';
import { prRepo } from '../helpers/git-repo.js';

describe('slopgate check --db', () => {
  const dir = mkdtempSync(join(tmpdir(), 'slopgate-db-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the run in a PGlite directory and gives G9 a history to read; without --db G9 is skipped', async () => {
    const repo = prRepo({ 'a.py': 'x = 1\n' }, { 'a.py': 'x = 2\n' });
    let out = '';
    const args = { repo: repo.dir, base: 'main', head: 'pr', format: 'json' as const, strict: false, only: ['G9'] };
    await runCheck({ ...args, db: dir }, (s) => (out += s));
    const withDb = JSON.parse(out) as Report;
    expect(withDb.guards.find((g) => g.id === 'G9')?.status).toBe('pass');

    out = '';
    await runCheck(args, (s) => (out += s));
    expect((JSON.parse(out) as Report).guards.find((g) => g.id === 'G9')?.reason).toMatch(/no store configured/);

    const store = await openStore({ dataDir: dir });
    try {
      const { rows } = await store.db.query<{ head_sha: string; trigger: string }>('SELECT head_sha, trigger FROM runs');
      expect(rows).toEqual([{ head_sha: withDb.head.sha, trigger: 'cli' }]);
    } finally {
      await store.close();
    }
  });

  it('a --db that names a file stops the run with a clear error (the gate started meanwhile) and leaves the file alone', async () => {
    const repo = prRepo({ 'a.py': 'x = 1\n' }, { 'a.py': 'x = 2\n' });
    const notADir = join(dir, 'plain-file');
    writeFileSync(notADir, 'not a database\n');
    let out = '';
    const args = { repo: repo.dir, base: 'main', head: 'pr', format: 'json' as const, strict: false, only: ['G9'], db: notADir };
    await expect(runCheck(args, (s) => (out += s))).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringContaining('is not a folder'),
    });
    expect(out).toBe('');
    // A mistaken path is not a damaged database: the file is left where and as it was.
    expect(readFileSync(notADir, 'utf8')).toBe('not a database\n');
    expect(readdirSync(dir).filter((n) => n.startsWith('plain-file'))).toEqual(['plain-file']);
  });
});
