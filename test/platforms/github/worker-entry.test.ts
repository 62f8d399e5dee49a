import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/core/errors.js';
import { serverDeploymentFromEnv } from '../../../src/platforms/github/deployment-env.js';
import { grantFor } from '../../../src/host/sanctions.js';
import { runGateWorker } from '../../../src/platforms/github/worker-entry.js';
import { isManifest } from '../../../src/guards/g1-manifest-safety/path-rules.js';
import { createQueue } from '../../../src/queue/create-queue.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Runs a slopgate entry point with tsx in a clean environment (no DATABASE_URL inherited). */
function runEntry(script: string, args: string[], env: Record<string, string>) {
  const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' };
  return spawnSync(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: root,
    env: { ...base, ...env },
    encoding: 'utf8',
    // generous: tsx compiles the entry first, which takes long on a loaded machine; a timeout is a failure here
    timeout: 240_000,
  });
}

describe('slopgate worker: refuses to start when it could not share or report work', () => {
  it('`slopgate worker` without DATABASE_URL exits 2 and names DATABASE_URL (there is no queue to share)', () => {
    const res = runEntry('src/cli.ts', ['worker'], { APP_ID: '123', PRIVATE_KEY: 'unused' });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('slopgate worker needs DATABASE_URL');
    expect(res.stderr).toContain('hint: set DATABASE_URL=postgres://');
  });

  it('a worker with DATABASE_URL but without the App id refuses to take jobs whose check runs it could not complete', async () => {
    const err = await runGateWorker({ env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test', PRIVATE_KEY: 'x' } }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).hint).toContain('APP_ID');
  });
});

describe('App server deployment from the environment', () => {
  it('DATABASE_URL selects the durable PostgreSQL queue; without it the queue stays in-process', () => {
    const shared = serverDeploymentFromEnv({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test', SLOPGATE_QUEUE_SCHEMA: 'gate_q' });
    expect(shared).toMatchObject({
      role: 'all',
      queue: { databaseUrl: 'postgres://postgres@127.0.0.1:5432/test', durable: { schema: 'gate_q' } },
    });
    expect(createQueue(shared.queue).kind).toBe('postgres');
    expect(createQueue(serverDeploymentFromEnv({}).queue).kind).toBe('memory');
  });

  it('SLOPGATE_ROLE=web with a database is a web tier; a misspelt role is refused instead of silently running jobs', () => {
    expect(serverDeploymentFromEnv({ SLOPGATE_ROLE: 'web', DATABASE_URL: 'postgres://h/db' }).role).toBe('web');
    expect(() => serverDeploymentFromEnv({ SLOPGATE_ROLE: 'webb', DATABASE_URL: 'postgres://h/db' })).toThrow(
      /SLOPGATE_ROLE must be 'all' or 'web'/,
    );
  });

  it('the App server with SLOPGATE_ROLE=web but no DATABASE_URL exits 2 before listening: no worker could ever take its jobs', () => {
    const res = runEntry('src/app-server.ts', [], { SLOPGATE_ROLE: 'web', APP_ID: '123', PRIVATE_KEY: 'unused', WEBHOOK_SECRET: 's' });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('SLOPGATE_ROLE=web needs DATABASE_URL');
  });
});

describe("the slopgate:allow-manifest label uses G1's own manifest list", () => {
  it('sanctions exactly the paths G1 treats as manifests, including Pipfile and upper-case names a copied list missed', () => {
    const sanctioned = (path: string) =>
      grantFor('label', 'maint', 'a'.repeat(40), 'slopgate:allow-manifest', [{ path, status: 'modified', blob: 'b'.repeat(40) }]).files
        .length === 1;
    const paths = [
      'Pipfile',
      'api/Pipfile',
      'GO.MOD',
      'svc/Cargo.toml',
      'requirements-dev.txt',
      'py/requirements.txt',
      'package.json',
      '.hidden/pom.xml',
    ];
    const notManifests = ['package-lock.json', 'src/app.py', 'requirements/base.in', 'go.modx', 'docs/package.json.md'];
    for (const p of [...paths, ...notManifests]) expect(sanctioned(p), p).toBe(isManifest(p));
    expect(paths.every((p) => sanctioned(p))).toBe(true);
  });
});
