import type { EgressProxy } from './egress/egress-policy.js';

/** The limits of one sandboxed run: time, memory, processes, disk, network, and whether the sandbox may be missing. */
export interface SuiteLimits {
  setup?: string;
  /** tests.network: the commands reach the registries through `egress` (when the gate started a proxy). */
  network: boolean;
  /** The run's egress proxy (the gate starts one for tests.network); without it the commands have no network. */
  egress?: Pick<EgressProxy, 'socketPath' | 'refusals'>;
  /** Why tests.network is not in force (the operator switched the sandbox network off). */
  networkOff?: string;
  timeoutSec: number;
  memoryMb: number;
  maxProcesses: number;
  /** `required` (default): never run PR code without the sandbox. */
  isolation?: 'required' | 'best-effort';
  /** Size cap of the run's writable tree, and of its /tmp and /dev/shm (MiB each); default 2048. */
  diskMb?: number;
  /** Size cap of one dependency install (its content, HOME, TMPDIR and caches together; MiB); default 4096. */
  installDiskMb?: number;
  /**
   * Runs that nothing waits on as closely as the head's suite (the project's own linters and type
   * checkers) run at a lower CPU priority, so that on a busy machine the suite keeps its core.
   */
  background?: boolean;
}
