import type { HostKind } from '../core/host-kind.js';
import type { CheckRunOutcome, RepoTarget } from './check-outcome.js';
import type { ReviewCommentInput } from './review-plan.js';

/**
 * A code host bound to one repository, in the host's own neutral words: everything the PR job
 * (pr-job.ts) needs as plain data. The required core below is what every host can do with the
 * credentials it runs under: read the pull request, its files and config, clone it, and report one
 * check on a commit. Everything else is an optional capability, its own small interface on its own
 * property (reviewdog's optional services, danger-js's optional platform methods): absent when the host
 * has no such thing or its credentials may not (a fork's read-only token), and checked where it is
 * used — `if (host.labels) …` — so nothing is attempted that cannot work.
 *
 * Adapters: platforms/github (the App, every capability), platforms/actions (the Action: its token's).
 * The test double (test/host/fake-platform.ts) implements the core and each capability separately.
 */
export interface ReviewHost {
  readonly target: RepoTarget;
  /** Which host this is: the advice its reports give names only what it offers (labels, `/slopgate` commands, workflow inputs). */
  readonly kind: Exclude<HostKind, 'cli'>;

  /** The pull request as it is now (never from a webhook payload, which may be stale). */
  pullRequest(number: number): Promise<PullRequestFacts>;
  /** A directory listing at `ref`; null when the directory does not exist. */
  listDirectory(path: string, ref: string): Promise<DirectoryEntry[] | null>;
  /** A regular file's text at `ref`; null when it does not exist or is not a regular file. */
  readFile(path: string, ref: string): Promise<string | null>;
  /** Credentials for cloning/fetching the repository (short-lived; never logged or persisted). */
  cloneCredentials(): Promise<CloneCredentials>;

  /** Creates slopgate's check on a commit, in progress; returns its id. */
  startCheckRun(headSha: string, externalId: string): Promise<number>;
  /** Puts an existing check back in progress (a retried job). */
  reopenCheckRun(checkRunId: number, output: { title: string; summary: string }): Promise<void>;
  /**
   * Completes a check (the adapter escapes, caps and chunks annotations); returns the requests made.
   * The outcome's `actions` are shown only by a host with {@link CheckButtons}; callers leave them out otherwise.
   */
  completeCheckRun(checkRunId: number, outcome: CheckRunOutcome): Promise<number>;
  /** A link to the check for reviewers. */
  checkRunUrl(pr: PullRequestFacts, checkRunId: number): string;

  /** Every comment on the PR's conversation, each saying whether this host identity wrote it (sanction markers). */
  listIssueComments(number: number): Promise<IssueComment[]>;
  /** A user's role on the repository, from the host's authoritative API (not a comment's association). */
  permissionOf(username: string): Promise<RepoRole>;
  /** The files the PR changes at its current head, each with its blob there (what a sanction approves). */
  changedFiles(number: number): Promise<ChangedFileRef[]>;

  /** Line comments in reviews: the findings on their lines, the refiner's suggestions. */
  readonly reviews?: ReviewComments | undefined;
  /** Comments and reactions on the PR's conversation (command replies). */
  readonly conversation?: Conversation | undefined;
  /** Buttons on the finished check that call back into slopgate (Re-run, Refine). */
  readonly buttons?: CheckButtons | undefined;
  /** Hiding (minimising) review comments of findings that are gone. */
  readonly minimise?: CommentHiding | undefined;
  /** Resolving the review threads of findings that are gone (used instead of hiding, where the operator allows). */
  readonly threads?: ThreadResolver | undefined;
  /** slopgate's own section of the PR's description. */
  readonly prBody?: PullRequestBody | undefined;
  /** Labels on the PR (decision labels, the stuck label). */
  readonly labels?: Labels | undefined;
  /** Commits pushed to the PR's branch (the refiner landing a fix). */
  readonly push?: CommitPush | undefined;
}

/** Capability: line comments in reviews. */
export interface ReviewComments {
  /** Every review comment on the PR. */
  listReviewComments(number: number): Promise<ReviewComment[]>;
  /** One review (a plain comment, never an approval or a change request) with line comments. */
  createReview(number: number, review: { commitSha: string; body: string; comments: ReviewCommentInput[] }): Promise<void>;
  /** Posts one review of suggested replacements (the refiner's proposals). */
  postSuggestions(number: number, review: { commitSha: string; body: string; suggestions: Suggestion[] }): Promise<void>;
}

/** Capability: the PR's conversation. */
export interface Conversation {
  /** Posts a comment on the PR's conversation. */
  postComment(number: number, body: string): Promise<void>;
  /** Reacts to a comment on the PR's conversation. */
  addReaction(commentId: number, reaction: Reaction): Promise<void>;
}

/** Capability: buttons on a finished check. */
export interface CheckButtons {
  /** How many buttons one check may carry. */
  readonly maxButtons: number;
}

/** Capability: hiding (minimising) stale review comments. Resolving their threads is {@link ThreadResolver}. */
export interface CommentHiding {
  /** Hides (minimises) comments of findings that are gone; returns how many. */
  hideStaleComments(number: number, stale: { id: number; handle: string }[]): Promise<number>;
}

/**
 * Capability: marking review threads resolved (GitHub's `resolveReviewThread`). Where a host lacks it,
 * or the operator turned it off, the comments of fixed findings are hidden with {@link CommentHiding} instead.
 */
export interface ThreadResolver {
  /**
   * Resolves the open threads these comments started; returns how many it resolved or, where the host
   * refused (GitHub wants contents: write), hid instead.
   */
  resolveThreads(number: number, comments: { id: number; handle: string }[]): Promise<number>;
}

/** Capability: the PR's description. */
export interface PullRequestBody {
  /** Replaces the PR's description. */
  updatePullRequestBody(number: number, body: string): Promise<void>;
}

/** Capability: labels on the PR. */
export interface Labels {
  addLabels(number: number, labels: string[]): Promise<void>;
  /** Removes a label; a label that is not there is not an error. */
  removeLabel(number: number, label: string): Promise<void>;
}

/** Capability: commits on the PR's branch. */
export interface CommitPush {
  /**
   * One commit on top of `parentSha` on `branch`: the files on the parent's tree, then a fast-forward
   * update of the branch (never forced, so a push that raced ours fails). Refuses the default branch.
   * Returns the new commit's sha.
   */
  pushCommit(input: PushCommitInput): Promise<string>;
}

/** The buttons of an outcome, kept only for a host that shows them. */
export function forHost(host: Pick<ReviewHost, 'buttons'>, outcome: CheckRunOutcome): CheckRunOutcome {
  if (host.buttons || !outcome.actions) return outcome;
  const { actions: _dropped, ...rest } = outcome;
  return rest;
}

export interface PullRequestFacts {
  number: number;
  state: 'open' | 'closed';
  draft: boolean;
  /** The author's login; null when the account is gone. */
  author: string | null;
  title: string;
  body: string | null;
  headSha: string;
  headRef: string;
  /** `owner/name` of the head repository; null when the fork was deleted. */
  headRepoFullName: string | null;
  baseRef: string;
  baseSha: string;
  defaultBranch: string;
  labels: string[];
  /** Null while the host is still computing it. */
  mergeable: boolean | null;
  isFork: boolean;
  maintainerCanModify: boolean;
  htmlUrl: string;
  /** The base repository's web address. */
  repoHtmlUrl: string;
}

export interface DirectoryEntry {
  name: string;
  path: string;
  type: string;
  size: number;
}

/**
 * What git sends to clone: a user name and a token (HTTP basic auth). Each host has its own user name
 * for a token (GitHub: `x-access-token`; GitLab: `oauth2`). Empty for a public repository cloned anonymously.
 */
export interface CloneCredentials {
  username?: string;
  token?: string;
}

export interface ReviewComment {
  id: number;
  /** The host's own reference for hiding or resolving the comment (GitHub: its GraphQL node id). */
  handle: string;
  body: string;
  path: string;
  /** Null when the host marks the comment outdated. */
  line: number | null;
  /** The comment this one answers, when it is a reply. */
  inReplyTo: number | null;
  authorIsBot: boolean;
}

/** One file a PR changes, as the host lists it. */
export interface ChangedFileRef {
  path: string;
  /** The former path of a renamed file. */
  previousPath?: string;
  status: 'added' | 'removed' | 'modified' | 'renamed' | 'copied' | 'changed' | 'unchanged';
  /** The file's blob at the PR's head (for a removed file, whatever the host says; not used). */
  blob: string | null;
}

export interface IssueComment {
  id: number;
  body: string;
  authorIsBot: boolean;
  /** Written by this App itself (not merely by some bot). */
  byThisApp: boolean;
}

export type Reaction = 'eyes' | '+1' | 'confused';

/**
 * A user's role on the repository: the level slopgate decides on, in neutral words, and the host's own
 * name for the role (what a reply shows: GitHub's `triage`, GitLab's `reporter`).
 */
export interface RepoRole {
  level: 'admin' | 'write' | 'read' | 'none';
  name: string;
}

/** A proposed replacement of lines `startLine`–`endLine` of `path` on the PR head. */
export interface Suggestion {
  path: string;
  startLine: number;
  endLine: number;
  replacement: string;
  /** Shown above the suggestion block. */
  note: string;
}

export interface PushCommitInput {
  branch: string;
  /** The commit the branch must still point at; the update is refused otherwise. */
  parentSha: string;
  /** New contents; `executable` keeps a script's mode (100755) instead of the plain-file default. */
  files: { path: string; content: string; executable?: boolean }[];
  message: string;
}
