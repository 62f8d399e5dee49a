import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/index.js';
import { sandboxCapabilities } from '../../src/testgate/sandbox-probe.js';
import { prRepo } from '../helpers/git-repo.js';
import { g8Status, gateTests, sandboxCacheDir } from './fixtures.js';

/**
 * `tests.network: true` through the real gate: the PR's commands get the registries through the
 * egress proxy and nothing else. The loopback listener stands for the services next to slopgate.
 */
const why = sandboxCapabilities().unavailable;
if (why) console.warn(`gate egress tests skipped: ${why}`);

const cache = sandboxCacheDir();
let server: Server;
let port = 0;
const hits: string[] = [];

const BASE = {
  'package.json': JSON.stringify({ name: 'victim', version: '1.0.0', scripts: { test: 'node --test' } }, null, 2) + '\n',
  'test/ok.test.js': "'use strict';\nconst test = require('node:test');\ntest('ok', () => {});\n",
};

/** A PR test that passes only if it reaches the host's listener, directly or through the proxy. */
function attack(hostPort: number): string {
  return `'use strict';
const test = require('node:test');
const assert = require('node:assert');
const net = require('node:net');
const direct = () => new Promise((res) => {
  const s = net.connect(${hostPort}, '127.0.0.1');
  s.on('connect', () => { s.destroy(); res('connected'); });
  s.on('error', (e) => res(e.code));
});
const proxied = (authority) => new Promise((res) => {
  const proxy = new URL(process.env.HTTPS_PROXY);
  const s = net.connect(Number(proxy.port), proxy.hostname);
  let got = '';
  s.on('connect', () => s.write('CONNECT ' + authority + ' HTTP/1.1\\r\\nHost: ' + authority + '\\r\\n\\r\\n'));
  s.on('data', (d) => { got += d; });
  s.on('error', (e) => res(e.code));
  s.on('close', () => res(got.split('\\r\\n')[0]));
});
test('reaches the host loopback directly', async () => assert.strictEqual(await direct(), 'connected'));
test('reaches the host loopback through the proxy', async () => assert.match(await proxied('127.0.0.1:${hostPort}'), / 200 /));
test('reaches the host loopback through the proxy by name', async () => assert.match(await proxied('localhost:${hostPort}'), / 200 /));
`;
}

describe.skipIf(why !== null)('tests.network: true through the real gate', () => {
  beforeAll(async () => {
    server = createServer((s) => {
      hits.push('tcp');
      s.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => {
    server.close();
    cache.remove();
  });

  it("runs with the egress proxy: the PR's tests cannot reach a loopback listener, and the report says what was refused", async () => {
    const repo = prRepo(BASE, { 'test/attack.test.js': attack(port) });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0, network: true } });
    const tests = report.sections.tests!;
    expect(tests.sandbox).toMatchObject({ sandbox: 'bwrap', network: 'egress-proxy', seccomp: true });
    // Each attack test asserts it got through; each fails in the sandbox, so the PR is not passed.
    expect(tests.regressions).toEqual([
      'js:test/attack.test.js > reaches the host loopback directly',
      'js:test/attack.test.js > reaches the host loopback through the proxy',
      'js:test/attack.test.js > reaches the host loopback through the proxy by name',
    ]);
    expect(hits).toEqual([]);
    expect(tests.egressRefused).toEqual(
      expect.arrayContaining([
        `127.0.0.1:${port}: an IP address, not a host name (the proxy only connects to host names on its allow-list)`,
        `localhost:${port}: port ${port} is not allowed (allowed: 443, 80)`,
      ]),
    );
    expect(report.decision.outcome).not.toBe('PASS');
    expect(renderReport('text', report)).toContain('egressRefused');
  }, 300_000);

  it('a setup that needs a host off the allow-list is skipped with the refusal named', async () => {
    const repo = prRepo(BASE, { 'test/ok.test.js': "'use strict';\nconst test = require('node:test');\ntest('ok2', () => {});\n" });
    const report = await gateTests(repo, {
      cacheDir: cache.dir,
      tests: { reruns: 0, network: true, setup: 'curl -sS -o /dev/null https://example.com/' },
    });
    const reason = g8Status(report).reason ?? '';
    expect(reason).toContain('the setup command (tests.setup) fails: it exits with code');
    expect(reason).toContain("the sandbox's egress proxy refused example.com:443 (not on the allow-list of registry hosts)");
  }, 300_000);

  it('SLOPGATE_EGRESS=off leaves the sandbox without network and says so', async () => {
    process.env.SLOPGATE_EGRESS = 'off';
    try {
      const repo = prRepo(BASE, { 'test/ok.test.js': "'use strict';\nconst test = require('node:test');\ntest('ok3', () => {});\n" });
      const report = await gateTests(repo, {
        cacheDir: cache.dir,
        tests: { reruns: 0, network: true, setup: 'curl -sS -o /dev/null https://registry.npmjs.org/' },
      });
      expect(g8Status(report).reason).toContain('SLOPGATE_EGRESS=off');
      const off = await gateTests(prRepo(BASE, { 'test/ok.test.js': BASE['test/ok.test.js'].replace("'ok'", "'ok4'") }), {
        cacheDir: cache.dir,
        tests: { reruns: 0, network: true },
      });
      expect(off.sections.tests?.sandbox?.network).toBe('isolated');
      expect(off.sections.tests?.notes?.join('\n')).toContain(
        'tests.network: the operator turned the sandbox network off (SLOPGATE_EGRESS=off)',
      );
    } finally {
      delete process.env.SLOPGATE_EGRESS;
    }
  }, 300_000);
});
