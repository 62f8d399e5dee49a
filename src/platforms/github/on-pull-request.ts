import type { Probot } from 'probot';
import { ALLOW_MANIFEST_LABEL } from '../../host/labels.js';
import { onAllowLabel } from './allow-label.js';
import type { SlopgateRuntime } from './runtime.js';

const GATED_ACTIONS = ['opened', 'synchronize', 'reopened', 'ready_for_review'] as const;

/**
 * pull_request: opened, synchronize, reopened, ready_for_review gate the head. Adding or removing the
 * `slopgate:allow-manifest` label is a sanction change, handled by allow-label.ts (the sender's
 * permission is checked before anything is allowed), which gates the head again. Drafts are queued
 * too: the job reads the config from the default branch and skips them when `drafts: skip`.
 */
export function onPullRequest(app: Probot, rt: SlopgateRuntime): void {
  app.on([...GATED_ACTIONS.map((a) => `pull_request.${a}` as const), 'pull_request.labeled', 'pull_request.unlabeled'], async (context) => {
    const { payload } = context;
    const labelChange = payload.action === 'labeled' || payload.action === 'unlabeled';
    if (labelChange && payload.label?.name !== ALLOW_MANIFEST_LABEL) return;
    if (!payload.installation) return;
    if (!rt.acceptDelivery(context.id, context.name)) {
      context.log.info({ delivery: context.id }, 'redelivery ignored');
      return;
    }
    const installationId = payload.installation.id;
    if (payload.action === 'labeled' || payload.action === 'unlabeled') {
      const action = payload.action;
      const origin = {
        target: { owner: payload.repository.owner.login, repo: payload.repository.name },
        installationId,
        number: payload.pull_request.number,
        sender: payload.sender.login,
        senderType: payload.sender.type,
        deliveryId: context.id,
      };
      // The store's dedupe, the permission check, the reply and the job follow in the background.
      rt.track(
        (async () => {
          if (await rt.claimDelivery(context.id)) await onAllowLabel(rt, context.octokit, origin, action);
        })(),
      );
      return;
    }
    // Answered at once: the store's dedupe, the check run and the job follow in the background.
    rt.requestGate(
      context.octokit,
      {
        installationId,
        owner: payload.repository.owner.login,
        repo: payload.repository.name,
        number: payload.pull_request.number,
        headSha: payload.pull_request.head.sha,
        // Only a new head is a new round; reopening or leaving draft re-gates the same one.
        trigger: payload.action === 'opened' || payload.action === 'synchronize' ? 'pull_request' : 'recheck',
        deliveryId: context.id,
      },
      { claimDelivery: true },
    );
  });
}
