import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/core/report.js';
import { lockFolder } from '../../src/store/folder-lock.js';
import { openStore } from '../../src/store/open-store.js';
import { prRepo } from '../helpers/git-repo.js';

/**
 * The embedded store (PGlite in `--db DIR`) is one process's at a time: concurrent `slopgate check`
 * runs on one folder take turns instead of breaking it, a damaged database is moved aside and a new one
 * made (with a warning), and a run killed with SIGKILL leaves nothing that stops the next one.
 */

const CLI = join(process.cwd(), 'src', 'cli.ts');
const scratch: string[] = [];
afterAll(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

function folder(): string {
  const d = mkdtempSync(join(tmpdir(), 'slopgate-db-lock-'));
  scratch.push(d);
  return join(d, 'db');
}

// A generous guard budget: the runs share a loaded machine, and a guard stopped at its budget would block.
const repo = prRepo({ '.github/slopgate.yml': 'guards:\n  timeoutMs: 600000\n', 'a.py': 'x = 1\n' }, { 'a.py': 'x = 2\n' });
/** A repository whose test never ends: a run of it holds the folder for as long as the test is left to run. */
const HANGING_TEST =
  "'use strict';\nconst test = require('node:test');\ntest('waits', () => new Promise(() => setInterval(() => {}, 1000)));\n";
const hanging = prRepo(
  { 'package.json': JSON.stringify({ name: 'h', version: '1.0.0', scripts: { test: 'node --test' } }), 'test/a.test.js': HANGING_TEST },
  { 'notes.txt': 'x\n' },
);

interface Run {
  child: ChildProcess;
  stderr: () => string;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

function startCheck(db: string, env: Record<string, string> = {}, dir = repo.dir): Run {
  const args = dir === repo.dir ? ['--no-tests', '--only', 'G1,G9'] : ['--only', 'G8'];
  // One process (node with the tsx loader, not the tsx wrapper, which would run the CLI in a child of its own).
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CLI, 'check', '--repo', dir, '--base', 'main', '--head', 'pr', '--format', 'json', ...args, '--db', db],
    {
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, stderr: () => stderr, done };
}

/** Resolves once `probe` holds (checked whenever the child writes, and on a short poll). */
async function until(probe: () => boolean, what: string, run?: Run): Promise<void> {
  for (let i = 0; !probe(); i++) {
    if (run && run.child.exitCode !== null) throw new Error(`the run ended before ${what}: ${run.stderr()}`);
    if (i > 6000) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function runsIn(db: string): Promise<number> {
  const store = await openStore({ dataDir: db });
  try {
    return (await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM runs')).rows[0]!.n;
  } finally {
    await store.close();
  }
}

describe('slopgate check --db DIR: one process at a time', () => {
  it('4 concurrent runs on one folder all finish with a verdict, and the database holds all 4', async () => {
    const db = folder();
    // Generous per-holder wait: the runs take turns, however slow the machine is.
    const runs = Array.from({ length: 4 }, () => startCheck(db, { SLOPGATE_DB_LOCK_WAIT_SECONDS: '600' }));
    const results = await Promise.all(runs.map((r) => r.done));
    for (const r of results) {
      expect(r.code, `${r.stderr}\n${r.stdout.slice(0, 3000)}`).toBe(0);
      expect((JSON.parse(r.stdout) as Report).decision.outcome).toBe('PASS');
      expect(r.stderr).not.toMatch(/internal error|Aborted|File exists|cache lookup failed/);
    }
    expect(await runsIn(db)).toBe(4);
    expect(existsSync(`${db}.lock`)).toBe(false);
  }, 600_000);

  it('a second process says once that it waits for the holder, and goes on when it lets go', async () => {
    const db = folder();
    const held = await lockFolder(db);
    const run = startCheck(db);
    await until(() => run.stderr().includes(`waiting for pid ${process.pid}`), 'the waiting notice', run);
    await held.release();
    const r = await run.done;
    expect(r.code, `${r.stderr}\n${r.stdout.slice(0, 3000)}`).toBe(0);
    expect(r.stderr.match(/waiting for pid/g)).toHaveLength(1);
    expect(r.stderr).toContain(`slopgate: waiting for pid ${process.pid}, which is using the database folder ${db}`);
  }, 120_000);

  it('a holder that does not let go within the wait: exit 2 with a message naming its pid, no stack trace', async () => {
    const db = folder();
    const held = await lockFolder(db);
    try {
      const r = await startCheck(db, { SLOPGATE_DB_LOCK_WAIT_SECONDS: '0' }).done;
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        new RegExp(`^slopgate: the database folder ${db} is in use by another slopgate process \\(pid ${process.pid} on `, 'm'),
      );
      expect(r.stderr).toContain('hint: let that run finish and try again');
      expect(r.stderr).not.toContain('    at ');
    } finally {
      await held.release();
    }
  }, 120_000);

  it('a damaged database is moved aside to DIR.broken-<time> and the run succeeds with a warning', async () => {
    const db = folder();
    expect((await startCheck(db).done).code).toBe(0);
    // Garbage over the control file and the write-ahead log.
    for (const file of [
      join(db, 'global', 'pg_control'),
      ...readdirSync(join(db, 'pg_wal'))
        .filter((f) => /^[0-9A-F]{24}$/.test(f))
        .map((f) => join(db, 'pg_wal', f)),
    ]) {
      writeFileSync(file, Buffer.alloc(statSync(file).size, 0x5a));
    }
    const r = await startCheck(db).done;
    expect(r.code, `${r.stderr}\n${r.stdout.slice(0, 3000)}`).toBe(0);
    expect((JSON.parse(r.stdout) as Report).decision.outcome).toBe('PASS');
    expect(r.stderr).toMatch(
      new RegExp(
        `^slopgate: warning: could not read the database in ${db} \\(.+\\); moved it to ${db}\\.broken-\\S+ and started a new one`,
        'm',
      ),
    );
    expect(r.stderr).not.toContain('    at ');
    const parent = join(db, '..');
    expect(readdirSync(parent).filter((n) => n.startsWith('db.broken-'))).toHaveLength(1);
    expect(await runsIn(db)).toBe(1);
  }, 180_000);

  it('a run killed with SIGKILL while it holds the folder: the next run takes the stale lock over and finishes', async () => {
    const db = folder();
    expect((await startCheck(db).done).code).toBe(0);
    // Its suite never ends, so it holds the folder until it is killed (base and head run in the sandbox).
    const victim = startCheck(db, {}, hanging.dir);
    await until(
      () => existsSync(`${db}.lock`) && readFileSync(`${db}.lock`, 'utf8').includes(`"pid":${victim.child.pid}`),
      'the victim to hold the lock',
      victim,
    );
    victim.child.kill('SIGKILL');
    expect((await victim.done).signal).toBe('SIGKILL');
    expect(existsSync(`${db}.lock`)).toBe(true);
    const r = await startCheck(db).done;
    expect(r.code, `${r.stderr}\n${r.stdout.slice(0, 3000)}`).toBe(0);
    expect(r.stderr).toContain(`taking over the lock of ${db} from pid ${victim.child.pid} (process ${victim.child.pid} is gone)`);
    expect(await runsIn(db)).toBeGreaterThanOrEqual(2);
  }, 180_000);
});

describe('the folder lock', () => {
  it('a file at DIR.lock that slopgate did not write is not taken for a lock or removed', async () => {
    const db = folder();
    writeFileSync(`${db}.lock`, 'not a lock\n');
    await expect(lockFolder(db, { waitMs: 0 })).rejects.toThrow(`${db}.lock is not a slopgate lock file`);
    expect(readFileSync(`${db}.lock`, 'utf8')).toBe('not a lock\n');
  });

  it('a lock of a pid that now belongs to another process (a different start time) is stale', async () => {
    const db = folder();
    // This very process, with another start time: as after a pid was reused.
    writeFileSync(
      `${db}.lock`,
      JSON.stringify({ pid: process.pid, host: (await import('node:os')).hostname(), start: '1', since: 'then' }),
    );
    const notices: string[] = [];
    const lock = await lockFolder(db, { waitMs: 0, onNotice: (m) => notices.push(m) });
    expect(notices).toEqual([`taking over the lock of ${db} from pid ${process.pid} (pid ${process.pid} now belongs to another process)`]);
    await lock.release();
    expect(existsSync(`${db}.lock`)).toBe(false);
  });

  it('a folder that cannot be made is a usage error that says so, not a crash', async () => {
    const file = join(folder(), '..', 'a-file');
    writeFileSync(file, '');
    await expect(lockFolder(join(file, 'db'))).rejects.toThrow(`cannot create the folder of the database ${join(file, 'db')}`);
  });

  it('a live holder on another host is never judged stale: the wait runs out instead', async () => {
    const db = folder();
    writeFileSync(`${db}.lock`, JSON.stringify({ pid: 1, host: 'elsewhere.example', since: 'then' }));
    await expect(lockFolder(db, { waitMs: 0 })).rejects.toThrow(
      /in use by another slopgate process \(pid 1 on elsewhere\.example, since then\)/,
    );
  });
});
