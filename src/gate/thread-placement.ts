import type { Guard, GuardServiceName, GuardServices } from '../core/guard.js';
import type { GateOptions } from './gate-options.js';

/**
 * What of each run service a guard thread receives (guard-messages.ts `InitRun`): the whole value
 * (plain data), its plain-data part (the test options without their functions: the progress line, the
 * stages, an injected egress proxy), or nothing (objects that live in this process: the store's
 * history and flaky memory, the baseline cache, an injected link checker). A new service needs its
 * line here, and a guard that reads one the thread does not receive stays in this process.
 */
export const IN_A_THREAD: Record<GuardServiceName, 'whole' | 'plain data' | 'none'> = {
  run: 'whole',
  repoName: 'whole',
  host: 'whole',
  tests: 'plain data',
  baselineCache: 'none',
  history: 'none',
  flaky: 'none',
  linkChecker: 'none',
};

export function threadsWanted(opts: Pick<GateOptions, 'guardThreads'>): boolean {
  return opts.guardThreads ?? process.env.SLOPGATE_GUARD_THREADS !== '0';
}

/**
 * Whether a guard's needs let it run in a guard thread in a run with these services: not when it says
 * it must run in this process, nor when it reads a service this run holds that a thread cannot receive.
 * A service the run does not hold is absent in the thread just as here, so it does not keep the guard back
 * (G14 without an injected link checker makes its own in the thread). A guard without `needs` may.
 */
export function mayRunInThread(guard: Guard, services: GuardServices): boolean {
  const needs = guard.needs;
  if (!needs) return true;
  if (needs.mainProcess !== undefined) return false;
  return needs.services.every((name) => IN_A_THREAD[name] !== 'none' || services[name] === undefined);
}

/**
 * Which guards run in a guard thread: those the thread can load (registry guards, and guards naming
 * their `workerModule`) whose needs allow it ({@link mayRunInThread}).
 */
export async function threadedGuards(opts: Pick<GateOptions, 'guardThreads' | 'services'>): Promise<(g: Guard) => boolean> {
  if (!threadsWanted(opts)) return () => false;
  const { GUARDS } = await import('../guards/index.js');
  const registry = new Set<Guard>(GUARDS);
  const services = opts.services ?? {};
  return (g) => (registry.has(g) || g.workerModule !== undefined) && mayRunInThread(g, services);
}
