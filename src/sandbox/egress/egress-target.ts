import { isIP } from 'node:net';

/**
 * Where a sandboxed client asks the egress proxy to go, read from a `CONNECT host:port` line or an
 * absolute `http://` URL, and whether the allow-list names it. Host names are normalised the way the
 * WHATWG URL parser does (lower case, IDNA, and numeric IPv4 forms such as 2130706433 or 0x7f000001
 * become dotted addresses, so they are caught as IP literals); one trailing dot is dropped.
 */

export interface EgressTarget {
  /** Normalised host name (lower case, no trailing dot). */
  host: string;
  port: number;
}

/** The host for records and messages: printable, short, never a header or a control character. */
export function displayHost(raw: string): string {
  const clean = raw.replace(/[^A-Za-z0-9._:[\]*-]/g, '?');
  return clean.length > 100 ? `${clean.slice(0, 100)}…` : clean;
}

const NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** A host name, or why it is not one the proxy will look up. */
export function normalizeHost(raw: string): { host: string } | { refused: string } {
  const bare = raw.replace(/^\[|\]$/g, '');
  if (raw.startsWith('[') || isIP(bare.replace(/%.*$/, '')) !== 0) return { refused: ipLiteral };
  if (/[\s/\\@?#%:[\]]/.test(raw) || raw === '') return { refused: 'not a valid host name' };
  let parsed: string;
  try {
    parsed = new URL(`http://${raw}/`).hostname;
  } catch {
    return { refused: 'not a valid host name' };
  }
  if (parsed.startsWith('[') || isIP(parsed) !== 0) return { refused: ipLiteral };
  const host = parsed.endsWith('.') ? parsed.slice(0, -1) : parsed;
  if (!NAME.test(host)) return { refused: 'not a valid host name' };
  return { host };
}

const ipLiteral = 'an IP address, not a host name (the proxy only connects to host names on its allow-list)';

/** A target the proxy will not consider, with why (host as displayed, port 0 when there was none). */
export interface BadTarget {
  refused: string;
  host: string;
  port: number;
}

export type TargetOrRefusal = { target: EgressTarget } | BadTarget;

function withPort(raw: string, portText: string, host: string): TargetOrRefusal {
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port < 1 || port > 65_535) return { refused: 'not a valid port', host: displayHost(raw), port: 0 };
  const name = normalizeHost(host);
  if ('refused' in name) return { refused: name.refused, host: displayHost(raw), port };
  return { target: { host: name.host, port } };
}

/** The target of `CONNECT host:port` (req.url of node:http's 'connect' event). */
export function connectTarget(authority: string): TargetOrRefusal {
  const m = /^(\[[^\]]*\]|[^:]*):([^:]*)$/.exec(authority);
  if (!m) return { refused: 'CONNECT needs host:port', host: displayHost(authority), port: 0 };
  return withPort(m[1]!, m[2]!, m[1]!);
}

/** The target and path of a plain-HTTP proxy request (`GET http://host/path`), checked against its Host header. */
export function httpTarget(url: string, hostHeader: string | undefined): { target: EgressTarget; path: string } | BadTarget {
  if (!/^http:\/\//i.test(url)) {
    const why = /^https:\/\//i.test(url) ? 'https URLs go through CONNECT' : 'only absolute http:// URLs are proxied';
    return { refused: why, host: displayHost(url.slice(0, 100)), port: 0 };
  }
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { refused: 'not a valid URL', host: displayHost(url.slice(0, 100)), port: 0 };
  }
  // The authority as written, before the URL parser normalised it (2130706433 → 127.0.0.1).
  const rawAuthority = /^http:\/\/([^/?#]*)/i.exec(url)?.[1] ?? '';
  if (u.username || u.password || rawAuthority.includes('@'))
    return { refused: 'credentials in the URL', host: displayHost(u.hostname), port: 0 };
  const result = withPort(u.hostname, u.port || '80', u.hostname);
  if ('refused' in result) return result;
  if (hostHeader !== undefined && !sameAuthority(hostHeader, u.host)) {
    return { refused: 'the Host header names another host than the URL', host: result.target.host, port: result.target.port };
  }
  return { ...result, path: `${u.pathname}${u.search}` };
}

function sameAuthority(header: string, urlHost: string): boolean {
  try {
    const norm = (h: string) => {
      const u = new URL(`http://${h}/`);
      return `${u.hostname.replace(/\.$/, '')}:${u.port || '80'}`;
    };
    return !/[\s/\\@?#]/.test(header) && norm(header) === norm(urlHost);
  } catch {
    return false;
  }
}

/** Whether the allow-list names `host`: an exact name, or `*.example.org` for any name below example.org. */
export function hostAllowed(host: string, patterns: string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return patterns.some((raw) => {
    const p = raw.trim().toLowerCase().replace(/\.$/, '');
    if (p.startsWith('*.')) return h.endsWith(p.slice(1)) && h.length > p.length - 1;
    return p !== '' && h === p;
  });
}
