import type { Probot } from 'probot';
import { ALLOW_MANIFEST_LABEL } from '../../host/labels.js';
import type { SlopgateRuntime } from './runtime.js';

const GATED_ACTIONS = ['opened', 'synchronize', 'reopened', 'ready_for_review'] as const;

/**
 * pull_request: opened, synchronize, reopened, ready_for_review gate the head; adding or removing the
 * `slopgate:allow-manifest` label gates it again (the sanction changed). Drafts are queued too: the
 * job reads the config from the default branch and skips them when `drafts: skip`.
 */
export function onPullRequest(app: Probot, rt: SlopgateRuntime): void {
  app.on([...GATED_ACTIONS.map((a) => `pull_request.${a}` as const), 'pull_request.labeled', 'pull_request.unlabeled'], async (context) => {
    const { payload } = context;
    if ((payload.action === 'labeled' || payload.action === 'unlabeled') && payload.label?.name !== ALLOW_MANIFEST_LABEL) return;
    if (!payload.installation) return;
    if (!rt.acceptDelivery(context.id)) {
      context.log.info({ delivery: context.id }, 'redelivery ignored');
      return;
    }
    // Answered at once: the store's dedupe, the check run and the job follow in the background.
    rt.requestGate(
      context.octokit,
      {
        installationId: payload.installation.id,
        owner: payload.repository.owner.login,
        repo: payload.repository.name,
        number: payload.pull_request.number,
        headSha: payload.pull_request.head.sha,
        // Only a new head is a new round; reopening, leaving draft or a label change re-gates the same one.
        trigger: payload.action === 'opened' || payload.action === 'synchronize' ? 'pull_request' : 'recheck',
        deliveryId: context.id,
      },
      { claimDelivery: true },
    );
  });
}
