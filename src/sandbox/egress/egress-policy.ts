import type { Socket } from 'node:net';

/** What the egress proxy lets through (the policy), what it reports (refusals, hosts used), and the hooks its tests use. */

export interface EgressPolicy {
  /** Host names the sandbox may reach: exact names, or '*.example.org' for any subdomain. */
  hosts: string[];
  /** Allowed destination ports (default [443, 80]). */
  ports?: number[];
  /** Bytes one connection may carry in both directions together (default 2 GiB) and all connections together (default 8 GiB). */
  maxBytesPerConnection?: number;
  maxBytesTotal?: number;
  /** Idle timeout of a tunnel (default 60 s) and at most this many connections at once (default 64). */
  idleMs?: number;
  maxConnections?: number;
  /** Resolver (tests inject one that maps names to addresses; default node:dns lookup with all: true). */
  lookup?: (host: string) => Promise<string[]>;
}

export interface EgressRefusal {
  host: string;
  port: number;
  reason: string;
}

export interface EgressProxy {
  socketPath: string;
  /** Every refused attempt so far (deduplicated by host:port+reason), for the report. */
  refusals(): EgressRefusal[];
  /** Hosts actually connected to, with bytes. */
  used(): { host: string; bytes: number }[];
  close(): Promise<void>;
}

/**
 * Only for slopgate's own tests; nothing in config or the environment reaches these (the gate calls
 * {@link startEgressProxy} with the policy alone).
 */
export interface EgressTestHooks {
  /** Let loopback addresses (127/8, ::1) through, to reach a listener the test started itself. */
  allowLoopback?: boolean;
  /** Used instead of net.connect, so a test can see that no connection was attempted. */
  connect?: (address: string, port: number) => Socket;
}
