import type { CheckRunOutcome, RepoTarget } from '../../src/host/check-outcome.js';
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
} from '../../src/host/review-host.js';
import type { ReviewCommentInput } from '../../src/host/review-plan.js';

/** The optional capabilities of a ReviewHost, by the property that holds each. */
export type CapabilityName = 'reviews' | 'conversation' | 'buttons' | 'minimise' | 'threads' | 'prBody' | 'labels' | 'push';

export const ALL_CAPABILITIES: readonly CapabilityName[] = [
  'reviews',
  'conversation',
  'buttons',
  'minimise',
  'threads',
  'prBody',
  'labels',
  'push',
];

/** One call made on the fake host or one of its capabilities: the method's name and its arguments. */
export interface HostCall {
  method: string;
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
 * pull request, files per ref, check runs, comments and labels. The class is the required core; each
 * optional capability is a separate object over the same state (below), switched on and off with
 * {@link FakePlatform.only}. Every call is recorded in `calls`; `failOn` makes a method throw, to drive
 * the job policy through its failure paths without any HTTP.
 */
export class FakePlatform implements ReviewHost {
  readonly target: RepoTarget;
  kind: 'app' | 'action' = 'app';
  reviews: ReviewComments | undefined = new FakeReviews(this);
  conversation: Conversation | undefined = new FakeConversation(this);
  buttons: CheckButtons | undefined = { maxButtons: 3 };
  minimise: CommentHiding | undefined = new FakeHiding(this);
  threads: ThreadResolver | undefined = new FakeThreads(this);
  prBody: PullRequestBody | undefined = new FakePrBody(this);
  labels: Labels | undefined = new FakeLabels(this);
  push: CommitPush | undefined = new FakePush(this);
  readonly calls: HostCall[] = [];
  pr: PullRequestFacts;
  /** Files by `ref:path`. */
  readonly files = new Map<string, string>();
  readonly checkRuns = new Map<number, FakeCheckRun>();
  readonly reviewComments: ReviewComment[] = [];
  readonly postedReviews: { number: number; commitSha: string; body: string; comments: ReviewCommentInput[] }[] = [];
  readonly issueComments: IssueComment[] = [];
  readonly reactions: { commentId: number; reaction: Reaction }[] = [];
  readonly roles = new Map<string, RepoRole>();
  readonly pushes: PushCommitInput[] = [];
  /** What `changedFiles` answers (the PR's files with their blobs at the head). */
  changed: ChangedFileRef[] = [];
  readonly failOn = new Map<string, Error>();
  token = 'fake-token';
  nextId = 1;

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

  /** Keeps only the named capabilities (the core always stays): a host that has fewer, or a read-only token. */
  only(...names: CapabilityName[]): this {
    const keep = new Set(names);
    if (!keep.has('reviews')) this.reviews = undefined;
    if (!keep.has('conversation')) this.conversation = undefined;
    if (!keep.has('buttons')) this.buttons = undefined;
    if (!keep.has('minimise')) this.minimise = undefined;
    if (!keep.has('threads')) this.threads = undefined;
    if (!keep.has('prBody')) this.prBody = undefined;
    if (!keep.has('labels')) this.labels = undefined;
    if (!keep.has('push')) this.push = undefined;
    return this;
  }

  /** The calls of one method, in order. */
  callsOf(method: string): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  record(method: string, ...args: unknown[]): void {
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
    return { username: 'fake-user', token: this.token };
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

  async listIssueComments(number: number): Promise<IssueComment[]> {
    this.record('listIssueComments', number);
    return this.issueComments.map((c) => ({ ...c }));
  }

  async permissionOf(username: string): Promise<RepoRole> {
    this.record('permissionOf', username);
    return this.roles.get(username) ?? { level: 'none', name: 'none' };
  }

  async changedFiles(number: number): Promise<ChangedFileRef[]> {
    this.record('changedFiles', number);
    return this.changed.map((f) => ({ ...f }));
  }

  private run(id: number): FakeCheckRun {
    const run = this.checkRuns.get(id);
    if (!run) throw new Error(`no check run ${id}`);
    return run;
  }
}

/** Capability: review comments, kept in the platform's `reviewComments` and `reviews`. */
class FakeReviews implements ReviewComments {
  constructor(private readonly host: FakePlatform) {}

  async listReviewComments(number: number): Promise<ReviewComment[]> {
    this.host.record('listReviewComments', number);
    return this.host.reviewComments.map((c) => ({ ...c }));
  }

  async createReview(number: number, review: { commitSha: string; body: string; comments: ReviewCommentInput[] }): Promise<void> {
    this.host.record('createReview', number, review);
    this.host.postedReviews.push({ number, ...review });
    for (const c of review.comments) {
      const id = this.host.nextId++;
      this.host.reviewComments.push({
        id,
        handle: `RC_${id}`,
        body: c.body,
        path: c.path,
        line: c.line,
        inReplyTo: null,
        authorIsBot: true,
      });
    }
  }

  async postSuggestions(number: number, review: { commitSha: string; body: string; suggestions: Suggestion[] }): Promise<void> {
    this.host.record('postSuggestions', number, review);
  }
}

/** Capability: the conversation (comments and reactions). */
class FakeConversation implements Conversation {
  constructor(private readonly host: FakePlatform) {}

  async postComment(number: number, body: string): Promise<void> {
    this.host.record('postComment', number, body);
    this.host.issueComments.push({ id: this.host.nextId++, body, authorIsBot: true, byThisApp: true });
  }

  async addReaction(commentId: number, reaction: Reaction): Promise<void> {
    this.host.record('addReaction', commentId, reaction);
    this.host.reactions.push({ commentId, reaction });
  }
}

/** Capability: hiding stale comments (counts them as hidden). */
class FakeHiding implements CommentHiding {
  constructor(private readonly host: FakePlatform) {}

  async hideStaleComments(number: number, stale: { id: number; handle: string }[]): Promise<number> {
    this.host.record('hideStaleComments', number, stale);
    return stale.length;
  }
}

/** Capability: resolving review threads (counts them as resolved; the real host skips one resolved before). */
class FakeThreads implements ThreadResolver {
  constructor(private readonly host: FakePlatform) {}

  async resolveThreads(number: number, comments: { id: number; handle: string }[]): Promise<number> {
    this.host.record('resolveThreads', number, comments);
    return comments.length;
  }
}

/** Capability: the PR description. */
class FakePrBody implements PullRequestBody {
  constructor(private readonly host: FakePlatform) {}

  async updatePullRequestBody(number: number, body: string): Promise<void> {
    this.host.record('updatePullRequestBody', number, body);
    this.host.pr.body = body;
  }
}

/** Capability: labels. */
class FakeLabels implements Labels {
  constructor(private readonly host: FakePlatform) {}

  async addLabels(number: number, labels: string[]): Promise<void> {
    this.host.record('addLabels', number, labels);
    for (const l of labels) if (!this.host.pr.labels.includes(l)) this.host.pr.labels.push(l);
  }

  async removeLabel(number: number, label: string): Promise<void> {
    this.host.record('removeLabel', number, label);
    this.host.pr.labels = this.host.pr.labels.filter((l) => l !== label);
  }
}

/** Capability: commits on the PR branch (refuses the default branch like a host would). */
class FakePush implements CommitPush {
  constructor(private readonly host: FakePlatform) {}

  async pushCommit(input: PushCommitInput): Promise<string> {
    this.host.record('pushCommit', input);
    if (input.branch === this.host.pr.defaultBranch) throw new Error('refusing to push to the default branch');
    this.host.pushes.push(input);
    return `pushed${this.host.pushes.length}`;
  }
}
