import type { PriorDismissal } from '../core/apply-dismissals.js';
import { errorMessage } from '../core/errors.js';
import type { Logger } from '../core/trace.js';
import type { Store } from '../store/store.js';

/**
 * The dismissals recorded for a PR (`/slopgate dismiss`), for `GateOptions.dismissals.prior`. Without a
 * store there are none. A store that does not answer yields none either, and is logged: the findings
 * then count again, which makes the gate stricter, never more open.
 */
export async function priorDismissals(store: Store | undefined, repo: string, pr: number, log: Logger): Promise<PriorDismissal[]> {
  if (!store) return [];
  try {
    return await store.listDismissals(repo, pr, 'command');
  } catch (err) {
    log.warn({ err: errorMessage(err) }, 'dismissals not loaded; dismissed findings count again for this run');
    return [];
  }
}
