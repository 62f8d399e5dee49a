import { promises as dns } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { errorMessage } from '../core/errors.js';
import { evictOldest } from '../core/evict-oldest.js';
import type { LinkChecker, LinkVerdict } from '../core/ports.js';
import { isBlockedAddress, isInternalHostname } from './address-blocklist.js';

/** Resolves a host name to its addresses; rejects with `code: 'ENOTFOUND'` when the name does not exist. */
export type Resolve = (host: string) => Promise<string[]>;

export interface LinkCheckerOptions {
  timeoutMs: number;
  concurrency: number;
  /** DNS; defaults to a c-ares resolver (A and AAAA) with the same timeout. */
  resolve?: Resolve;
  /** Address filter (SSRF); defaults to {@link isBlockedAddress}. Tests inject one that allows 127.0.0.1. */
  isBlocked?: (address: string) => boolean;
  /** Host-name filter applied before DNS; defaults to {@link isInternalHostname}. */
  isInternalHost?: (host: string) => boolean;
  /** Redirects followed (each hop is checked against the block list again). Default 5. */
  maxRedirects?: number;
}

function dnsResolver(timeoutMs: number): Resolve {
  return async (host) => {
    const resolver = new dns.Resolver({ timeout: timeoutMs, tries: 1 });
    const results = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
    const addresses = results.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
    if (addresses.length) return addresses;
    // NXDOMAIN only when both lookups say the name does not exist (not on timeouts or refused servers)
    const codes = results.map((r) => (r.status === 'rejected' ? (r.reason as { code?: string }).code : 'ENODATA'));
    // cast: Node-style error: callers read .code
    const err = new Error(`cannot resolve ${host} (${codes.join(', ')})`) as Error & { code: string };
    err.code = codes.every((c) => c === 'ENOTFOUND') ? 'ENOTFOUND' : (codes[0] ?? 'EUNKNOWN');
    throw err;
  };
}

/** A tiny semaphore: at most `limit` tasks run at once. */
function limiter(limit: number) {
  let active = 0;
  const queue: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      queue.shift()?.();
    }
  };
}

const MAX_CACHED = 10_000;

interface HttpAnswer {
  status: number;
  location?: string;
}

export class HttpLinkChecker implements LinkChecker {
  private readonly cache = new Map<string, Promise<LinkVerdict>>();
  private readonly limit: <T>(task: () => Promise<T>) => Promise<T>;
  private readonly resolve: Resolve;
  private readonly isBlocked: (address: string) => boolean;
  private readonly isInternalHost: (host: string) => boolean;

  constructor(private readonly opts: LinkCheckerOptions) {
    this.limit = limiter(Math.max(1, opts.concurrency));
    this.resolve = opts.resolve ?? dnsResolver(opts.timeoutMs);
    this.isBlocked = opts.isBlocked ?? isBlockedAddress;
    this.isInternalHost = opts.isInternalHost ?? isInternalHostname;
  }

  /** Checks a URL once; later calls for the same URL share the first answer. */
  check(url: string): Promise<LinkVerdict> {
    let verdict = this.cache.get(url);
    if (!verdict) {
      verdict = this.limit(() => this.checkUncached(url)).catch((err: unknown) => ({
        status: 'unknown' as const,
        reason: `check failed: ${errorMessage(err)}`,
      }));
      evictOldest(this.cache, MAX_CACHED - 1);
      this.cache.set(url, verdict);
    }
    return verdict;
  }

  private async checkUncached(url: string): Promise<LinkVerdict> {
    let current = url;
    for (let hop = 0; hop <= (this.opts.maxRedirects ?? 5); hop++) {
      let parsed: URL;
      try {
        parsed = new URL(current);
      } catch {
        return { status: 'unknown', reason: 'not a valid URL' };
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { status: 'skipped', reason: `${parsed.protocol} URL` };
      const pinned = await this.pinAddress(parsed.hostname.replace(/^\[|\]$/g, ''));
      if ('status' in pinned) return pinned;
      let answer = await this.request(parsed, pinned.address, 'HEAD');
      if (answer.status === 405 || answer.status === 501) answer = await this.request(parsed, pinned.address, 'GET');
      if (answer.status >= 300 && answer.status < 400 && answer.location) {
        current = new URL(answer.location, parsed).toString();
        continue;
      }
      if (answer.status === 404 || answer.status === 410)
        return { status: 'dead', reason: `HTTP ${answer.status}`, httpStatus: answer.status };
      if (answer.status > 0 && answer.status < 400) return { status: 'ok', reason: `HTTP ${answer.status}`, httpStatus: answer.status };
      return { status: 'unknown', reason: answer.status ? `HTTP ${answer.status}` : 'no answer', httpStatus: answer.status };
    }
    return { status: 'unknown', reason: 'too many redirects' };
  }

  /** The address to connect to: resolved once and checked, so a second lookup cannot point elsewhere. */
  private async pinAddress(host: string): Promise<{ address: string } | LinkVerdict> {
    if (isIP(host)) return this.isBlocked(host) ? { status: 'skipped', reason: 'private or local address' } : { address: host };
    if (this.isInternalHost(host)) return { status: 'skipped', reason: 'internal host name' };
    let addresses: string[];
    try {
      addresses = await this.resolve(host);
    } catch (err) {
      // cast: I/O boundary: a DNS error carries an errno-style code
      const code = (err as { code?: string }).code;
      if (code === 'ENOTFOUND') return { status: 'dead', reason: `host ${host} does not exist (NXDOMAIN)` };
      return { status: 'unknown', reason: `DNS lookup failed (${code ?? 'error'})` };
    }
    if (addresses.length === 0) return { status: 'unknown', reason: 'no DNS records' };
    // one private address is enough to refuse: the server could pick it
    if (addresses.some((a) => this.isBlocked(a))) return { status: 'skipped', reason: 'resolves to a private or local address' };
    return { address: addresses[0]! };
  }

  private request(url: URL, address: string, method: 'HEAD' | 'GET'): Promise<HttpAnswer> {
    const family = isIP(address);
    const lookup: LookupFunction = (_host, options, callback) => {
      // cast: library typing gap: net.LookupFunction overloads its callback on options.all
      if ((options as { all?: boolean }).all)
        (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      const req = client.request(
        url,
        { method, lookup, timeout: this.opts.timeoutMs, headers: { 'user-agent': 'slopgate-link-check/1.0', accept: '*/*' } },
        (res) => {
          const location = res.headers.location;
          resolve({ status: res.statusCode ?? 0, ...(location ? { location } : {}) });
          res.destroy(); // status is all we need; never download bodies
        },
      );
      // idle timeout, plus a hard cap for servers that drip bytes
      req.on('timeout', () => req.destroy(new Error('timeout')));
      const hard = setTimeout(() => req.destroy(new Error('timeout')), this.opts.timeoutMs * 2);
      req.on('close', () => clearTimeout(hard));
      req.on('error', () => resolve({ status: 0 }));
      req.end();
    });
  }
}

const shared = new Map<string, HttpLinkChecker>();

/** The process-wide checker for the given settings (so results are cached across runs of one process). */
export function sharedLinkChecker(opts: Pick<LinkCheckerOptions, 'timeoutMs' | 'concurrency'>): LinkChecker {
  const key = `${opts.timeoutMs}/${opts.concurrency}`;
  let checker = shared.get(key);
  if (!checker) {
    checker = new HttpLinkChecker(opts);
    shared.set(key, checker);
  }
  return checker;
}
