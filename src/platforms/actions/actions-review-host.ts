import { ProbotOctokit } from 'probot';
import { capText, type CheckRunOutcome, type RepoTarget } from '../../host/check-outcome.js';
import type { CloneCredentials, PullRequestFacts } from '../../host/review-host.js';
import { GITHUB_TOKEN_USER } from '../../workspace/git-auth.js';
import { breakComments, escapeInline, inertText } from '../../report/markdown-escape.js';
import type { GitHubClient } from '../github/check-run.js';
import { GitHubReviewHost, type GitHubCapability } from '../github/github-review-host.js';
import { appendSummary } from './runner-files.js';
import { annotationCommand, workflowCommand } from './workflow-commands.js';

/**
 * The id of the "GitHub Actions" app on github.com, whose bot (github-actions[bot]) writes what a
 * workflow's GITHUB_TOKEN writes. Only used to tell this identity's conversation comments apart.
 */
export const GITHUB_ACTIONS_APP_ID = 15368;

/** GitHub shows this many workflow annotations of each level (error, warning, notice) per step. */
export const ANNOTATIONS_PER_LEVEL = 10;

/** What a run's token may do besides the check: a fork's `pull_request` run gets a read-only token. */
export interface ActionGrants {
  /** The check run can be written (else the verdict goes to workflow annotations). */
  checks: boolean;
  capabilities: GitHubCapability[];
}

/**
 * The Action's grants: review comments, hiding them, the PR body and labels with a writable token;
 * nothing with a fork's. Never buttons (no App listens to them), the conversation (no commands) or push.
 */
export function actionCapabilities(fromFork: boolean): ActionGrants {
  return fromFork ? { checks: false, capabilities: [] } : { checks: true, capabilities: ['reviews', 'minimise', 'prBody', 'labels'] };
}

/**
 * An Octokit on the workflow's token, against GITHUB_API_URL (GitHub Enterprise Server included).
 * Probot's Octokit rather than @octokit/rest: probot is already a runtime dependency, and with the
 * same client type the App's adapter (every request, cap and chunking of it) is reused as it is,
 * retries and rate-limit handling included; @octokit/rest would add a second client to the bundle.
 */
export function actionOctokit(token: string, apiUrl: string): GitHubClient {
  return new ProbotOctokit({ auth: { token }, baseUrl: apiUrl, retry: { retries: 2 } });
}

/** The HTTP status of an Octokit error, if it has one. */
function statusOf(err: unknown): number | undefined {
  return typeof err === 'object' && err !== null && 'status' in err && typeof err.status === 'number' ? err.status : undefined;
}

export interface RunnerIo {
  /** GITHUB_STEP_SUMMARY. */
  summaryFile?: string;
  /** The workflow run's page (the link reviewers get when there is no check run). */
  runUrl?: string;
  /** One line to the step's log (stdout, where the runner reads workflow commands). */
  write: (line: string) => void;
}

/**
 * The GitHub Actions adapter of {@link ReviewHost}: the App's GitHub adapter over the workflow's token,
 * with what that token cannot do mapped onto the runner. A check run is written when the token may
 * write checks; otherwise (a fork's read-only token, or `checks: write` missing from the workflow's
 * permissions) the verdict goes to the step's log as workflow annotations. The job summary is written
 * either way. Nothing is pushed (no push capability): the Action never commits to a PR.
 */
export class ActionsReviewHost extends GitHubReviewHost {
  override readonly kind = 'action' as const;
  /** Placeholder id of the check run when the token may not write checks. */
  static readonly NO_CHECK_RUN = 0;
  /** The token may write check runs; turned off by a 403 (the workflow's permissions lack `checks: write`). */
  private checksWritable: boolean;

  constructor(
    gh: GitHubClient,
    target: RepoTarget,
    private readonly token: string,
    private readonly runner: RunnerIo,
    grants: ActionGrants,
  ) {
    super(gh, target, GITHUB_ACTIONS_APP_ID, grants.capabilities);
    this.checksWritable = grants.checks;
  }

  override async cloneCredentials(): Promise<CloneCredentials> {
    return { username: GITHUB_TOKEN_USER, token: this.token };
  }

  /**
   * Creates the check run when the token may; a 403 (the workflow's `permissions` lack `checks: write`)
   * switches this host to workflow annotations instead of failing the run.
   */
  override async startCheckRun(headSha: string, externalId: string): Promise<number> {
    if (!this.checksWritable) return ActionsReviewHost.NO_CHECK_RUN;
    try {
      return await super.startCheckRun(headSha, externalId);
    } catch (err) {
      if (statusOf(err) !== 403) throw err;
      this.checksWritable = false;
      this.runner.write(
        workflowCommand(
          'warning',
          { title: 'slopgate: no check run' },
          'The token may not write checks (add `checks: write` to the workflow permissions); ' +
            'the verdict is in this log and the job summary.',
        ),
      );
      return ActionsReviewHost.NO_CHECK_RUN;
    }
  }

  override async reopenCheckRun(checkRunId: number, output: { title: string; summary: string }): Promise<void> {
    if (this.checksWritable) await super.reopenCheckRun(checkRunId, output);
  }

  /** The job summary always; then the check run, or the annotations as workflow commands. */
  override async completeCheckRun(checkRunId: number, outcome: CheckRunOutcome): Promise<number> {
    await appendSummary(this.runner.summaryFile, jobSummary(outcome));
    // No buttons: a check run's buttons call back the App that made it, and a workflow has no App
    // listening (re-running is the workflow run's own Re-run).
    if (this.checksWritable) return super.completeCheckRun(checkRunId, { ...outcome, actions: [] });
    const annotations = outcome.annotations ?? [];
    const shown = new Map<string, number>();
    let hidden = 0;
    for (const a of annotations) {
      const n = shown.get(a.annotation_level) ?? 0;
      if (n >= ANNOTATIONS_PER_LEVEL) {
        hidden++;
        continue;
      }
      shown.set(a.annotation_level, n + 1);
      this.runner.write(annotationCommand(a));
    }
    if (hidden > 0) {
      this.runner.write(
        workflowCommand(
          'notice',
          { title: 'slopgate' },
          `${hidden} more findings are not annotated here (GitHub shows ${ANNOTATIONS_PER_LEVEL} of each level per step); ` +
            'the job summary lists them all',
        ),
      );
    }
    const level =
      outcome.conclusion === 'success' || outcome.conclusion === 'neutral' || outcome.conclusion === 'skipped' ? 'notice' : 'error';
    this.runner.write(workflowCommand(level, { title: 'slopgate' }, inertText(outcome.title)));
    return 0;
  }

  override checkRunUrl(pr: PullRequestFacts, checkRunId: number): string {
    return this.checksWritable || !this.runner.runUrl ? super.checkRunUrl(pr, checkRunId) : this.runner.runUrl;
  }
}

/** The verdict as the job summary shows it: the check run's title, summary and text. */
export function jobSummary(outcome: CheckRunOutcome): string {
  // The title is plain text on a check run but a heading here (its code spans stay code); summary and text are Markdown the renderers escaped.
  const parts = [`## slopgate: ${escapeInline(outcome.title)}`, '', breakComments(outcome.summary)];
  if (outcome.text) parts.push('', breakComments(outcome.text));
  return capText(parts.join('\n'), 900_000);
}
