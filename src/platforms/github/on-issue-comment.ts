import type { Probot } from 'probot';
import { handleCommand } from './command-handler.js';
import { parseCommand } from '../../host/commands.js';
import { isBotSender } from '../../host/command-budget.js';
import type { SlopgateRuntime } from './runtime.js';

/**
 * issue_comment.created on a pull request: `/slopgate …` commands. Comments on plain issues, edits,
 * deletions and comments by bots (slopgate's own replies included, any `name[bot]` login) are ignored;
 * the rest are answered within the commenter's budget (see command-budget.ts).
 */
export function onIssueComment(app: Probot, rt: SlopgateRuntime): void {
  app.on('issue_comment.created', async (context) => {
    const { payload } = context;
    if (!payload.issue.pull_request || !payload.installation) return;
    const login = payload.comment.user?.login ?? payload.sender.login;
    if (context.isBot || isBotSender(login, payload.comment.user?.type) || isBotSender(payload.sender.login, payload.sender.type)) return;
    const command = parseCommand(payload.comment.body);
    if (!command) return;
    if (!rt.acceptDelivery(context.id, context.name)) return;
    const origin = {
      target: { owner: payload.repository.owner.login, repo: payload.repository.name },
      installationId: payload.installation.id,
      number: payload.issue.number,
      sender: login,
      senderType: payload.comment.user?.type ?? payload.sender.type,
      deliveryId: context.id,
      commentId: payload.comment.id,
    };
    // The store's dedupe and the command's API calls (permission, reaction, reply) run off the webhook's response path.
    rt.track(
      (async () => {
        if (await rt.claimDelivery(context.id)) await handleCommand(rt, context.octokit, origin, command);
      })(),
    );
  });
}
