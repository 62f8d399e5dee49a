import { isBotSender } from '../../host/command-budget.js';
import { sanctionRefusal } from '../../host/give-sanction.js';
import { ALLOW_MANIFEST_LABEL } from '../../host/labels.js';
import { canWrite } from '../../host/permissions.js';
import type { PullRequestFacts, ReviewHost } from '../../host/review-host.js';
import type { BoundSanctions } from '../../host/sanctions.js';
import { MANIFEST_GLOBS } from '../../guards/g1-manifest-safety/path-rules.js';
import { codeSpan } from '../../report/markdown-escape.js';
import type { PullRequestEventFacts } from './event.js';

const LABEL = codeSpan(ALLOW_MANIFEST_LABEL);

/**
 * The `slopgate:allow-manifest` label in the Action. The Action keeps no record between runs (no store,
 * no secret to sign one with), so the label sanctions only the run of its own `labeled` event: the head
 * it was added on, by a sender with write access (collaborator-permission API) who is not the PR's
 * author. On any other run the label allows nothing, and the report says why.
 */
export async function actionLabelSanctions(host: ReviewHost, event: PullRequestEventFacts, pr: PullRequestFacts): Promise<BoundSanctions> {
  if (!pr.labels.includes(ALLOW_MANIFEST_LABEL)) return { globs: [], notes: [] };
  const sender = event.sender;
  if (event.action !== 'labeled' || event.label !== ALLOW_MANIFEST_LABEL || !sender) {
    return {
      globs: [],
      notes: [
        `The ${LABEL} label is on this PR but allows nothing in this run: in the GitHub Action it allows only the run of its own ` +
          '`labeled` event, for the head it was added on (the Action keeps no record of what was approved). After a push, a ' +
          'maintainer removes the label and adds it again; the workflow must list `labeled` in `on.pull_request.types`.',
      ],
    };
  }
  if (isBotSender(sender.login, sender.type)) {
    return { globs: [], notes: [`The ${LABEL} label was added by the bot @${sender.login}: a bot cannot sanction, so it allows nothing.`] };
  }
  const role = await host.permissionOf(sender.login);
  const refused = sanctionRefusal(`adding the ${LABEL} label`, sender.login, role, pr.author, canWrite);
  if (refused) return { globs: [], notes: [refused.replace('Nothing was allowed.', `The ${LABEL} label allows nothing.`)] };
  return {
    globs: [...MANIFEST_GLOBS],
    notes: [
      `The build manifests this PR changes at ${codeSpan(pr.headSha.slice(0, 7))} are allowed by the ${LABEL} label added by @${sender.login}.`,
    ],
  };
}
