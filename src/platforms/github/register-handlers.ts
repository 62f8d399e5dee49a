import type { Probot } from 'probot';
import { errorMessage } from '../../core/errors.js';
import { onCheckEvents } from './on-check-events.js';
import { onIssueComment } from './on-issue-comment.js';
import { onMergeGroup } from './on-merge-group.js';
import { onPullRequest } from './on-pull-request.js';
import type { SlopgateRuntime } from './runtime.js';

/** installation: logged; when the App is uninstalled, the mirrors of its repositories are deleted. */
function onInstallation(app: Probot, rt: SlopgateRuntime): void {
  app.on(['installation.created', 'installation.deleted'], async (context) => {
    const { payload } = context;
    const repos = (payload.repositories ?? []).map((r) => r.full_name);
    context.log.info({ action: payload.action, installation: payload.installation.id, repositories: repos.length }, 'installation event');
    if (payload.action !== 'deleted') return;
    for (const full of repos) {
      const [owner, repo] = full.split('/');
      if (!owner || !repo) continue;
      rt.track(
        rt.deps.mirrors
          .remove({ owner, repo })
          .catch((err: unknown) => context.log.warn({ err: errorMessage(err), repo: full }, 'mirror not removed')),
      );
    }
  });
}

export function registerHandlers(app: Probot, rt: SlopgateRuntime): void {
  onPullRequest(app, rt);
  onCheckEvents(app, rt);
  onIssueComment(app, rt);
  onMergeGroup(app, rt);
  onInstallation(app, rt);
}
