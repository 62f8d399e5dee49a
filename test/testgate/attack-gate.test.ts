import { createServer, type Server } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GateInfraError } from '../../src/core/errors.js';
import { renderReport } from '../../src/report/index.js';
import { sandboxCapabilities } from '../../src/sandbox/sandbox-probe.js';
import { overrideSandboxCapabilities } from '../../src/sandbox/sandbox-probe.js';
import { prRepo, type TestRepo } from '../helpers/git-repo.js';
import { g8Status, gateTests, sandboxCacheDir, testsSection } from './fixtures.js';

/**
 * A hostile PR whose tests are the attack, through the real gate (G8 → baseline and candidate in the
 * sandbox → report). Each attack test asserts that it got what it wanted; in the sandbox each fails,
 * so the PR is blocked, and the secret, file, socket or process stays out of reach.
 */
const caps = sandboxCapabilities();
const why = caps.unavailable;
if (why) console.warn(`attack-gate tests skipped: ${why}`);

const SECRETS = {
  PRIVATE_KEY: '-----BEGIN RSA PRIVATE KEY----- gate-attack-private-key',
  WEBHOOK_SECRET: 'gate-attack-webhook-secret',
  GITHUB_TOKEN: 'ghs_gateattacktoken',
  DATABASE_URL: 'postgres://app:gate-attack-db-password@127.0.0.1/slopgate',
};

const cache = sandboxCacheDir();
let outside: string;
const servers: Server[] = [];
const hits: string[] = [];
let port = 0;
const marker = `slopgate-gate-daemon-${process.pid}`;

const BASE = {
  'package.json': JSON.stringify({ name: 'victim', version: '1.0.0', scripts: { test: 'node --test' } }, null, 2) + '\n',
  'src/add.js': "'use strict';\nmodule.exports = { add: (a, b) => a + b };\n",
  'test/add.test.js':
    "'use strict';\nconst test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../src/add.js');\ntest('adds', () => assert.strictEqual(add(1, 2), 3));\n",
};

function attackFile(repoDir: string): string {
  const secretFile = join(outside, '.npmrc');
  const sock = join(outside, 'app.sock');
  return `'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const net = require('node:net');
const { execSync, spawn } = require('node:child_process');

const sh = (cmd) => { try { return execSync(cmd, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }); } catch (e) { return String(e.stdout || '') + String(e.stderr || ''); } };
const connect = (path) => new Promise((res) => { const s = net.connect(path); s.on('connect', () => { s.end(); res('connected'); }); s.on('error', (e) => res(e.code)); });

test('attack: umount /proc and read the host environment', () => {
  sh('umount -l /proc');
  let loot = '';
  for (const p of fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n))) { try { loot += fs.readFileSync('/proc/' + p + '/environ', 'utf8'); } catch {} }
  try { loot += fs.readFileSync('/proc/${process.pid}/environ', 'utf8'); } catch {}
  assert.match(loot, /WEBHOOK_SECRET/, 'no secret: ' + loot.slice(0, 300));
});

test('attack: nsenter into the host network namespace', () => {
  const out = sh('for p in /proc/[0-9]*; do nsenter --net=$p/ns/net -- sh -c "exec 3<>/dev/tcp/127.0.0.1/${port}" && echo IN; done');
  assert.match(out, /IN/);
});

test('attack: host TCP service on loopback', async () => {
  assert.strictEqual(await connect({ host: '127.0.0.1', port: ${port} }), 'connected');
});

test('attack: host unix sockets', async () => {
  assert.strictEqual(await connect(${JSON.stringify(sock)}), 'connected');
  assert.strictEqual(await connect('/var/run/postgresql/.s.PGSQL.5432'), 'connected');
});

test('attack: read credentials and /etc/shadow', () => {
  const read = (f) => { try { return fs.readFileSync(f, 'utf8'); } catch (e) { return e.code; } };
  const loot = [${JSON.stringify(secretFile)}, '/root/.npmrc', '/etc/shadow'].map(read).join('|');
  assert.match(loot, /_authToken|root:/, loot);
});

test('attack: plant a hook in the source repository', () => {
  fs.mkdirSync(${JSON.stringify(join(repoDir, '.git', 'hooks'))}, { recursive: true });
  fs.writeFileSync(${JSON.stringify(join(repoDir, '.git', 'hooks', 'post-checkout'))}, '#!/bin/sh\\ntouch /tmp/pwned\\n', { mode: 0o755 });
  assert.ok(fs.existsSync('/proc/1/root${repoDir}/.git/HEAD'), 'the repository is not reachable');
});

test('attack: a daemon that outlives the run', () => {
  const child = spawn('sh', ['-c', 'sleep 300; :', '${marker}'], { detached: true, stdio: 'ignore' });
  child.unref();
  assert.fail('daemon started; it must not survive');
});
`;
}

describe.skipIf(why !== null)('attacks through the real gate (node --test PR)', () => {
  let repo: TestRepo;
  let json = '';
  let text = '';
  let report: Awaited<ReturnType<typeof gateTests>>;

  beforeAll(async () => {
    Object.assign(process.env, SECRETS);
    outside = mkdtempSync(join(tmpdir(), 'slopgate-gate-outside-'));
    writeFileSync(join(outside, '.npmrc'), '//registry.npmjs.org/:_authToken=gate-fake-npm-token\n', { mode: 0o600 });
    const unix = createServer((s) => {
      hits.push('unix');
      s.end();
    });
    const tcp = createServer((s) => {
      hits.push('tcp');
      s.end();
    });
    servers.push(unix, tcp);
    await new Promise<void>((r) => unix.listen(join(outside, 'app.sock'), r));
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    port = (tcp.address() as { port: number }).port;
    repo = prRepo(BASE);
    repo.write({ 'test/attack.test.js': attackFile(repo.dir) }).commit('tests');
    report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    json = renderReport('json', report);
    text = renderReport('text', report);
  }, 300_000);

  afterAll(() => {
    for (const k of Object.keys(SECRETS)) delete process.env[k];
    for (const s of servers) s.close();
    rmSync(outside, { recursive: true, force: true });
    cache.remove();
  });

  it('every attack fails inside the sandbox, so the PR is not passed', () => {
    expect(g8Status(report).status).not.toBe('error');
    const s = testsSection(report);
    expect(s.candidate?.total).toBe(8);
    const failing = s.regressions;
    for (const name of ['umount /proc', 'nsenter', 'host TCP', 'host unix sockets', 'read credentials', 'plant a hook', 'a daemon']) {
      expect(
        failing.some((id) => id.includes(name)),
        name,
      ).toBe(true);
    }
    expect(report.decision.outcome).not.toBe('PASS');
  });

  it('no secret reaches the report (JSON and text)', () => {
    for (const v of Object.values(SECRETS)) {
      expect(json).not.toContain(v);
      expect(text).not.toContain(v);
    }
    expect(json).not.toContain('gate-fake-npm-token');
    expect(json).not.toMatch(/root:[^:]*:\d+:/); // no /etc/shadow or passwd lines
  });

  it('no socket was reached, no hook written, no daemon left', () => {
    expect(hits).toEqual([]);
    expect(existsSync(join(repo.dir, '.git', 'hooks', 'post-checkout'))).toBe(false);
    const alive = readdirSync('/proc').filter((p) => {
      try {
        return /^\d+$/.test(p) && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    });
    expect(alive).toEqual([]);
    expect(report.sections.tests).toMatchObject({ sandbox: { sandbox: 'bwrap', network: 'isolated', seccomp: true } });
  });
});

describe('when the sandbox cannot be established (tests.isolation: required)', () => {
  it('the gate stops with the exact reason (an infra error, never a skip or a pass) and the PR code never runs', async () => {
    const real = sandboxCapabilities();
    overrideSandboxCapabilities({ ...real, unavailable: 'bwrap cannot create the sandbox: No permissions to create new namespace' });
    const proof = join(mkdtempSync(join(tmpdir(), 'slopgate-refused-')), 'ran');
    try {
      const repo = prRepo(BASE, {
        'test/add.test.js': `'use strict';\nrequire('node:fs').writeFileSync(${JSON.stringify(proof)}, 'ran');\n`,
      });
      const err = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GateInfraError);
      expect((err as GateInfraError).message).toBe(
        'the sandbox could not start — bwrap cannot create the sandbox: No permissions to create new namespace',
      );
      expect(existsSync(proof)).toBe(false);
      // A repository asking for best-effort does not lower the isolation on its own.
      const asked = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0, isolation: 'best-effort' } }).catch((e: unknown) => e);
      expect((asked as Error).message).toContain('ignored unless the operator sets SLOPGATE_TESTS_ISOLATION=best-effort');
      expect(existsSync(proof)).toBe(false);
      // Turned off on purpose, G8 is skipped and the rest of the gate reports.
      const off = await gateTests(repo, { cacheDir: cache.dir, tests: { enabled: false } });
      expect(g8Status(off)).toMatchObject({ status: 'skipped', reason: 'disabled in config (tests.enabled: false)' });
      // A base without any test setup needs no sandbox: nothing would run.
      const bare = await gateTests(prRepo({ 'a.txt': 'a\n' }, { 'a.txt': 'b\n' }), { cacheDir: cache.dir });
      expect(g8Status(bare).status).toBe('skipped');
    } finally {
      overrideSandboxCapabilities(real);
    }
  }, 120_000);

  it('best-effort, allowed by the operator, runs the tests and says they ran without isolation', async () => {
    const real = sandboxCapabilities();
    overrideSandboxCapabilities({ ...real, unavailable: 'bwrap cannot create the sandbox: No permissions to create new namespace' });
    process.env.SLOPGATE_TESTS_ISOLATION = 'best-effort';
    try {
      const repo = prRepo(BASE, { 'src/add.js': "'use strict';\nmodule.exports = { add: (a, b) => a - b };\n" });
      const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0, isolation: 'best-effort' } });
      expect(testsSection(report).regressions).toHaveLength(1);
      expect(report.sections.tests).toMatchObject({ sandbox: { sandbox: 'none', unavailable: expect.stringContaining('No permissions') } });
      for (const format of ['text', 'markdown'] as const) {
        expect(renderReport(format, report).split('\n')[0]).toContain('the tests ran without isolation (tests.isolation: best-effort)');
      }
    } finally {
      delete process.env.SLOPGATE_TESTS_ISOLATION;
      overrideSandboxCapabilities(real);
    }
  }, 180_000);
});
