import { commandKey } from '../../host/command-budget.js';
import { grantedReply, labelRefusedReply, sanctionRefusal, takeGrant } from '../../host/give-sanction.js';
import { ALLOW_MANIFEST_LABEL } from '../../host/labels.js';
import { canWrite } from '../../host/permissions.js';
import { grantMarker } from '../../host/sanctions.js';
import { breakComments, codeSpan } from '../../report/markdown-escape.js';
import type { GitHubClient } from './check-run.js';
import { admitSender, type CommandOrigin } from './command-handler.js';
import { GitHubReviewHost } from './github-review-host.js';
import type { SlopgateRuntime } from './runtime.js';

/**
 * The `slopgate:allow-manifest` label was added or removed. Adding it is a sanction, so it is checked
 * like `/slopgate allow`: the sender (who added it) needs write access, from the collaborator-permission
 * API, and may not be the PR's author; then the PR's changed build manifests are approved as they are at
 * this head, in a signed reply of slopgate's own, and the head is gated again. A label added by anyone
 * else allows nothing: slopgate says so in a reply, and the check run says so too. Removing the label
 * only makes the gate stricter and needs no permission. Both count toward the sender's command budget;
 * a bot's label is never answered.
 */
export async function onAllowLabel(
  rt: SlopgateRuntime,
  gh: GitHubClient,
  origin: CommandOrigin,
  action: 'labeled' | 'unlabeled',
): Promise<void> {
  const { target } = origin;
  const log = rt.log.child({ pr: `${target.owner}/${target.repo}#${origin.number}`, sender: origin.sender, label: action });
  const turn = await admitSender(rt, origin, log, 'label change');
  if (!turn) return;
  const { scope, attempt } = turn;
  const host = new GitHubReviewHost(gh, target, rt.deps.appId);
  const pr = await host.pullRequest(origin.number);
  const key = commandKey({ name: 'unknown', text: `label ${action} ${ALLOW_MANIFEST_LABEL} @${pr.headSha}`, problem: '' });
  if (!(await rt.commands.settle(scope, attempt, key))) {
    log.info('label change not answered: the same change was answered in the window');
    return;
  }
  const regate = () =>
    rt.requestGate(gh, {
      installationId: origin.installationId,
      owner: target.owner,
      repo: target.repo,
      number: origin.number,
      headSha: pr.headSha,
      trigger: 'recheck',
      deliveryId: origin.deliveryId,
      requestedBy: origin.sender,
    });
  if (action === 'unlabeled') {
    regate();
    return;
  }
  const role = await host.permissionOf(origin.sender);
  const refused = sanctionRefusal(`adding the ${codeSpan(ALLOW_MANIFEST_LABEL)} label`, origin.sender, role, pr.author, canWrite);
  if (refused) {
    log.info({ role }, 'allow-manifest label ignored: the sender may not sanction');
    await host.postComment(origin.number, breakComments(labelRefusedReply(refused)));
    regate();
    return;
  }
  const taken = await takeGrant(host, pr, 'label', origin.sender, ALLOW_MANIFEST_LABEL);
  if (!taken.ok) {
    await host.postComment(origin.number, breakComments(taken.problem));
    regate();
    return;
  }
  const marker = grantMarker(taken.grant, rt.deps.sanctionKey, { ...target, number: origin.number });
  await host.postComment(origin.number, breakComments(grantedReply(taken.grant)) + marker);
  regate();
}
