import type { JobHandler } from './types.js';

/**
 * A handler registered for `runWorker()` calls that do not pass one. Kept only for callers that still
 * register (the App's worker entry); new code passes `handler` to `runWorker()` instead.
 * A handler of any payload type fits here (a function taking `QueueJob<P>` takes `QueueJob<never>`),
 * but the payload type is forgotten: `runWorker` restores it at the queue's I/O boundary.
 */
let registered: JobHandler<never> | undefined;

/** Registers the function that does a job; registering again replaces it. */
export function registerJobHandler<P>(handler: JobHandler<P>): void {
  registered = handler;
}

/** The registered job handler, if any (its payload type is no longer known). */
export function registeredJobHandler(): JobHandler<never> | undefined {
  return registered;
}
