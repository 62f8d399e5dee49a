import type { Probot } from 'probot';
import { errorMessage } from '../../core/errors.js';
import { CHECK_NAME, type RepoTarget } from '../../host/check-outcome.js';
import type { GitHubClient } from './check-run.js';
import { handleCommand } from './command-handler.js';
import { prNumberFromExternalId } from '../../host/queued-job.js';
import type { SlopgateRuntime } from './runtime.js';

/** The open PRs whose head is `sha` (fork PRs come with an empty `pull_requests` list). */
async function prsForHead(gh: GitHubClient, target: RepoTarget, sha: string): Promise<number[]> {
  const open = await gh.rest.pulls.list({ ...target, state: 'open', sort: 'updated', direction: 'desc', per_page: 100 });
  return open.data.filter((p) => p.head.sha === sha).map((p) => p.number);
}

interface PullRequestRef {
  number: number;
  base: { repo: { id: number } };
}

/**
 * The numbers of the listed PRs that belong to this repository. GitHub also lists PRs of other
 * repositories whose head is this commit (a branch here opened against an upstream); their numbers
 * mean nothing here and must not re-gate an unrelated PR of this repository.
 */
function ownPullRequests(listed: PullRequestRef[], repoId: number): number[] {
  return [...new Set(listed.filter((p) => p.base.repo.id === repoId).map((p) => p.number))];
}

/**
 * check_run.rerequested / check_suite.rerequested (GitHub's "Re-run" links) gate the PR (for a suite:
 * every PR of this repository with that head) again;
 * check_run.requested_action runs the button's command (`rerun` → recheck, `refine` → refine) with
 * the same permission checks as the comment commands.
 */
export function onCheckEvents(app: Probot, rt: SlopgateRuntime): void {
  app.on(['check_run.rerequested', 'check_run.requested_action'], async (context) => {
    const { payload } = context;
    const run = payload.check_run;
    if (run.name !== CHECK_NAME || !payload.installation) return;
    if (run.app?.id && rt.deps.appId && run.app.id !== rt.deps.appId) return;
    if (!rt.acceptDelivery(context.id, context.name)) return;
    const installationId = payload.installation.id;
    const id = payload.action === 'requested_action' ? payload.requested_action?.identifier : 'rerun';
    // Only people with write access see GitHub's own re-run link; the buttons map to commands.
    const command = id === 'refine' ? ({ name: 'refine' } as const) : id === 'rerun' ? ({ name: 'recheck' } as const) : null;
    if (!command) return;
    // Answered at once: the store's dedupe, the PR lookup and the command run in the background.
    rt.track(
      (async () => {
        if (!(await rt.claimDelivery(context.id))) return;
        const target = { owner: payload.repository.owner.login, repo: payload.repository.name };
        const number =
          prNumberFromExternalId(run.external_id) ??
          ownPullRequests(run.pull_requests, payload.repository.id)[0] ??
          (await prsForHead(context.octokit, target, run.head_sha))[0];
        if (!number) {
          context.log.info({ sha: run.head_sha }, 'no open pull request for this check run');
          return;
        }
        await handleCommand(
          rt,
          context.octokit,
          { target, installationId, number, sender: payload.sender.login, senderType: payload.sender.type, deliveryId: context.id },
          command,
        );
      })(),
    );
  });

  app.on('check_suite.rerequested', async (context) => {
    const { payload } = context;
    if (!payload.installation) return;
    if (!rt.acceptDelivery(context.id, context.name)) return;
    const installationId = payload.installation.id;
    rt.track(
      (async () => {
        if (!(await rt.claimDelivery(context.id))) return;
        const target = { owner: payload.repository.owner.login, repo: payload.repository.name };
        const suite = payload.check_suite;
        // One head can be the head of several PRs (one branch opened against two bases): re-gate each.
        const listed = ownPullRequests(suite.pull_requests, payload.repository.id);
        const numbers = listed.length ? listed : await prsForHead(context.octokit, target, suite.head_sha);
        if (!numbers.length) context.log.info({ sha: suite.head_sha }, 'no open pull request for this check suite');
        for (const number of numbers) {
          await handleCommand(
            rt,
            context.octokit,
            { target, installationId, number, sender: payload.sender.login, senderType: payload.sender.type, deliveryId: context.id },
            { name: 'recheck' },
          ).catch((err: unknown) =>
            context.log.warn({ err: errorMessage(err), pr: number }, 'check suite re-run: this PR was not gated again'),
          );
        }
      })(),
    );
  });
}
