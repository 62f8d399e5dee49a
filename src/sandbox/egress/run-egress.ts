import { startEgressProxy } from './egress-proxy.js';
import { type EgressProxy, type EgressRefusal } from './egress-policy.js';
import { egressOff, registryHosts, registryPorts } from './registry-hosts.js';

/**
 * The network of one gate run: with `tests.network`, one egress proxy for all its sandboxed
 * commands (base and head), limited to the registries; otherwise none. The allow-list comes from
 * slopgate's own environment only.
 */
export interface RunEgress {
  /** The proxy, when the run has network. */
  proxy: EgressProxy | null;
  /** Why the repository asked for network and gets none (the operator switched it off). */
  off?: string;
}

export async function startRunEgress(network: boolean, env: NodeJS.ProcessEnv = process.env): Promise<RunEgress> {
  if (!network) return { proxy: null };
  const off = egressOff(env);
  if (off) return { proxy: null, off };
  return { proxy: await startEgressProxy({ hosts: registryHosts(env), ports: registryPorts(env) }) };
}

/** One line per refusal, for the report: `evil.example:443: not on the allow-list of registry hosts`. */
export function refusalLines(refusals: EgressRefusal[]): string[] {
  return refusals.map((r) => (r.port ? `${r.host}:${r.port}: ${r.reason}` : `${r.host === '*' ? '' : `${r.host}: `}${r.reason}`));
}

/** The hosts the run reached, with what they carried: `pypi.org (1.2 MiB)`. */
export function usedLines(used: { host: string; bytes: number }[]): string[] {
  const size = (b: number) =>
    b >= 1024 * 1024 ? `${(b / 1024 / 1024).toFixed(1)} MiB` : b >= 1024 ? `${Math.round(b / 1024)} KiB` : `${b} bytes`;
  return used.map((u) => `${u.host === '*' ? 'other hosts' : u.host} (${size(u.bytes)})`);
}
