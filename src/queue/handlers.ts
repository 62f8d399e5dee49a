import type { JobHandler } from './types.js';

let registered: JobHandler<any> | undefined;

/**
 * Registers the function that does a job (the App's "gate this PR" handler). `slopgate worker` and
 * the App's in-process queue both take it from here; registering again replaces it.
 */
export function registerJobHandler<P>(handler: JobHandler<P>): void {
  registered = handler as JobHandler<any>;
}

/** The registered job handler, if any. */
export function registeredJobHandler<P = unknown>(): JobHandler<P> | undefined {
  return registered as JobHandler<P> | undefined;
}
