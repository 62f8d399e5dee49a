import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { idleServerRssMb } from '../../../src/bench/idle-memory.js';
import { buildApp, REPO_ROOT } from '../../e2e/harness/app-process.js';
import { defaultWorkDir, requireWebhookSecret } from '../../../src/platforms/github/deployment-env.js';
import type { Db } from '../../../src/store/db.js';
import { lazyDb } from '../../../src/store/open-store.js';

const ROOT = process.cwd();

describe('the webhook secret', () => {
  const base = { APP_ID: '1', PRIVATE_KEY: 'pem' };
  it.each([
    ['unset', {}],
    ['empty', { WEBHOOK_SECRET: '' }],
    ['blank', { WEBHOOK_SECRET: '  ' }],
    ['Probot’s fallback', { WEBHOOK_SECRET: 'development' }],
  ])('%s: refused with a hint', (_name, env) => {
    expect(() => requireWebhookSecret({ ...base, ...env })).toThrow(/WEBHOOK_SECRET/);
    try {
      requireWebhookSecret({ ...base, ...env });
    } catch (err) {
      expect((err as { hint?: string }).hint).toMatch(/openssl rand -hex 32/);
    }
  });

  it('a real secret is accepted', () => {
    expect(() => requireWebhookSecret({ ...base, WEBHOOK_SECRET: 'f3a9c0d1e2b4' })).not.toThrow();
  });

  it('is not required before the App exists (Probot’s manifest setup writes one)', () => {
    expect(() => requireWebhookSecret({})).not.toThrow();
  });

  it('the server process exits 2 with the reason and no stack trace', () => {
    const r = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'src', 'app-server.ts')], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, APP_ID: '1', PRIVATE_KEY: 'x', WEBHOOK_SECRET: 'development', PORT: '0' },
      timeout: 240_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/slopgate could not start: WEBHOOK_SECRET is the placeholder 'development'/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('the default work dir', () => {
  it('is SLOPGATE_WORKDIR when set', () => {
    expect(defaultWorkDir({ SLOPGATE_WORKDIR: '/srv/sg', HOME: '/home/u' })).toBe('/srv/sg');
  });
  it('else the user’s cache folder, which a non-root user can create', () => {
    expect(defaultWorkDir({ XDG_CACHE_HOME: '/home/u/.xdg', HOME: '/home/u' })).toBe('/home/u/.xdg/slopgate');
    expect(defaultWorkDir({ HOME: '/home/u' })).toBe('/home/u/.cache/slopgate');
  });
  it('else a per-user folder in the temp dir', () => {
    expect(defaultWorkDir({ HOME: '/' })).toBe(join(tmpdir(), `slopgate-${process.getuid!()}`));
  });
});

describe('.env.example', () => {
  const text = readFileSync(join(ROOT, '.env.example'), 'utf8');
  const set = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(text)?.[1];
  it('has no usable placeholder webhook secret', () => {
    expect(set('WEBHOOK_SECRET')).toBe('');
    expect(text).not.toMatch(/^WEBHOOK_SECRET=development/m);
  });
  it('leaves the work dir to the per-user default', () => {
    expect(set('SLOPGATE_WORKDIR')).toBeUndefined();
  });
});

describe('lazyDb', () => {
  function fakeDb(log: string[]): Db {
    return {
      dialect: 'pglite',
      query: async (sql) => {
        log.push(sql);
        return { rows: [], affected: 0 };
      },
      exec: async () => undefined,
      transaction: async (fn) => fn({ query: async () => ({ rows: [], affected: 0 }), exec: async () => undefined }),
      close: async () => {
        log.push('close');
      },
    };
  }

  it('opens on the first query, once for concurrent callers', async () => {
    const log: string[] = [];
    let opens = 0;
    const db = lazyDb({}, async () => {
      opens++;
      return fakeDb(log);
    });
    expect(opens).toBe(0);
    await Promise.all([db.query('a'), db.query('b'), db.exec('c')]);
    expect(opens).toBe(1);
    expect(log).toEqual(['a', 'b']);
    await db.close();
    expect(log.at(-1)).toBe('close');
    await expect(db.query('d')).rejects.toThrow(/closed/);
  });

  it('retries after a failed open and closes without ever opening', async () => {
    let opens = 0;
    const db = lazyDb({}, async () => {
      opens++;
      if (opens === 1) throw new Error('disk full');
      return fakeDb([]);
    });
    await expect(db.query('x')).rejects.toThrow('disk full');
    await expect(db.query('x')).resolves.toEqual({ rows: [], affected: 0 });
    expect(opens).toBe(2);
    let never = 0;
    await lazyDb({}, async () => {
      never++;
      return fakeDb([]);
    }).close();
    expect(never).toBe(0);
  });
});

describe('the App’s idle memory', () => {
  it('stays under 250 MB without DATABASE_URL, and the embedded database is not created before first use', async () => {
    // dist/ is built once per test run and never rebuilt while a suite runs it
    buildApp();
    const { rssMb, workDir } = await idleServerRssMb({ dist: join(REPO_ROOT, 'dist') });
    expect(workDir).not.toContain('db');
    expect(rssMb).toBeGreaterThan(20);
    expect(rssMb).toBeLessThan(250);
  }, 900_000);
});
