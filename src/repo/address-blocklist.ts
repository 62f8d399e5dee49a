import { BlockList, isIP } from 'node:net';

/**
 * Addresses a PR must never make slopgate fetch (SSRF): loopback, private, link-local, CGNAT,
 * unspecified, multicast/reserved and the IPv6 equivalents (incl. IPv4-mapped forms).
 */
function defaultBlockList(): BlockList {
  const list = new BlockList();
  const v4: [string, number][] = [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ];
  for (const [net, prefix] of v4) list.addSubnet(net, prefix, 'ipv4');
  const v6: [string, number][] = [
    ['::', 128],
    ['::1', 128],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
    ['64:ff9b::', 96],
  ];
  for (const [net, prefix] of v6) list.addSubnet(net, prefix, 'ipv6');
  return list;
}

const BLOCKED = defaultBlockList();

/** True for addresses in the default block list; `::ffff:10.0.0.1` is judged as 10.0.0.1. */
export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped ? mapped[1]! : address.replace(/^\[|\]$/g, '');
  const family = isIP(ip);
  if (family === 0) return true; // not an address: refuse rather than guess
  return BLOCKED.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/** Host names that only mean something inside a network (never looked up). */
export function isInternalHostname(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || /\.(localhost|local|internal|intranet|lan|home\.arpa|corp)$/.test(h) || !h.includes('.');
}
