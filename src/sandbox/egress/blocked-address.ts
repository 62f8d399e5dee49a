import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * Which addresses the egress proxy never connects to, whatever name led there: everything that is not
 * the public internet (loopback, unspecified, link-local, private, CGNAT, unique-local, multicast,
 * reserved) and every address of this machine's own interfaces. IPv6 forms that carry an IPv4 address
 * (IPv4-mapped, NAT64, 6to4) are judged by that IPv4 address.
 */

type Range = [network: string, prefix: number, what: string];

const V4: Range[] = [
  ['0.0.0.0', 8, 'an unspecified or "this network" address'],
  ['10.0.0.0', 8, 'a private-network address'],
  ['100.64.0.0', 10, 'a carrier-grade NAT address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address'],
  ['172.16.0.0', 12, 'a private-network address'],
  ['192.0.0.0', 24, 'an IETF protocol address'],
  ['192.168.0.0', 16, 'a private-network address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved or broadcast address'],
];

const V6: Range[] = [
  ['::', 96, 'an unspecified, loopback or IPv4-compatible address'],
  ['64:ff9b:1::', 48, 'a local NAT64 address'],
  ['100::', 64, 'a discard-only address'],
  ['2001::', 32, 'a Teredo tunnel address'],
  ['fc00::', 7, 'a unique-local (private) address'],
  ['fe80::', 10, 'a link-local address'],
  ['fec0::', 10, 'a site-local address'],
  ['ff00::', 8, 'a multicast address'],
];

/** The description of the first range `address` falls in, or null. */
function classifier(ranges: Range[], family: 'ipv4' | 'ipv6'): (address: string) => string | null {
  const lists = ranges.map(([net, prefix, what]) => {
    const list = new BlockList();
    list.addSubnet(net, prefix, family);
    return { list, what };
  });
  return (address) => lists.find((l) => l.list.check(address, family))?.what ?? null;
}

const BLOCKED_V4 = classifier(V4, 'ipv4');
const BLOCKED_V6 = classifier(V6, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (which must be valid: net.isIP() === 6), without a zone. */
function groupsOf(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

const v4Of = (hi: number, lo: number): string => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/** The IPv4 address an IPv6 address stands for (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16), or null. */
function embeddedV4(address: string): string | null {
  const g = groupsOf(address);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return v4Of(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return v4Of(g[6]!, g[7]!);
  if (g[0] === 0x2002) return v4Of(g[1]!, g[2]!);
  return null;
}

/** Every address of this machine's own interfaces (read at each call: interfaces come and go). */
export function ownAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) out.add(canonical(i.address));
  return out;
}

function canonical(address: string): string {
  const plain = address.replace(/%.*$/, '').toLowerCase();
  return isIP(plain) === 6 ? groupsOf(plain).join(':') : plain;
}

/**
 * Why the proxy must not connect to `address` (e.g. "a loopback address"), or null when it is a
 * public address. Anything that is not an IP address is refused too.
 */
export function blockedAddress(address: string, own: Set<string> = ownAddresses()): string | null {
  const plain = address.replace(/^\[|\]$/g, '');
  const family = isIP(plain.replace(/%.*$/, ''));
  if (family === 0) return 'not an IP address';
  if (own.has(canonical(plain))) return 'an address of the machine slopgate runs on';
  if (family === 4) return BLOCKED_V4(plain);
  const unzoned = plain.replace(/%.*$/, '');
  const v4 = embeddedV4(unzoned);
  if (v4 !== null) {
    const why = blockedAddress(v4, own);
    return why === null ? null : `${why} (in IPv6 form)`;
  }
  return BLOCKED_V6(unzoned);
}
