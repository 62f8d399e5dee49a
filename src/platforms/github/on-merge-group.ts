import type { Probot } from 'probot';
import { queuedPrNumber } from '../../host/merge-queue.js';
import type { SlopgateRuntime } from './runtime.js';

/** `refs/heads/main` → `main` (the merge_group payload gives full refs). */
const branchOf = (ref: string) => ref.replace(/^refs\/heads\//, '');

/**
 * merge_group.checks_requested: a merge queue built a commit and waits for the required checks on it.
 * The `slopgate` check run is created on the queue's head commit at once and the job queued; the job
 * (host/pr-job.ts) reuses the verdict of a PR head that is the same change, or gates the commit
 * against the queue's base. A queue whose check never reports waits forever, so this is answered for
 * every queue entry, never skipped quietly.
 */
export function onMergeGroup(app: Probot, rt: SlopgateRuntime): void {
  app.on('merge_group.checks_requested', async (context) => {
    const { payload } = context;
    const repository = payload.repository;
    if (!payload.installation || !repository) return;
    if (!rt.acceptDelivery(context.id, context.name)) {
      context.log.info({ delivery: context.id }, 'redelivery ignored');
      return;
    }
    const group = payload.merge_group;
    const headRef = branchOf(group.head_ref);
    rt.requestGate(
      context.octokit,
      {
        installationId: payload.installation.id,
        owner: repository.owner.login,
        repo: repository.name,
        number: queuedPrNumber(headRef),
        headSha: group.head_sha,
        trigger: 'merge_group',
        deliveryId: context.id,
        mergeGroup: { headRef, baseRef: branchOf(group.base_ref), baseSha: group.base_sha },
      },
      { claimDelivery: true },
    );
  });
}
