import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GateInfraError } from '../../src/core/errors.js';
import { renderReport } from '../../src/report/index.js';
import { sandboxCapabilities } from '../../src/sandbox/sandbox-probe.js';
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

/** A setup script (run with node in the sandbox) that opens `n` tunnels to the npm registry through the proxy and holds them `holdMs`. */
function tunnels(n: number, holdMs: number, waitMs = 0): string {
  return `'use strict';
const net = require('node:net');
const proxy = new URL(process.env.HTTPS_PROXY);
const open = () => new Promise((res) => {
  const s = net.connect(Number(proxy.port), proxy.hostname);
  let got = '';
  s.on('connect', () => s.write('CONNECT registry.npmjs.org:443 HTTP/1.1\\r\\nHost: registry.npmjs.org:443\\r\\n\\r\\n'));
  s.on('data', (d) => { got += d; if (got.includes('\\r\\n\\r\\n')) res({ s, ok: / 200 /.test(got.split('\\r\\n')[0]) }); });
  s.on('error', () => res({ s, ok: false }));
  s.on('close', () => res({ s, ok: false }));
});
setTimeout(async () => {
  const held = await Promise.all(Array.from({ length: ${n} }, open));
  const ok = held.filter((h) => h.ok).length;
  console.log('tunnels open: ' + ok + ' of ${n}');
  setTimeout(() => { for (const h of held) h.s.destroy(); process.exit(ok === ${n} ? 0 : 1); }, ${holdMs});
}, ${waitMs});
`;
}

describe.skipIf(why !== null)('each side has its own network budget', () => {
  it('a head whose setup holds every connection of its proxy does not starve the base’s setup', async () => {
    const repo = prRepo(
      { ...BASE, 'setup.js': tunnels(1, 0, 3000) },
      { 'setup.js': tunnels(64, 15_000), 'test/ok.test.js': "'use strict';\nconst test = require('node:test');\ntest('ok5', () => {});\n" },
    );
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0, network: true, setup: 'node setup.js' } });
    expect(g8Status(report).status).not.toBe('skipped');
    expect(report.sections.tests?.baseline).toMatchObject({ failing: 0, total: 1 });
    expect(report.sections.tests?.candidate).toMatchObject({ failing: 0, total: 1 });
    // It ran at its first try (a base starved beside the head is run again, alone, and says so).
    expect(report.sections.tests?.notes?.join('\n') ?? '').not.toContain('ran again, alone');
  }, 300_000);

  it('a base whose setup cannot run while the head’s can is run again alone, then stops the gate as not about the change', async () => {
    const repo = prRepo(
      { ...BASE, 'setup.sh': 'echo "the base cannot set up" >&2\nexit 1\n' },
      { 'setup.sh': 'exit 0\n', 'test/ok.test.js': "'use strict';\nconst test = require('node:test');\ntest('ok6', () => {});\n" },
    );
    const stopped = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0, setup: 'sh setup.sh' } }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(stopped).toBeInstanceOf(GateInfraError);
    expect((stopped as GateInfraError).message).toMatch(/could not run at the base, even alone/);
    expect((stopped as GateInfraError).hint).toMatch(/not about the change/);
  }, 300_000);
});
