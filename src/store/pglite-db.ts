import { PGlite, type Transaction } from '@electric-sql/pglite';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkSchemaName, type Db, type Queryable, type QueryResult } from './db.js';

function wrap(conn: PGlite | Transaction): Queryable {
  return {
    async query<T>(sql: string, params: unknown[] = []): Promise<QueryResult<T>> {
      const r = await conn.query<T>(sql, params);
      return { rows: r.rows, affected: r.affectedRows ?? 0 };
    },
    async exec(sql: string): Promise<void> {
      await conn.exec(sql);
    },
  };
}

/**
 * PGlite's own start parameters plus a smaller buffer cache. slopgate's tables are small (runs,
 * findings, baselines); PostgreSQL's default 128 MB of shared buffers, allocated inside the WASM
 * heap, roughly doubles the process's memory for no gain (measured by `npm run bench`).
 */
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/**
 * The embedded database: PostgreSQL compiled to WASM, running in this process. With a directory it
 * persists there; without one it lives in memory and is gone when the process exits. PGlite has a
 * single connection, so concurrent callers are serialised by PGlite itself (transactions included).
 */
export async function openPglite(opts: { dataDir?: string; schema?: string; createInChild?: boolean } = {}): Promise<Db> {
  if (opts.dataDir && (opts.createInChild ?? true) && !existsSync(join(opts.dataDir, 'PG_VERSION'))) {
    // Best effort: when the child cannot run, PGlite.create below makes the cluster in this process.
    await createClusterInChild(opts.dataDir).catch(() => undefined);
  }
  const pg = await PGlite.create({ ...(opts.dataDir ? { dataDir: opts.dataDir } : {}), startParams: START_PARAMS });
  if (opts.schema) {
    const schema = checkSchemaName(opts.schema);
    await pg.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}; SET search_path TO ${schema}`);
  }
  const base = wrap(pg);
  return {
    dialect: 'pglite',
    query: (sql, params) => base.query(sql, params),
    exec: (sql) => base.exec(sql),
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    close: () => pg.close(),
  };
}

/**
 * Creating a new cluster (initdb) is what costs the memory: a process that creates the database ends
 * up near 700 MB of RSS, one that opens an existing one near 180 MB, and the WASM heap initdb grew is
 * not given back to the system after it. So a new data directory is made by a short-lived child
 * process, and this one only ever opens an existing cluster (measured by `npm run bench`, memory part).
 * The child writes into a fresh sibling folder that is renamed into place only once it is complete, so a
 * failed or killed child never leaves a half-made cluster behind.
 */
export async function createClusterInChild(dataDir: string, timeoutMs = 120_000): Promise<void> {
  await mkdir(dirname(dataDir), { recursive: true });
  const tmp = `${dataDir}.creating-${randomBytes(4).toString('hex')}`;
  try {
    await runCreateChild(tmp, timeoutMs);
    await rename(tmp, dataDir);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

function runCreateChild(dataDir: string, timeoutMs: number): Promise<void> {
  const entry = pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')).href;
  const script = [
    `const m = await import(${JSON.stringify(entry)});`,
    'const PGlite = m.PGlite ?? m.default.PGlite;',
    'const pg = await PGlite.create({ dataDir: process.argv[1], startParams: JSON.parse(process.argv[2]) });',
    'await pg.close();',
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, dataDir, JSON.stringify(START_PARAMS)], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: timeoutMs,
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-2000)));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`creating the PGlite database in a child process failed (${signal ?? code}): ${stderr.trim()}`));
    });
  });
}
