/**
 * The sandbox's front door: the one file of src/sandbox/ that other folders import. The sandbox runs
 * pull-request code in bubblewrap (its file system, seccomp filter, cgroup limits and environment), exports
 * the trees it runs on, and is that code's only network (egress/: the proxy to the registries).
 */
export { tailOf } from './capped-output.js';
export type { EgressRefusal } from './egress/egress-policy.js';
export { startEgressProxy } from './egress/egress-proxy.js';
export { egressOff, registryHosts, registryPorts } from './egress/registry-hosts.js';
export { refusalLines, startRunEgress, usedLines } from './egress/run-egress.js';
export { EGRESS_PORT, EGRESS_PROXY_URL } from './egress/sandbox-egress.js';
export { exportTree, exportTreeRepo } from './export-tree.js';
export { sandboxEnv } from './sandbox-env.js';
export { seedGoCache } from './sandbox-go-seed.js';
export { sandboxCapabilities, sandboxCapabilitiesAsync } from './sandbox-probe.js';
export { requireSandbox } from './sandbox-required.js';
export { type KilledBy, type SandboxIsolation, type SandboxResult, runSandboxed, sandboxRefusal } from './sandbox.js';
export { shq } from './shell-quote.js';
export type { SuiteLimits } from './suite-limits.js';
export { writeSandboxGitConfig } from './tree-repo.js';
