import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { parseJsonAs } from '../core/parse-data.js';

/**
 * The App server's memory at rest: starts `dist/app-server.js` (what `npm start` runs) without
 * DATABASE_URL, waits until it is listening and has settled, and reads its resident set from
 * /proc/<pid>/status. A second child opens the embedded store the way the App does on its first
 * pull request, to show what that first use costs.
 */
const DIST = dirname(dirname(fileURLToPath(import.meta.url)));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port; // cast: a TCP server listening on a port
      srv.close(() => resolve(port));
    });
  });
}

/** VmRSS of a live process in MB (Linux). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]);
  return Math.round(kb / 1024);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the App server in a temp work dir, waits for it to idle, returns its RSS in MB. `dist` is the
 * build to start (default: the one this module belongs to).
 */
export async function idleServerRssMb(
  opts: { settleMs?: number; dist?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ rssMb: number; workDir: string[] }> {
  const settleMs = opts.settleMs ?? 3000;
  const work = mkdtempSync(join(tmpdir(), 'slopgate-idle-'));
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: work,
    APP_ID: '1',
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET: randomBytes(16).toString('hex'),
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    SLOPGATE_WORKDIR: join(work, 'work'),
    ...opts.env,
  };
  const child = spawn(process.execPath, [join(opts.dist ?? DIST, 'app-server.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const onData = (b: Buffer) => {
        output += b.toString();
        if (output.includes('answering webhooks')) resolve();
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', (code) => reject(new Error(`the App server exited (${code}) before it was ready:\n${output}`)));
    });
    await sleep(settleMs);
    if (child.pid === undefined) throw new Error('the App server has no pid (it did not start)');
    return { rssMb: rssMb(child.pid), workDir: readdirSync(join(work, 'work')) };
  } finally {
    child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  }
}

export interface EmbeddedStoreRss {
  /** Creating the database in this process (what the App did before the child-process creation). */
  createdInProcess: number;
  /** The App's way: a lazy store in a new folder (the cluster is made by a short-lived child), open. */
  created: number;
  /** The same store after its idle close. */
  idleClosed: number;
  /** A lazy store reopening an existing folder, open. */
  reopened: number;
}

/** RSS in MB of node processes that opened the embedded store in the ways above. */
export async function embeddedStoreRssMb(): Promise<EmbeddedStoreRss> {
  const work = mkdtempSync(join(tmpdir(), 'slopgate-pglite-'));
  try {
    const inProcess = await storeChild(`
      const { openPglite } = await import(${JSON.stringify(join(DIST, 'store', 'pglite-db.js'))});
      const db = await openPglite({ dataDir: ${JSON.stringify(join(work, 'in-process'))}, createInChild: false });
      await db.query('select 1');
      await settle();
      report({ open: rss() });`);
    const lazy = `
      const { openStore } = await import(${JSON.stringify(join(DIST, 'store', 'open-store.js'))});
      const store = await openStore({ dataDir: ${JSON.stringify(join(work, 'db'))}, lazy: true, idleCloseMs: 1000 });
      await store.db.query('select 1');
      await settle();
      const open = rss();
      await new Promise((r) => setTimeout(r, 4000));
      report({ open, closed: rss() });`;
    const created = await storeChild(lazy);
    const reopened = await storeChild(lazy);
    return { createdInProcess: mb(inProcess.open), created: mb(created.open), idleClosed: mb(created.closed), reopened: mb(reopened.open) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A measurement the child must have reported. */
function mb(value: number | undefined): number {
  if (value === undefined) throw new Error('the store child did not report its RSS');
  return value;
}

async function storeChild(body: string): Promise<{ open?: number; closed?: number }> {
  const script = `
    const rss = () => Math.round(process.memoryUsage().rss / 1024 / 1024);
    const settle = () => new Promise((r) => setTimeout(r, 500));
    const report = (o) => process.stdout.write(JSON.stringify(o));
    ${body}
    process.exit(0);`;
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (b: Buffer) => (text += b.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`store child exited ${code}`))));
  });
  return parseJsonAs(z.object({ open: z.number().optional(), closed: z.number().optional() }), out, "the store child's JSON line");
}

export async function idleMemoryLine(): Promise<string> {
  const idle = (await idleServerRssMb()).rssMb;
  const store = await embeddedStoreRssMb();
  return (
    `App server idle (no DATABASE_URL; the embedded store opens on first use): RSS ${idle} MB; ` +
    `a process with the embedded PGlite store open: ${store.created} MB after creating it the App's way (a child process runs initdb), ` +
    `${store.idleClosed} MB after its idle close, ${store.reopened} MB when reopening it; ` +
    `${store.createdInProcess} MB if the database is created in-process`
  );
}
