import type { PrRevisions } from '../../workspace/pr-workspace.js';
import type { ChangeRequest, ChangeWorkspace } from '../../workspace/workspace-port.js';
import { fetchPrHistory, type FetchedHistory, type HistoryRequest } from './fetch-history.js';

/**
 * The Action's workspace: the workflow's own checkout (GITHUB_WORKSPACE). The event's base and head are
 * fetched into it once (fetch-history.ts), and the pipeline reads them from its git objects; the work
 * tree is the head the workflow prepared, so G8 may use the dependencies installed there. Nothing is
 * made per job, so there is nothing to clean up.
 */
export class CheckoutWorkspace implements ChangeWorkspace {
  private fetched: Promise<FetchedHistory> | undefined;

  constructor(private readonly req: HistoryRequest) {}

  get dir(): string {
    return this.req.dir;
  }

  /** The event's history, fetched on first use (the config and the workflow-trust check read it before the gate). */
  history(): Promise<FetchedHistory> {
    this.fetched ??= fetchPrHistory(this.req);
    return this.fetched;
  }

  async prepare(change: ChangeRequest): Promise<PrRevisions> {
    // The checkout gates what the event names; a job asking for another head is a bug, not a moved PR.
    if (change.headSha !== this.req.headSha) {
      throw new Error(`the checkout holds the event's head ${this.req.headSha.slice(0, 12)}, not ${change.headSha.slice(0, 12)}`);
    }
    const history = await this.history();
    return {
      mirrorDir: this.req.dir,
      baseSha: history.baseSha,
      mergeBase: history.mergeBase,
      headSha: history.headSha,
      checkout: this.req.dir,
      cleanup: async () => undefined,
    };
  }
}
