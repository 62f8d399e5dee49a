import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../../src/core/errors.js';
import { checkPrivateKey, databaseStartError, databaseWhere } from '../../../src/platforms/github/startup-checks.js';
import { testPrivateKey } from './helpers/harness.js';

/**
 * Start-up errors of the App server (`npm start`: src/app-server.ts) and `slopgate worker`: a key or a
 * database that cannot work ends the start with one line naming the variable, a hint, exit 2, and no
 * stack trace. The real entries are started with a bad environment; the database is a loopback port
 * nobody listens on.
 */
const ROOT = process.cwd();
const dir = mkdtempSync(join(tmpdir(), 'slopgate-startup-'));
const keyFile = join(dir, 'app.pem');
let deadPort = 0;

beforeAll(async () => {
  writeFileSync(keyFile, testPrivateKey());
  // a port that was free a moment ago and that nothing listens on now
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  deadPort = (server.address() as { port: number }).port;
  await new Promise((done) => server.close(done));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function start(script: string, args: string[], env: Record<string, string>): Promise<{ status: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, script), ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, SLOPGATE_WORKDIR: join(dir, 'work'), PORT: '0', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (status) => done({ status, stderr }));
  });
}

const APP = { APP_ID: '123', WEBHOOK_SECRET: 'c2b1e0f9a8d7c6b5' };

describe('start-up errors of the App server and the worker', () => {
  it('a missing key file and an unreachable database: one line naming the variable, a hint, exit 2, no stack', async () => {
    const db = `postgres://gate:s3cret-pw@127.0.0.1:${String(deadPort)}/gate`;
    const [workerKey, workerDb, appKey, appDb] = await Promise.all([
      start('src/cli.ts', ['worker'], { ...APP, PRIVATE_KEY_PATH: 'missing.pem', DATABASE_URL: db }),
      start('src/cli.ts', ['worker'], { ...APP, PRIVATE_KEY_PATH: keyFile, DATABASE_URL: db }),
      start('src/app-server.ts', [], { ...APP, PRIVATE_KEY_PATH: 'missing.pem' }),
      start('src/app-server.ts', [], { ...APP, PRIVATE_KEY_PATH: keyFile, DATABASE_URL: db }),
    ]);
    const keyLine = 'PRIVATE_KEY_PATH=missing.pem: the file does not exist';
    const dbLine = `cannot use the database in DATABASE_URL (127.0.0.1:${String(deadPort)}/gate): nothing accepts connections there`;
    expect(workerKey.stderr).toMatch(new RegExp(`^slopgate: ${keyLine}\n  hint: .*PRIVATE_KEY_PATH`));
    expect(workerDb.stderr).toMatch(new RegExp(`^slopgate: ${dbLine.replace(/[().]/g, '\\$&')}\n  hint: start PostgreSQL there`));
    expect(appKey.stderr).toMatch(new RegExp(`^slopgate could not start: ${keyLine}\n  hint: `));
    expect(appDb.stderr).toMatch(new RegExp(`^slopgate could not start: ${dbLine.replace(/[().]/g, '\\$&')}\n`));
    for (const r of [workerKey, workerDb, appKey, appDb]) {
      expect(r.status).toBe(2);
      expect(r.stderr).not.toMatch(/\n\s+at |Error:/);
      expect(r.stderr).not.toContain('s3cret-pw');
      expect(r.stderr.trim().split('\n')).toHaveLength(2);
    }
  });
});

describe('the checks themselves', () => {
  it('accept a PEM key as text, with \\n escapes, base64 or in a file; refuse the rest naming the variable', () => {
    const pem = testPrivateKey();
    expect(() => checkPrivateKey({ PRIVATE_KEY: pem })).not.toThrow();
    expect(() => checkPrivateKey({ PRIVATE_KEY: pem.replace(/\n/g, '\\n') })).not.toThrow();
    expect(() => checkPrivateKey({ PRIVATE_KEY: Buffer.from(pem).toString('base64') })).not.toThrow();
    expect(() => checkPrivateKey({ PRIVATE_KEY_PATH: keyFile })).not.toThrow();
    expect(() => checkPrivateKey({ PRIVATE_KEY: 'unused' })).toThrow(/^PRIVATE_KEY is not a PEM private key/);
    expect(() => checkPrivateKey({})).toThrow(/neither PRIVATE_KEY nor PRIVATE_KEY_PATH is set/);
    writeFileSync(join(dir, 'not-a-key.pem'), 'hello\n');
    expect(() => checkPrivateKey({ PRIVATE_KEY_PATH: 'not-a-key.pem' }, dir)).toThrow(
      /^PRIVATE_KEY_PATH=not-a-key\.pem is not a PEM private key/,
    );
  });

  it('turn database failures into configuration errors without the password; anything else passes through', () => {
    const url = 'postgres://u:pw@db.internal:6543/app';
    expect(databaseWhere(url)).toBe('db.internal:6543/app');
    const refused = Object.assign(new AggregateError([Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })]), {});
    const e = databaseStartError(refused, url);
    expect(e).toBeInstanceOf(InputError);
    expect((e as InputError).message).toBe(
      'cannot use the database in DATABASE_URL (db.internal:6543/app): nothing accepts connections there',
    );
    expect((databaseStartError(Object.assign(new Error('auth'), { code: '28P01' }), url) as Error).message).toMatch(
      /the password was refused$/,
    );
    const other = new Error('relation "x" does not exist');
    expect(databaseStartError(other, url)).toBe(other);
  });
});
