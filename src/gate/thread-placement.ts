import type { Guard } from '../core/guard.js';
import type { GateOptions } from './gate-options.js';

/**
 * Guards that need this process: G8 and G16 drive the sandbox (which has its own hard limits) with the
 * run's test options, G9 reads the store. G17 runs in a thread (its compiler work is CPU-bound) and gets
 * the plain-data part of the test options there (guard-messages.ts `ThreadTestOptions`).
 */
const IN_PROCESS = new Set(['G8', 'G9', 'G16']);

export function threadsWanted(opts: Pick<GateOptions, 'guardThreads'>): boolean {
  return opts.guardThreads ?? process.env.SLOPGATE_GUARD_THREADS !== '0';
}

/** Which guards run in a guard thread: registry guards (but G8, G9) and guards naming their `workerModule`. */
export async function threadedGuards(opts: Pick<GateOptions, 'guardThreads' | 'services'>): Promise<(g: Guard) => boolean> {
  if (!threadsWanted(opts)) return () => false;
  const { GUARDS } = await import('../guards/index.js');
  const registry = new Set<Guard>(GUARDS);
  const services = opts.services ?? {};
  return (g) => {
    if (g.workerModule) return true;
    if (!registry.has(g) || IN_PROCESS.has(g.id)) return false;
    // An injected link checker (tests, the App's shared cache) lives in this process.
    return !(g.id === 'G14' && services.linkChecker !== undefined);
  };
}
