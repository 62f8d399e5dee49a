import { lookup as dnsLookup } from 'node:dns/promises';
import { chmod } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Duplex, Readable, Writable } from 'node:stream';
import { blockedAddress, ownAddresses } from './blocked-address.js';
import { connectTarget, hostAllowed, httpTarget, type EgressTarget } from './egress-target.js';
import type { EgressPolicy, EgressProxy, EgressRefusal, EgressTestHooks } from './egress-policy.js';
import { errorCode, GiB, plainText, rawResponse, sizeText } from './proxy-replies.js';
import { makeScratchDir } from '../../core/scratch.js';

/**
 * The egress proxy of the test sandbox: the only way sandboxed commands (installers, `tests.setup`)
 * reach the network. It listens on a unix socket in a private directory; inside the sandbox a small
 * forwarder (sandbox-egress.ts) turns 127.0.0.1:3128 into that socket. It speaks just enough HTTP
 * proxy, through node:http, for package managers: `CONNECT host:port` tunnels for https and
 * absolute-URI requests (`GET http://host/path`) for plain http.
 *
 * Every request is decided before anything is sent anywhere: the host must be a name (never an IP
 * literal) on the allow-list, the port allowed, and every address the name resolves to public (see
 * blocked-address.ts). It then connects to one of those vetted addresses itself, so a second lookup
 * cannot point it elsewhere (DNS rebinding). Bytes per connection and in total, idle time and the
 * number of connections are bounded. Request headers are never logged or echoed; plain requests lose
 * their Proxy-Authorization and hop-by-hop headers.
 */

/** Distinct refusals and hosts kept for the report; more are counted. */
const MAX_RECORDS = 200;
const MAX_HEADER_BYTES = 16 * 1024;
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'expect',
]);

const defaultLookup = async (host: string): Promise<string[]> =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

const isLoopback = (address: string): boolean => address.startsWith('127.') || address === '::1' || /^::ffff:127\./i.test(address);

export async function startEgressProxy(policy: EgressPolicy, hooks: EgressTestHooks = {}): Promise<EgressProxy> {
  const ports = policy.ports ?? [443, 80];
  const perConnection = policy.maxBytesPerConnection ?? 2 * GiB;
  const totalLimit = policy.maxBytesTotal ?? 8 * GiB;
  const idleMs = policy.idleMs ?? 60_000;
  const maxConnections = policy.maxConnections ?? 64;
  const lookup = policy.lookup ?? defaultLookup;

  const refused = new Map<string, EgressRefusal>();
  let unlistedRefusals = 0;
  const usedBytes = new Map<string, number>();
  let unlistedBytes = 0;
  let totalBytes = 0;
  const sockets = new Set<Duplex>();
  let clients = 0;
  let upstreams = 0;
  let closed = false;
  /** The client went away, or the proxy is closing (read after every await). */
  const gone = (s: Duplex | ServerResponse): boolean => s.destroyed || closed;

  const record = (host: string, port: number, reason: string): void => {
    const key = `${host}:${port} ${reason}`;
    if (refused.has(key)) return;
    if (refused.size < MAX_RECORDS) refused.set(key, { host, port, reason });
    else unlistedRefusals++;
  };
  const track = <T extends Duplex>(s: T): T => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
    s.on('error', () => undefined); // every error ends in 'close'; never crash slopgate over a peer
    return s;
  };

  /** Why `target` is refused, or the addresses it may be reached at. Sends nothing anywhere but DNS. */
  async function vet(target: EgressTarget): Promise<{ addresses: string[] } | { refused: string }> {
    if (!ports.includes(target.port)) return { refused: `port ${target.port} is not allowed (allowed: ${ports.join(', ')})` };
    if (!hostAllowed(target.host, policy.hosts)) return { refused: 'not on the allow-list of registry hosts' };
    let addresses: string[];
    try {
      addresses = await lookup(target.host);
    } catch (err) {
      return { refused: `does not resolve (${errorCode(err)})` };
    }
    if (addresses.length === 0) return { refused: 'does not resolve' };
    const own = ownAddresses();
    for (const address of addresses) {
      if (hooks.allowLoopback && isLoopback(address)) continue;
      const why = blockedAddress(address, own);
      if (why !== null) return { refused: `resolves to ${why}` };
    }
    return { addresses };
  }

  /** Connects to the first vetted address that answers (never by name). */
  function dial(addresses: string[], port: number): Promise<Socket> {
    return new Promise((resolve, reject) => {
      let next = 0;
      let last = 'no address';
      const attempt = (): void => {
        const address = addresses[next++];
        if (address === undefined) {
          reject(new Error(last));
          return;
        }
        const family = isIP(address);
        const socket = hooks.connect ? hooks.connect(address, port) : netConnect({ host: address, port, family });
        socket.on('error', () => undefined); // a late error of an abandoned attempt must not crash slopgate
        socket.setTimeout(idleMs);
        let failed = false;
        const fail = (why: string): void => {
          if (failed) return;
          failed = true;
          socket.removeAllListeners('connect');
          socket.destroy();
          last = why;
          attempt();
        };
        const onError = (err: Error): void => fail(errorCode(err));
        socket.once('error', onError);
        socket.once('timeout', () => fail('ETIMEDOUT'));
        socket.once('connect', () => {
          socket.removeListener('error', onError);
          socket.removeAllListeners('timeout');
          socket.setTimeout(0);
          resolve(track(socket));
        });
      };
      attempt();
    });
  }

  /** Counts the bytes of one connection; returns how many of `n` more bytes may pass. */
  function meter(target: EgressTarget, onBound: (reason: string) => void): (n: number) => number {
    let used = 0;
    let over = false;
    return (n) => {
      const allowed = Math.max(0, Math.min(n, perConnection - used, totalLimit - totalBytes));
      used += allowed;
      totalBytes += allowed;
      if (usedBytes.has(target.host) || usedBytes.size < MAX_RECORDS)
        usedBytes.set(target.host, (usedBytes.get(target.host) ?? 0) + allowed);
      else unlistedBytes += allowed;
      if (allowed < n && !over) {
        over = true;
        // After the caller has written what still fits.
        process.nextTick(
          onBound,
          used >= perConnection
            ? `closed: the connection reached ${sizeText(perConnection)} (the per-connection limit)`
            : `closed: the sandbox's connections reached ${sizeText(totalLimit)} together (the total limit)`,
        );
      }
      return allowed;
    };
  }

  /** Copies `from` into `to` through the meter, with back-pressure. */
  function pump(from: Readable, to: Writable, take: (n: number) => number): void {
    from.on('data', (chunk: Buffer) => {
      const n = take(chunk.length);
      if (n > 0 && !to.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
        from.pause();
        to.once('drain', () => from.resume());
      }
    });
  }

  /** Closes the connection when it has been idle for idleMs, and records that. */
  function idleBound(socket: Socket, target: EgressTarget, close: () => void): void {
    socket.setTimeout(idleMs, () => {
      record(
        target.host,
        target.port,
        `closed: no traffic for ${idleMs % 1000 === 0 ? `${idleMs / 1000} s` : `${idleMs} ms`} (the idle limit)`,
      );
      close();
    });
  }

  function admitUpstream(target: EgressTarget): boolean {
    if (upstreams < maxConnections) return true;
    record(target.host, target.port, `refused: ${maxConnections} connections are open already (the connection limit)`);
    return false;
  }

  async function onConnect(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    track(client);
    const parsed = connectTarget(req.url ?? '');
    if ('refused' in parsed) {
      record(parsed.host, parsed.port, parsed.refused);
      rawResponse(client, '403 Forbidden', `slopgate egress proxy: refused ${parsed.host}:${parsed.port}: ${parsed.refused}`);
      return;
    }
    const { target } = parsed;
    // A tunnel to port 80 would carry plain http with any Host header; plain http goes as
    // `GET http://…` requests, whose Host header the proxy checks.
    const decision = target.port === 80 ? { refused: 'CONNECT to port 80 (send plain http as http:// requests)' } : await vet(target);
    if ('refused' in decision) {
      record(target.host, target.port, decision.refused);
      rawResponse(client, '403 Forbidden', `slopgate egress proxy: refused ${target.host}:${target.port}: ${decision.refused}`);
      return;
    }
    if (gone(client)) return;
    if (!admitUpstream(target)) {
      rawResponse(client, '403 Forbidden', `slopgate egress proxy: refused ${target.host}:${target.port}: too many connections at once`);
      return;
    }
    upstreams++;
    let upstream: Socket;
    try {
      upstream = await dial(decision.addresses, target.port);
    } catch (err) {
      upstreams--;
      const why = `unreachable (${errorCode(err)})`;
      record(target.host, target.port, why);
      rawResponse(client, '502 Bad Gateway', `slopgate egress proxy: ${target.host}:${target.port} is ${why}`);
      return;
    }
    upstream.once('close', () => upstreams--);
    const closeBoth = (): void => {
      client.destroy();
      upstream.destroy();
    };
    if (gone(client)) {
      closeBoth();
      return;
    }
    const take = meter(target, (reason) => {
      record(target.host, target.port, reason);
      // What fit under the bound still reaches the client; then the tunnel ends.
      upstream.destroy();
      client.end();
      client.once('finish', () => client.destroy());
    });
    idleBound(upstream, target, closeBoth);
    // cast: node:http hands the CONNECT socket over as the net.Socket it is, typed as a Duplex
    idleBound(client as Socket, target, closeBoth);
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) {
      const n = take(head.length);
      if (n > 0) upstream.write(head.subarray(0, n));
    }
    pump(client, upstream, take);
    pump(upstream, client, take);
    const endOther = (other: Duplex) => () => {
      if (!other.destroyed && !other.writableEnded) other.end();
    };
    client.once('end', endOther(upstream));
    upstream.once('end', endOther(client));
    client.once('close', endOther(upstream));
    upstream.once('close', endOther(client));
    client.once('error', closeBoth);
    upstream.once('error', closeBoth);
  }

  function refuseHttp(res: ServerResponse, host: string, port: number, reason: string, status = 403): void {
    record(host, port, reason);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const body = `${plainText(`slopgate egress proxy: refused ${host}:${port}: ${reason}`)}\n`;
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
    res.end(body);
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parsed = httpTarget(req.url ?? '', req.headers.host);
    if ('refused' in parsed) {
      refuseHttp(res, parsed.host, parsed.port, parsed.refused);
      return;
    }
    const { target, path } = parsed;
    const decision = await vet(target);
    if ('refused' in decision) {
      refuseHttp(res, target.host, target.port, decision.refused);
      return;
    }
    if (gone(res)) return;
    if (!admitUpstream(target)) {
      refuseHttp(res, target.host, target.port, 'too many connections at once');
      return;
    }
    upstreams++;
    let socket: Socket;
    try {
      socket = await dial(decision.addresses, target.port);
    } catch (err) {
      upstreams--;
      refuseHttp(res, target.host, target.port, `unreachable (${errorCode(err)})`, 502);
      return;
    }
    socket.once('close', () => upstreams--);
    if (gone(res)) {
      socket.destroy();
      return;
    }
    const headers: OutgoingHttpHeaders = {};
    const dropped = new Set(
      (req.headers.connection ?? '')
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    );
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!.toLowerCase();
      if (HOP_BY_HOP.has(name) || dropped.has(name)) continue;
      const prev = headers[name];
      const value = req.rawHeaders[i + 1]!;
      headers[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [String(prev), value];
    }
    headers.host = target.port === 80 ? target.host : `${target.host}:${target.port}`;
    const take = meter(target, (reason) => {
      record(target.host, target.port, reason);
      socket.destroy();
      res.destroy();
    });
    idleBound(socket, target, () => {
      socket.destroy();
      res.destroy();
    });
    let upstream;
    try {
      upstream = httpRequest({ createConnection: () => socket, method: req.method ?? 'GET', path, headers });
    } catch {
      socket.destroy();
      refuseHttp(res, target.host, target.port, 'a request header node:http will not send');
      return;
    }
    upstream.on('error', (err) => {
      socket.destroy();
      if (!res.headersSent) refuseHttp(res, target.host, target.port, `unreachable (${errorCode(err)})`, 502);
      else res.destroy();
    });
    upstream.on('response', (answer) => {
      const out: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
      try {
        res.writeHead(answer.statusCode ?? 502, out);
      } catch {
        socket.destroy();
        res.destroy();
        return;
      }
      pump(answer, res, take);
      answer.once('end', () => res.end());
    });
    res.once('close', () => {
      if (!res.writableFinished) socket.destroy();
    });
    pump(req, upstream, take);
    req.once('end', () => upstream.end());
  }

  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, requestTimeout: 0, headersTimeout: idleMs, keepAliveTimeout: 5000 });
  server.setTimeout(idleMs);
  server.on('connection', (socket: Socket) => {
    track(socket);
    if (clients >= maxConnections || closed) {
      record('*', 0, `refused: ${maxConnections} connections are open already (the connection limit)`);
      socket.destroy();
      return;
    }
    clients++;
    socket.once('close', () => clients--);
  });
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    onConnect(req, client, head).catch(() => client.destroy());
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    onRequest(req, res).catch(() => res.destroy());
  });
  server.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
    record('*', 0, 'an Upgrade request (only CONNECT and plain http requests are proxied)');
    rawResponse(socket, '403 Forbidden', 'slopgate egress proxy: Upgrade requests are not proxied');
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const big = err.code === 'HPE_HEADER_OVERFLOW';
    record('*', 0, big ? `request headers over ${MAX_HEADER_BYTES / 1024} KiB` : 'a malformed HTTP request');
    if (socket.writable)
      rawResponse(socket, big ? '431 Request Header Fields Too Large' : '400 Bad Request', 'slopgate egress proxy: bad request');
    else socket.destroy();
  });

  // A scratch folder (core/scratch.ts): an interrupted run's socket folder goes with the run.
  const scratch = await makeScratchDir('egress');
  const dir = scratch.path;
  await chmod(dir, 0o700);
  const socketPath = join(dir, 'egress.sock');
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    await chmod(socketPath, 0o600);
  } catch (err) {
    server.close();
    await scratch.remove();
    throw new Error(`the egress proxy cannot listen on ${socketPath}: ${errorCode(err)}`);
  }

  return {
    socketPath,
    refusals: () => [
      ...refused.values(),
      ...(unlistedRefusals ? [{ host: '*', port: 0, reason: `${unlistedRefusals} more refusals, not listed` }] : []),
    ],
    used: () => [...usedBytes].map(([host, bytes]) => ({ host, bytes })).concat(unlistedBytes ? [{ host: '*', bytes: unlistedBytes }] : []),
    async close() {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      await scratch.remove();
    },
  };
}
