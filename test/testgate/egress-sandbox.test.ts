import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEgressProxy } from '../../src/sandbox/egress/egress-proxy.js';
import { type EgressProxy } from '../../src/sandbox/egress/egress-policy.js';
import { runSandboxed, type SandboxOptions } from '../../src/sandbox/sandbox.js';
import { sandboxCapabilities } from '../../src/sandbox/sandbox-probe.js';
import { hasToolchain } from '../helpers/toolchains.js';

/**
 * The real sandbox with the egress proxy: the command's only way out is 127.0.0.1:3128 in its own
 * network namespace, which reaches slopgate's proxy. The host's loopback listener below stands for
 * every internal service; nothing in the sandbox may reach it, directly or through the proxy.
 */
const why = sandboxCapabilities().unavailable;
if (why) console.warn(`egress sandbox tests skipped: ${why}`);

let root: string;
let server: Server;
let port = 0;
const hits: string[] = [];
let proxy: EgressProxy;

function opts(command: string, extra: Partial<SandboxOptions> = {}): SandboxOptions {
  const run = mkdtempSync(join(root, 'run-'));
  for (const d of ['home', 'tmp', 'cache', 'work']) mkdirSync(join(run, d));
  return {
    command,
    cwd: join(run, 'work'),
    home: join(run, 'home'),
    tmp: join(run, 'tmp'),
    cacheDir: join(run, 'cache'),
    writable: [run],
    egress: { socketPath: proxy.socketPath },
    timeoutMs: 120_000,
    memoryMb: 1024,
    maxProcesses: 64,
    ...extra,
  };
}

/** A node script run inside the sandbox: tries each way out and prints what happened, as JSON. */
function probeScript(hostPort: number): string {
  return `'use strict';
const net = require('node:net');
const direct = (host, port) => new Promise((res) => {
  const s = net.connect({ host, port });
  s.on('connect', () => { s.destroy(); res('connected'); });
  s.on('error', (e) => res(e.code));
});
const viaProxy = (authority) => new Promise((res) => {
  const s = net.connect({ host: '127.0.0.1', port: 3128 });
  let got = '';
  s.on('connect', () => s.write('CONNECT ' + authority + ' HTTP/1.1\\r\\nHost: ' + authority + '\\r\\n\\r\\n'));
  s.on('data', (d) => { got += d; if (got.includes('\\r\\n\\r\\n') || got.length > 2000) { s.destroy(); res(got.split('\\r\\n')[0] + ' | ' + got.split('\\r\\n\\r\\n')[1]); } });
  s.on('error', (e) => res(e.code));
  s.on('close', () => res(got));
});
(async () => {
  const out = {
    direct: await direct('127.0.0.1', ${hostPort}),
    directV6: await direct('::1', ${hostPort}),
    viaIp: await viaProxy('127.0.0.1:${hostPort}'),
    viaIpV6: await viaProxy('[::1]:${hostPort}'),
    viaDecimal: await viaProxy('2130706433:${hostPort}'),
    viaName: await viaProxy('loopback.test:${hostPort}'),
    viaLocalhost: await viaProxy('localhost.:${hostPort}'),
    offList: await viaProxy('not-allowed.example:443'),
  };
  console.log(JSON.stringify(out));
})();
`;
}

describe.skipIf(why !== null)('the sandbox with the egress proxy (real bwrap)', () => {
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'slopgate-egress-sandbox-'));
    server = createServer((s) => {
      hits.push(String(s.remoteAddress));
      s.end('host-secret\n');
    });
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    port = (server.address() as { port: number }).port;
    proxy = await startEgressProxy({
      hosts: ['pypi.org', 'files.pythonhosted.org', 'loopback.test', 'localhost'],
      ports: [443, 80, port],
      lookup: async (host) => (host === 'loopback.test' ? ['127.0.0.1'] : (await lookup(host, { all: true })).map((a) => a.address)),
    });
  });
  afterAll(async () => {
    server.close();
    await proxy.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("cannot reach the host's loopback listener directly, by IP through the proxy, or by a name resolving to loopback", async () => {
    const o = opts('node probe.js');
    writeFileSync(join(o.cwd, 'probe.js'), probeScript(port));
    const r = await runSandboxed(o);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.isolation.network).toBe('egress-proxy');
    const out = JSON.parse(r.stdout) as Record<string, string>;
    expect(out.direct).toBe('ECONNREFUSED');
    expect(out.directV6).toMatch(/^E/);
    expect(out.viaIp).toMatch(/^HTTP\/1\.1 403 Forbidden \| .*an IP address, not a host name/);
    expect(out.viaIpV6).toMatch(/^HTTP\/1\.1 403 Forbidden \| .*an IP address/);
    expect(out.viaDecimal).toMatch(/^HTTP\/1\.1 403 Forbidden \| .*an IP address/);
    expect(out.viaName).toMatch(
      /^HTTP\/1\.1 403 Forbidden \| .*resolves to (a loopback address|an address of the machine slopgate runs on)/,
    );
    expect(out.viaLocalhost).toMatch(/^HTTP\/1\.1 403 Forbidden \| .*resolves to/);
    expect(out.offList).toBe(
      'HTTP/1.1 403 Forbidden | slopgate egress proxy: refused not-allowed.example:443: not on the allow-list of registry hosts\n',
    );
    expect(JSON.stringify(out)).not.toContain('host-secret');
    expect(hits).toEqual([]);
    const refused = proxy.refusals();
    expect(refused).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ host: '127.0.0.1', port }),
        expect.objectContaining({ host: '2130706433', port }),
        expect.objectContaining({ host: 'loopback.test', port, reason: expect.stringMatching(/^resolves to/) as unknown }),
        expect.objectContaining({ host: 'localhost', port }),
        { host: 'not-allowed.example', port: 443, reason: 'not on the allow-list of registry hosts' },
      ]),
    );
  });

  it('sets the proxy variables (and never the host’s), and the sandbox resolves no names itself', async () => {
    process.env.HTTPS_PROXY = 'http://host-proxy.invalid:1';
    process.env.npm_config_proxy = 'http://host-proxy.invalid:2';
    try {
      const r = await runSandboxed(opts('env | grep -i proxy | sort; ls /etc/resolv.conf 2>&1; getent hosts pypi.org || echo no-dns'));
      expect(r.stdout).not.toContain('host-proxy.invalid');
      for (const name of [
        'HTTP_PROXY',
        'HTTPS_PROXY',
        'http_proxy',
        'https_proxy',
        'npm_config_proxy',
        'npm_config_https_proxy',
        'CARGO_HTTP_PROXY',
        'PIP_PROXY',
      ]) {
        expect(r.stdout).toContain(`${name}=http://127.0.0.1:3128\n`);
      }
      expect(r.stdout).toContain('NO_PROXY=localhost,127.0.0.1,::1\n');
      expect(r.stdout).toContain('No such file');
      expect(r.stdout).toContain('no-dns');
    } finally {
      delete process.env.HTTPS_PROXY;
      delete process.env.npm_config_proxy;
    }
  });

  it.skipIf(!hasToolchain('python3'))(
    'an HTTPS request to an allowed registry goes through (pypi.org with urllib)',
    async () => {
      const r = await runSandboxed(
        opts(
          `python3 -c "import urllib.request; r = urllib.request.urlopen('https://pypi.org/simple/six/', timeout=60); print(r.status, len(r.read()) > 100)"`,
        ),
      );
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('200 True');
      expect(proxy.used().find((u) => u.host === 'pypi.org')?.bytes).toBeGreaterThan(1000);
    },
    180_000,
  );

  it('talking to the bound unix socket directly, past the forwarder, meets the same policy', async () => {
    const js = `const s=require('net').connect('/run/slopgate/egress.sock');let g='';s.on('connect',()=>s.write('CONNECT loopback.test:${port} HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'));s.on('data',d=>g+=d);s.on('close',()=>console.log(g.split('\\r\\n')[0]));s.on('error',e=>console.log(e.code))`;
    const o = opts('node probe.js; ls -A /run/slopgate');
    writeFileSync(join(o.cwd, 'probe.js'), js);
    const r = await runSandboxed(o);
    expect(r.stdout).toBe('HTTP/1.1 403 Forbidden\negress-forwarder.cjs\negress.sock\nnode\n');
    expect(hits).toEqual([]);
  });

  it.skipIf(!hasToolchain('python3'))(
    "a test's own server on the sandbox's loopback is reached directly, not through the proxy",
    async () => {
      const py = [
        'import http.server, threading, urllib.request',
        'srv = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)',
        'threading.Thread(target=srv.serve_forever, daemon=True).start()',
        'print(urllib.request.urlopen("http://127.0.0.1:%d/" % srv.server_port, timeout=30).status)',
        'print(urllib.request.urlopen("http://localhost:%d/" % srv.server_port, timeout=30).status)',
      ].join('\n');
      const o = opts('python3 local.py 2>&1');
      writeFileSync(join(o.cwd, 'local.py'), py);
      const r = await runSandboxed(o);
      expect(r.stdout.trim().split('\n').slice(-2)).toEqual(['200', '200']);
    },
  );

  it('without egress the same command has no way out at all', async () => {
    const o = opts('node probe.js');
    delete o.egress;
    writeFileSync(join(o.cwd, 'probe.js'), probeScript(port));
    const r = await runSandboxed(o);
    expect(r.isolation.network).toBe('isolated');
    const out = JSON.parse(r.stdout) as Record<string, string>;
    expect(out.direct).toBe('ECONNREFUSED');
    expect(out.viaIp).toBe('ECONNREFUSED');
    expect(hits).toEqual([]);
  });
});
