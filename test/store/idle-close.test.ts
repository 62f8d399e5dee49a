import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Db, Queryable } from '../../src/store/db.js';
import { lazyDb, openDb, storeOptionsFromEnv, type StoreOptions } from '../../src/store/open-store.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** A fake database that fails any use after its close, and whose close takes `closeMs`. */
function fakeDb(log: string[], closeMs = 0): Db {
  let closed = false;
  const q: Queryable = {
    query: async (sql) => {
      if (closed) throw new Error(`query '${sql}' on a closed database`);
      log.push(sql);
      return { rows: [], affected: 0 };
    },
    exec: async () => undefined,
  };
  return {
    dialect: 'pglite',
    ...q,
    transaction: async (fn) => {
      if (closed) throw new Error('transaction on a closed database');
      return fn(q);
    },
    close: async () => {
      await sleep(closeMs);
      closed = true;
      log.push('close');
    },
  };
}

describe('lazyDb idle close', () => {
  it('closes after the idle period and reopens on the next query', async () => {
    const log: string[] = [];
    let opens = 0;
    const db = lazyDb({ idleCloseMs: 30 }, async () => (opens++, fakeDb(log)));
    await db.query('a');
    await until(() => log.includes('close'), 'the idle close');
    await db.query('b');
    expect(opens).toBe(2);
    expect(log).toEqual(['a', 'close', 'b']);
    await db.close();
  });

  it('never closes while a transaction is running, however long it takes', async () => {
    const log: string[] = [];
    const db = lazyDb({ idleCloseMs: 10 }, async () => fakeDb(log));
    await db.transaction(async (tx) => {
      await sleep(100);
      await tx.query('inside');
    });
    expect(log).toEqual(['inside']);
    await until(() => log.includes('close'), 'the idle close');
    await db.close();
  });

  it('queries that arrive during a slow idle close wait for it, then share one reopen', async () => {
    const log: string[] = [];
    let opens = 0;
    const db = lazyDb({ idleCloseMs: 5 }, async () => (opens++, fakeDb(log, 80)));
    await db.query('first');
    await sleep(30); // the idle close has started and takes 80 ms
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => db.query(`q${i}`)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(opens).toBe(2);
    expect(log.indexOf('close')).toBe(1);
    expect(log.filter((l) => l.startsWith('q'))).toHaveLength(20);
    await db.close();
  });

  it('close() during a slow idle close waits until the database is really closed', async () => {
    const log: string[] = [];
    const db = lazyDb({ idleCloseMs: 5 }, async () => fakeDb(log, 100));
    await db.query('a');
    await sleep(30); // the idle close is under way
    await db.close();
    expect(log).toEqual(['a', 'close']);
  });

  it('close() ends it for good, also after an idle close', async () => {
    const log: string[] = [];
    const db = lazyDb({ idleCloseMs: 5 }, async () => fakeDb(log));
    await db.query('a');
    await until(() => log.includes('close'), 'the idle close');
    await db.close();
    await expect(db.query('b')).rejects.toThrow(/closed/);
  });
});

describe('embedded PGlite: created by a child process, closed when idle, no data lost', () => {
  it('keeps every row across idle closes, concurrent writers and a restart', async () => {
    const work = mkdtempSync(join(tmpdir(), 'slopgate-idle-db-'));
    dirs.push(work);
    const dataDir = join(work, 'db');
    let opens = 0;
    let closes = 0;
    const counting = async (o: StoreOptions): Promise<Db> => {
      opens++;
      const real = await openDb(o);
      return { ...real, close: async () => (closes++, real.close()) };
    };
    const db = lazyDb({ dataDir, idleCloseMs: 40 }, counting);
    await db.exec('CREATE TABLE IF NOT EXISTS t (n integer PRIMARY KEY)');
    expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
    // No half-made '.creating-' folder left (db.lock is there while the database is open).
    expect(readdirSync(work).filter((n) => n !== 'db.lock')).toEqual(['db']);

    let next = 0;
    for (let round = 0; round < 3; round++) {
      await until(() => closes > round, `idle close ${round + 1}`);
      // a burst right after the close: every insert must land in the reopened database
      const burst = Array.from({ length: 15 }, () => next++);
      await Promise.all(burst.map((n) => db.transaction((tx) => tx.query('INSERT INTO t (n) VALUES ($1)', [n]))));
    }
    expect(opens).toBeGreaterThanOrEqual(4);
    const { rows } = await db.query<{ c: number }>('SELECT count(*)::int AS c FROM t');
    expect(rows[0]!.c).toBe(45);
    await db.close();

    const again = await openDb({ dataDir });
    const after = await again.query<{ c: number; m: number }>('SELECT count(*)::int AS c, max(n)::int AS m FROM t');
    expect(after.rows[0]).toEqual({ c: 45, m: 44 });
    await again.close();
  }, 240_000);
});

describe('memory of the embedded store', () => {
  /** RSS in MB of a fresh node process (with tsx, which runs the sources) after it opened a store in a new folder. */
  function rssAfterCreate(dir: string, createInChild: boolean): number {
    const src = join(process.cwd(), 'src', 'store', 'pglite-db.ts');
    const script = `
      const { openPglite } = await import(${JSON.stringify(src)});
      const db = await openPglite({ dataDir: ${JSON.stringify(dir)}, createInChild: ${createInChild} });
      await db.query('select 1');
      process.stdout.write(String(Math.round(process.memoryUsage().rss / 1048576)));
      await db.close();`;
    const args = ['--import', 'tsx', '--input-type=module', '-e', script];
    const out = execFileSync(process.execPath, args, { encoding: 'utf8', timeout: 180_000 });
    return Number(out.trim());
  }

  it('creating the database in a child process keeps the App process far below an in-process initdb', () => {
    const work = mkdtempSync(join(tmpdir(), 'slopgate-rss-'));
    dirs.push(work);
    const inProcess = rssAfterCreate(join(work, 'a'), false);
    const viaChild = rssAfterCreate(join(work, 'b'), true);
    // measured: ~650-740 MB in-process, ~190-250 MB via the child (tsx adds ~50 MB)
    expect(viaChild).toBeLessThan(inProcess * 0.6);
    expect(viaChild).toBeLessThan(350);
  }, 400_000);
});

describe('SLOPGATE_DB_IDLE_SECONDS', () => {
  it('sets the idle close of the embedded store only (default 300 s, 0 = never)', () => {
    expect(storeOptionsFromEnv({}, '/d')).toEqual({ dataDir: '/d', idleCloseMs: 300_000 });
    expect(storeOptionsFromEnv({ SLOPGATE_DB_IDLE_SECONDS: '2.5' }, '/d')).toEqual({ dataDir: '/d', idleCloseMs: 2500 });
    expect(storeOptionsFromEnv({ SLOPGATE_DB_IDLE_SECONDS: '0' }, '/d')).toEqual({ dataDir: '/d' });
    expect(storeOptionsFromEnv({ DATABASE_URL: 'postgres://x/y', SLOPGATE_DB_IDLE_SECONDS: '5' }, '/d')).toEqual({ url: 'postgres://x/y' });
    expect(() => storeOptionsFromEnv({ SLOPGATE_DB_IDLE_SECONDS: 'soon' }, '/d')).toThrow(/SLOPGATE_DB_IDLE_SECONDS/);
  });
});
