import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { g14 } from '../../src/guards/g14-dead-links/index.js';
import { HttpLinkChecker, type Resolve } from '../../src/repo/link-checker.js';
import { isBlockedAddress } from '../../src/repo/address-blocklist.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo } from '../helpers/git-repo.js';

// A local server stands in for the internet: these tests never leave the machine.
let server: Server;
let port = 0;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.url === '/ok') return res.writeHead(200).end();
    if (req.url === '/gone') return res.writeHead(404).end();
    if (req.url === '/removed') return res.writeHead(410).end();
    if (req.url === '/busy') return res.writeHead(503).end();
    if (req.url === '/forbidden') return res.writeHead(403).end();
    if (req.url === '/moved') return res.writeHead(301, { location: '/gone' }).end();
    if (req.url === '/no-head') return req.method === 'HEAD' ? res.writeHead(405).end() : res.writeHead(200).end('body');
    if (req.url === '/slow') return; // never answers: the checker must time out
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Fake DNS: *.test names point at the local server; nxdomain.test does not exist; private.test is internal. */
const resolve: Resolve = async (host) => {
  if (host === 'nxdomain.test') throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  if (host === 'dns-down.test') throw Object.assign(new Error('timeout'), { code: 'ETIMEOUT' });
  if (host === 'private.test') return ['10.1.2.3'];
  return ['127.0.0.1'];
};

/** The default SSRF block list, except loopback so the test server is reachable. */
const allowLoopback = (address: string) => address !== '127.0.0.1' && isBlockedAddress(address);

function checker(isBlocked = allowLoopback) {
  return new HttpLinkChecker({ timeoutMs: 300, concurrency: 2, resolve, isBlocked });
}

async function runOnline(readme: string, linkChecker = checker()) {
  const repo = prRepo({ 'README.md': '# P\n' }, { 'README.md': `# P\n\n${readme}\n` });
  const report = await gate(repo, [g14], { config: { links: { online: true } }, services: { linkChecker } });
  return { findings: findingsOf(report, 'G14'), links: report.sections.links as Record<string, number | string> };
}

describe('G14 online mode (local server, injected DNS)', () => {
  it('flags 404, 410 and NXDOMAIN; passes 200; falls back to GET when HEAD is refused', async () => {
    const u = (host: string, path: string) => `http://${host}:${port}${path}`;
    const readme = [u('a.test', '/ok'), u('a.test', '/gone'), u('a.test', '/removed'), u('a.test', '/no-head'), u('nxdomain.test', '/x')]
      .map((x) => `- <${x}>`)
      .join('\n');
    const { findings, links } = await runOnline(readme);
    expect(findings.map((f) => f.evidence?.url).sort()).toEqual(
      [u('a.test', '/gone'), u('a.test', '/removed'), u('nxdomain.test', '/x')].sort(),
    );
    expect(findings.find((f) => String(f.evidence?.url).includes('nxdomain'))!.message).toContain('NXDOMAIN');
    expect(hits).toContain('GET /no-head');
    expect(links).toMatchObject({ mode: 'online', external: 5, ok: 2, dead: 3 });
  });

  it('never calls a timeout, a 5xx, a 403 or a DNS failure dead', async () => {
    const readme =
      ['/slow', '/busy', '/forbidden'].map((p) => `[x](http://a.test:${port}${p})`).join(' ') + ` http://dns-down.test:${port}/ok`;
    const { findings, links } = await runOnline(readme);
    expect(findings).toEqual([]);
    expect(links).toMatchObject({ unknown: 4, dead: 0 });
  });

  it('follows a redirect to a 404 and reports the link dead', async () => {
    const { findings } = await runOnline(`[moved](http://b.test:${port}/moved)`);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toContain('HTTP 404');
  });

  it('never fetches loopback or private addresses with the default block list (SSRF)', async () => {
    hits.length = 0;
    const strict = new HttpLinkChecker({ timeoutMs: 300, concurrency: 2, resolve });
    const readme = `[a](http://127.0.0.1:${port}/gone) [b](http://a.test:${port}/gone) [c](http://private.test/gone) [d](http://localhost:${port}/gone) [e](http://[::1]:${port}/gone)`;
    const { findings, links } = await runOnline(readme, strict);
    expect(hits).toEqual([]);
    expect(findings).toEqual([]);
    expect(links).toMatchObject({ skipped: 5 });
  });

  it('checks each URL once per checker (results are cached)', async () => {
    hits.length = 0;
    const shared = checker();
    const url = `http://c.test:${port}/ok`;
    await runOnline(`[one](${url}) and again ${url}`, shared);
    await runOnline(`[two](${url})`, shared);
    expect(hits.filter((h) => h === 'HEAD /ok')).toHaveLength(1);
  });
});

describe('address block list', () => {
  it('blocks private, loopback, link-local and mapped addresses but not public ones', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.8',
      '172.20.1.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fd00::1',
      '::ffff:10.0.0.1',
      '0.0.0.0',
    ]) {
      expect(isBlockedAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '172.32.0.1', '2606:4700::1111']) expect(isBlockedAddress(a), a).toBe(false);
  });
});
