import { startEgressProxy, egressOff, registryHosts, registryPorts } from '../../sandbox/index.js';
import type { EgressPort } from '../../core/ports.js';

/** The proxy installs go through: the package registries and the operator's own registry settings; none when the operator turned egress off. */
export async function installEgress(env: NodeJS.ProcessEnv = process.env): Promise<EgressPort | null> {
  if (egressOff(env)) return null;
  return startEgressProxy({ hosts: registryHosts(env), ports: registryPorts(env) });
}
