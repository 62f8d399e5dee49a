import type { CheckRunOutcome, RepoTarget } from '../../src/host/check-outcome.js';
import type {
  ChangedFileRef,
  CloneCredentials,
  DirectoryEntry,
  HostCapabilities,
  IssueComment,
  PullRequestFacts,
  PushCommitInput,
  Reaction,
  RepoRole,
  ReviewComment,
  ReviewHost,
  Suggestion,
} from '../../src/host/review-host.js';
import type { ReviewCommentInput } from '../../src/host/review-plan.js';
import type { ThreadResolver } from '../../src/host/thread-resolver.js';

type HostMethod = keyof ReviewHost | keyof ThreadResolver;

/** One call made on the fake host: the method's name and its arguments. */
export interface HostCall {
  method: HostMethod;
  args: unknown[];
}

export interface FakeCheckRun {
  id: number;
  headSha: string;
  status: 'in_progress' | 'completed';
  /** Every outcome the run was completed with (more than one would be a bug). */
  completions: CheckRunOutcome[];
}

/**
 * An in-memory code host (danger-js's FakePlatform, for slopgate's ReviewHost): one repository with a
 * pull request, files per ref, check runs, comments and labels. Every call is recorded in `calls`;
 * `failOn` makes a method throw, to drive the job policy through its failure paths without any HTTP.
 */
export class FakePlatform implements ReviewHost, ThreadResolver {
  readonly target: RepoTarget;
  capabilities: HostCapabilities = { canWriteChecks: true, canComment: true, canEditPullRequest: true, canPush: true };
  readonly calls: HostCall[] = [];
  pr: PullRequestFacts;
  /** Files by `ref:path`. */
  readonly files = new Map<string, string>();
  readonly checkRuns = new Map<number, FakeCheckRun>();
  readonly reviewComments: ReviewComment[] = [];
  readonly reviews: { number: number; commitSha: string; body: string; comments: ReviewCommentInput[] }[] = [];
  readonly issueComments: IssueComment[] = [];
  readonly reactions: { commentId: number; reaction: Reaction }[] = [];
  readonly roles = new Map<string, RepoRole>();
  readonly pushes: PushCommitInput[] = [];
  /** What `changedFiles` answers (the PR's files with their blobs at the head). */
  changed: ChangedFileRef[] = [];
  readonly failOn = new Map<HostMethod, Error>();
  token = 'fake-token';
  private nextId = 1;

  constructor(target: RepoTarget, pr: Partial<PullRequestFacts> & Pick<PullRequestFacts, 'number' | 'headSha' | 'baseSha'>) {
    this.target = target;
    this.pr = {
      state: 'open',
      draft: false,
      author: 'contributor',
      title: 'A change',
      body: null,
      headRef: `pr-${pr.number}`,
      headRepoFullName: `${target.owner}/${target.repo}`,
      baseRef: 'main',
      defaultBranch: 'main',
      labels: [],
      mergeable: false,
      isFork: false,
      maintainerCanModify: false,
      htmlUrl: `https://code.example/${target.owner}/${target.repo}/pull/${pr.number}`,
      repoHtmlUrl: `https://code.example/${target.owner}/${target.repo}`,
      ...pr,
    };
  }

  /** The calls of one method, in order. */
  callsOf(method: HostMethod): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  private record(method: HostMethod, ...args: unknown[]): void {
    this.calls.push({ method, args });
    const err = this.failOn.get(method);
    if (err) throw err;
  }

  async pullRequest(number: number): Promise<PullRequestFacts> {
    this.record('pullRequest', number);
    return { ...this.pr, labels: [...this.pr.labels] };
  }

  async listDirectory(path: string, ref: string): Promise<DirectoryEntry[] | null> {
    this.record('listDirectory', path, ref);
    const prefix = `${ref}:${path}/`;
    const entries = [...this.files].filter(([k]) => k.startsWith(prefix) && !k.slice(prefix.length).includes('/'));
    if (!entries.length) return null;
    return entries.map(([k, text]) => {
      const p = k.slice(ref.length + 1);
      return { name: p.slice(path.length + 1), path: p, type: 'file', size: Buffer.byteLength(text) };
    });
  }

  async readFile(path: string, ref: string): Promise<string | null> {
    this.record('readFile', path, ref);
    return this.files.get(`${ref}:${path}`) ?? null;
  }

  async cloneCredentials(): Promise<CloneCredentials> {
    this.record('cloneCredentials');
    return { token: this.token };
  }

  async startCheckRun(headSha: string, externalId: string): Promise<number> {
    this.record('startCheckRun', headSha, externalId);
    const id = this.nextId++;
    this.checkRuns.set(id, { id, headSha, status: 'in_progress', completions: [] });
    return id;
  }

  async reopenCheckRun(checkRunId: number, output: { title: string; summary: string }): Promise<void> {
    this.record('reopenCheckRun', checkRunId, output);
    this.run(checkRunId).status = 'in_progress';
  }

  async completeCheckRun(checkRunId: number, outcome: CheckRunOutcome): Promise<number> {
    this.record('completeCheckRun', checkRunId, outcome);
    const run = this.run(checkRunId);
    run.status = 'completed';
    run.completions.push(outcome);
    return 1;
  }

  checkRunUrl(pr: PullRequestFacts, checkRunId: number): string {
    return `${pr.repoHtmlUrl}/checks/${checkRunId}`;
  }

  async listReviewComments(number: number): Promise<ReviewComment[]> {
    this.record('listReviewComments', number);
    return this.reviewComments.map((c) => ({ ...c }));
  }

  async createReview(number: number, review: { commitSha: string; body: string; comments: ReviewCommentInput[] }): Promise<void> {
    this.record('createReview', number, review);
    this.reviews.push({ number, ...review });
    for (const c of review.comments) {
      const id = this.nextId++;
      this.reviewComments.push({ id, nodeId: `RC_${id}`, body: c.body, path: c.path, line: c.line, inReplyTo: null, authorIsBot: true });
    }
  }

  async hideStaleComments(number: number, stale: { id: number; nodeId: string }[]): Promise<number> {
    this.record('hideStaleComments', number, stale);
    return stale.length;
  }

  /** The optional ThreadResolver capability (a subclass without it stands for a host that cannot). */
  async resolveThreads(number: number, comments: { id: number; nodeId: string }[]): Promise<number> {
    this.record('resolveThreads', number, comments);
    return comments.length;
  }

  async postSuggestions(number: number, review: { commitSha: string; body: string; suggestions: Suggestion[] }): Promise<void> {
    this.record('postSuggestions', number, review);
  }

  async updatePullRequestBody(number: number, body: string): Promise<void> {
    this.record('updatePullRequestBody', number, body);
    this.pr.body = body;
  }

  async addLabels(number: number, labels: string[]): Promise<void> {
    this.record('addLabels', number, labels);
    for (const l of labels) if (!this.pr.labels.includes(l)) this.pr.labels.push(l);
  }

  async removeLabel(number: number, label: string): Promise<void> {
    this.record('removeLabel', number, label);
    this.pr.labels = this.pr.labels.filter((l) => l !== label);
  }

  async addReaction(commentId: number, reaction: Reaction): Promise<void> {
    this.record('addReaction', commentId, reaction);
    this.reactions.push({ commentId, reaction });
  }

  async postComment(number: number, body: string): Promise<void> {
    this.record('postComment', number, body);
    this.issueComments.push({ id: this.nextId++, body, authorIsBot: true, byThisApp: true });
  }

  async listIssueComments(number: number): Promise<IssueComment[]> {
    this.record('listIssueComments', number);
    return this.issueComments.map((c) => ({ ...c }));
  }

  async permissionOf(username: string): Promise<RepoRole> {
    this.record('permissionOf', username);
    return this.roles.get(username) ?? 'none';
  }

  async changedFiles(number: number): Promise<ChangedFileRef[]> {
    this.record('changedFiles', number);
    return this.changed.map((f) => ({ ...f }));
  }

  async pushCommit(input: PushCommitInput): Promise<string> {
    this.record('pushCommit', input);
    if (input.branch === this.pr.defaultBranch) throw new Error('refusing to push to the default branch');
    this.pushes.push(input);
    return `pushed${this.pushes.length}`;
  }

  private run(id: number): FakeCheckRun {
    const run = this.checkRuns.get(id);
    if (!run) throw new Error(`no check run ${id}`);
    return run;
  }
}
