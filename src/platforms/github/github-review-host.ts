import type { RepoTarget, CheckRunOutcome } from '../../host/check-outcome.js';
import type {
  ChangedFileRef,
  CheckButtons,
  CloneCredentials,
  CommentHiding,
  CommitPush,
  Conversation,
  DirectoryEntry,
  IssueComment,
  Labels,
  PullRequestBody,
  PullRequestFacts,
  PushCommitInput,
  Reaction,
  RepoRole,
  ReviewComment,
  ReviewComments,
  ReviewHost,
  Suggestion,
  ThreadResolver,
} from '../../host/review-host.js';
import { GITHUB_TOKEN_USER } from '../../workspace/git-auth.js';
import type { ReviewCommentInput } from '../../host/review-plan.js';
import { finishCheckRun, reopenCheckRun, startCheckRun, type GitHubClient } from './check-run.js';
import { minimiseComments, resolveThreads } from './hide-comments.js';
import { roleOf } from './permissions.js';

/** The optional capabilities of ReviewHost, by name: which of them a GitHub token may use. */
export type GitHubCapability = 'reviews' | 'conversation' | 'buttons' | 'minimise' | 'threads' | 'prBody' | 'labels' | 'push';

/** An installation token may do everything the App's manifest grants. */
export const APP_CAPABILITIES: readonly GitHubCapability[] = [
  'reviews',
  'conversation',
  'buttons',
  'minimise',
  'threads',
  'prBody',
  'labels',
  'push',
];

/** GitHub shows at most this many buttons on a check run. */
const MAX_CHECK_BUTTONS = 3;

/** The HTTP status of an Octokit error, if it has one. */
function statusOf(err: unknown): number | undefined {
  return typeof err === 'object' && err !== null && 'status' in err && typeof err.status === 'number' ? err.status : undefined;
}

/** The fields of GitHub's pull-request object slopgate reads (the API's answer, optional where GitHub may omit them). */
interface ApiPullRequest {
  number: number;
  state: string;
  draft?: boolean;
  user: { login: string } | null;
  title?: string;
  body: string | null;
  html_url?: string;
  mergeable?: boolean | null;
  maintainer_can_modify?: boolean;
  labels?: { name?: string }[];
  head: { sha: string; ref?: string; repo?: { full_name: string } | null };
  base: { ref: string; sha: string; repo: { full_name?: string; default_branch: string; html_url: string } };
}

function pullRequestFacts(pr: ApiPullRequest): PullRequestFacts {
  const headRepo = pr.head.repo?.full_name ?? null;
  return {
    number: pr.number,
    state: pr.state === 'open' ? 'open' : 'closed',
    draft: pr.draft === true,
    author: pr.user?.login ?? null,
    title: pr.title ?? '',
    body: pr.body,
    headSha: pr.head.sha,
    headRef: pr.head.ref ?? '',
    headRepoFullName: headRepo,
    baseRef: pr.base.ref,
    baseSha: pr.base.sha,
    defaultBranch: pr.base.repo.default_branch,
    labels: (pr.labels ?? []).flatMap((l) => (l.name ? [l.name] : [])),
    mergeable: pr.mergeable ?? null,
    isFork: headRepo === null || headRepo !== pr.base.repo.full_name,
    maintainerCanModify: pr.maintainer_can_modify === true,
    htmlUrl: pr.html_url ?? '',
    repoHtmlUrl: pr.base.repo.html_url,
  };
}

/** The longest run of backticks in `text` plus one, at least three: a fence the text cannot close. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

/**
 * The GitHub adapter of {@link ReviewHost}: one repository, through an installation's Octokit. This is
 * the only place (with the Probot handlers) that speaks the GitHub API; the job policy never does.
 */
export class GitHubReviewHost
  implements ReviewHost, ReviewComments, Conversation, CheckButtons, CommentHiding, ThreadResolver, PullRequestBody, Labels, CommitPush
{
  readonly target: RepoTarget;
  readonly kind: 'app' | 'action' = 'app';
  readonly maxButtons = MAX_CHECK_BUTTONS;
  readonly reviews: ReviewComments | undefined;
  readonly conversation: Conversation | undefined;
  readonly buttons: CheckButtons | undefined;
  readonly minimise: CommentHiding | undefined;
  readonly threads: ThreadResolver | undefined;
  readonly prBody: PullRequestBody | undefined;
  readonly labels: Labels | undefined;
  readonly push: CommitPush | undefined;

  constructor(
    private readonly gh: GitHubClient,
    target: RepoTarget,
    /** The App's id: comments it made carry it in `performed_via_github_app`. */
    private readonly appId: number,
    /** What the token may do beyond the core (default: the App's installation, everything). */
    capabilities: readonly GitHubCapability[] = APP_CAPABILITIES,
  ) {
    this.target = { owner: target.owner, repo: target.repo };
    const has = new Set(capabilities);
    // Each capability is this adapter itself, or absent: the job checks for it before using it.
    this.reviews = has.has('reviews') ? this : undefined;
    this.conversation = has.has('conversation') ? this : undefined;
    this.buttons = has.has('buttons') ? this : undefined;
    this.minimise = has.has('minimise') ? this : undefined;
    this.threads = has.has('threads') ? this : undefined;
    this.prBody = has.has('prBody') ? this : undefined;
    this.labels = has.has('labels') ? this : undefined;
    this.push = has.has('push') ? this : undefined;
  }

  async pullRequest(number: number): Promise<PullRequestFacts> {
    return pullRequestFacts((await this.gh.rest.pulls.get({ ...this.target, pull_number: number })).data);
  }

  async listDirectory(path: string, ref: string): Promise<DirectoryEntry[] | null> {
    try {
      const res = await this.gh.rest.repos.getContent({ ...this.target, path, ref });
      if (!Array.isArray(res.data)) return [];
      return res.data.map((e) => ({ name: e.name, path: e.path, type: e.type, size: e.size }));
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw err;
    }
  }

  async readFile(path: string, ref: string): Promise<string | null> {
    let data: unknown;
    try {
      data = (await this.gh.rest.repos.getContent({ ...this.target, path, ref })).data;
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw err;
    }
    if (Array.isArray(data) || typeof data !== 'object' || data === null) return null;
    // The contents API's answer: a union of file, symlink and submodule shapes; only a file has content.
    const file = data as { type?: string; content?: unknown; encoding?: string };
    if (file.type !== 'file' || typeof file.content !== 'string') return null;
    return file.encoding === 'base64' ? Buffer.from(file.content, 'base64').toString('utf8') : file.content;
  }

  async cloneCredentials(): Promise<CloneCredentials> {
    // Octokit's auth hook is typed `unknown`; Probot's installation auth answers with a token object.
    const auth = (await this.gh.auth({ type: 'installation' })) as { token?: string };
    return auth.token ? { username: GITHUB_TOKEN_USER, token: auth.token } : {};
  }

  startCheckRun(headSha: string, externalId: string): Promise<number> {
    return startCheckRun(this.gh, this.target, headSha, externalId);
  }

  reopenCheckRun(checkRunId: number, output: { title: string; summary: string }): Promise<void> {
    return reopenCheckRun(this.gh, this.target, checkRunId, output);
  }

  completeCheckRun(checkRunId: number, outcome: CheckRunOutcome): Promise<number> {
    return finishCheckRun(this.gh, this.target, checkRunId, outcome);
  }

  checkRunUrl(pr: PullRequestFacts, checkRunId: number): string {
    return `${pr.repoHtmlUrl}/runs/${checkRunId}`;
  }

  async listReviewComments(number: number): Promise<ReviewComment[]> {
    const all = await this.gh.paginate(this.gh.rest.pulls.listReviewComments, { ...this.target, pull_number: number, per_page: 100 });
    return all.map((c) => ({
      id: c.id,
      handle: c.node_id,
      body: c.body,
      path: c.path,
      line: c.line ?? null,
      inReplyTo: c.in_reply_to_id ?? null,
      authorIsBot: c.user.type === 'Bot',
    }));
  }

  async createReview(number: number, review: { commitSha: string; body: string; comments: ReviewCommentInput[] }): Promise<void> {
    await this.gh.rest.pulls.createReview({
      ...this.target,
      pull_number: number,
      commit_id: review.commitSha,
      event: 'COMMENT',
      body: review.body,
      comments: review.comments,
    });
  }

  hideStaleComments(_number: number, stale: { id: number; handle: string }[]): Promise<number> {
    return minimiseComments(this.gh, stale);
  }

  /** GraphQL `resolveReviewThread`, minimising instead where GitHub refuses (no contents: write). */
  resolveThreads(number: number, comments: { id: number; handle: string }[]): Promise<number> {
    return resolveThreads(this.gh, this.target, number, comments);
  }

  async postSuggestions(number: number, review: { commitSha: string; body: string; suggestions: Suggestion[] }): Promise<void> {
    const comments: ReviewCommentInput[] = review.suggestions.map((s) => {
      const fence = fenceFor(s.replacement);
      const body = `${s.note}\n\n${fence}suggestion\n${s.replacement}${s.replacement.endsWith('\n') || !s.replacement ? '' : '\n'}${fence}`;
      return {
        path: s.path,
        body,
        line: s.endLine,
        side: 'RIGHT',
        ...(s.startLine < s.endLine ? { start_line: s.startLine, start_side: 'RIGHT' as const } : {}),
      };
    });
    await this.createReview(number, { commitSha: review.commitSha, body: review.body, comments });
  }

  async updatePullRequestBody(number: number, body: string): Promise<void> {
    await this.gh.rest.pulls.update({ ...this.target, pull_number: number, body });
  }

  async addLabels(number: number, labels: string[]): Promise<void> {
    await this.gh.rest.issues.addLabels({ ...this.target, issue_number: number, labels });
  }

  async removeLabel(number: number, label: string): Promise<void> {
    try {
      await this.gh.rest.issues.removeLabel({ ...this.target, issue_number: number, name: label });
    } catch (err) {
      if (statusOf(err) !== 404) throw err;
    }
  }

  async addReaction(commentId: number, reaction: Reaction): Promise<void> {
    await this.gh.rest.reactions.createForIssueComment({ ...this.target, comment_id: commentId, content: reaction });
  }

  async postComment(number: number, body: string): Promise<void> {
    await this.gh.rest.issues.createComment({ ...this.target, issue_number: number, body });
  }

  async listIssueComments(number: number): Promise<IssueComment[]> {
    const all = await this.gh.paginate(this.gh.rest.issues.listComments, { ...this.target, issue_number: number, per_page: 100 });
    return all.map((c) => ({
      id: c.id,
      body: c.body ?? '',
      authorIsBot: c.user?.type === 'Bot',
      byThisApp: c.performed_via_github_app?.id === this.appId,
    }));
  }

  permissionOf(username: string): Promise<RepoRole> {
    return roleOf(this.gh, this.target, username);
  }

  async changedFiles(number: number): Promise<ChangedFileRef[]> {
    const files = await this.gh.paginate(this.gh.rest.pulls.listFiles, { ...this.target, pull_number: number, per_page: 100 });
    return files.map((f) => ({
      path: f.filename,
      ...(f.previous_filename ? { previousPath: f.previous_filename } : {}),
      status: f.status,
      blob: f.sha,
    }));
  }

  async pushCommit(input: PushCommitInput): Promise<string> {
    const repo = (await this.gh.rest.repos.get({ ...this.target })).data;
    if (input.branch === repo.default_branch) throw new Error(`refusing to push to the default branch (${input.branch})`);
    if (!input.files.length) throw new Error('nothing to commit');
    const parent = (await this.gh.rest.git.getCommit({ ...this.target, commit_sha: input.parentSha })).data;
    const tree = [];
    for (const f of input.files) {
      const content = Buffer.from(f.content, 'utf8').toString('base64');
      const blob = await this.gh.rest.git.createBlob({ ...this.target, content, encoding: 'base64' });
      tree.push({
        path: f.path,
        mode: f.executable ? ('100755' as const) : ('100644' as const),
        type: 'blob' as const,
        sha: blob.data.sha,
      });
    }
    const newTree = await this.gh.rest.git.createTree({ ...this.target, base_tree: parent.tree.sha, tree });
    const commit = await this.gh.rest.git.createCommit({
      ...this.target,
      message: input.message,
      tree: newTree.data.sha,
      parents: [input.parentSha],
    });
    // Not forced: when the branch moved past parentSha meanwhile, GitHub refuses the update (422).
    await this.gh.rest.git.updateRef({ ...this.target, ref: `heads/${input.branch}`, sha: commit.data.sha, force: false });
    return commit.data.sha;
  }
}
