import type { CheckRunOutcome, RepoTarget } from './check-outcome.js';
import type { ReviewCommentInput } from './review-plan.js';

/**
 * A code host bound to one repository: everything the gate job needs from GitHub (or any later host)
 * as plain data. The job policy (pr-job.ts) talks only to this interface; an adapter per host
 * (platforms/github) maps it onto the host's API, and a test double records every call.
 */
export interface ReviewHost {
  readonly target: RepoTarget;
  /** What this host's credentials allow; a read-only adapter (an Action's token) says so here. */
  readonly capabilities: HostCapabilities;

  /** The pull request as it is now (never from a webhook payload, which may be stale). */
  pullRequest(number: number): Promise<PullRequestFacts>;
  /** A directory listing at `ref`; null when the directory does not exist. */
  listDirectory(path: string, ref: string): Promise<DirectoryEntry[] | null>;
  /** A regular file's text at `ref`; null when it does not exist or is not a regular file. */
  readFile(path: string, ref: string): Promise<string | null>;
  /** Credentials for cloning/fetching the repository (short-lived; never logged or persisted). */
  cloneCredentials(): Promise<CloneCredentials>;

  /** Creates slopgate's check run `in_progress` on a commit; returns its id. */
  startCheckRun(headSha: string, externalId: string): Promise<number>;
  /** Puts an existing check run back to `in_progress` (a retried job). */
  reopenCheckRun(checkRunId: number, output: { title: string; summary: string }): Promise<void>;
  /** Completes a check run (the adapter escapes, caps and chunks annotations); returns the requests made. */
  completeCheckRun(checkRunId: number, outcome: CheckRunOutcome): Promise<number>;
  /** A link to the check run for reviewers. */
  checkRunUrl(pr: PullRequestFacts, checkRunId: number): string;

  /** Every review comment on the PR. */
  listReviewComments(number: number): Promise<ReviewComment[]>;
  /** One review (a plain comment, never an approval or a change request) with line comments. */
  createReview(number: number, review: { commitSha: string; body: string; comments: ReviewCommentInput[] }): Promise<void>;
  /** Hides (minimises) comments of findings that are gone; returns how many. Resolving threads is the optional ThreadResolver. */
  hideStaleComments(number: number, stale: { id: number; nodeId: string }[]): Promise<number>;
  /** Posts one review of ```suggestion blocks (the refiner's proposals); returns nothing on success. */
  postSuggestions(number: number, review: { commitSha: string; body: string; suggestions: Suggestion[] }): Promise<void>;

  /** Replaces the PR's description. */
  updatePullRequestBody(number: number, body: string): Promise<void>;
  addLabels(number: number, labels: string[]): Promise<void>;
  /** Removes a label; a label that is not there is not an error. */
  removeLabel(number: number, label: string): Promise<void>;
  /** Reacts to a comment on the PR's conversation. */
  addReaction(commentId: number, reaction: Reaction): Promise<void>;
  /** Posts a comment on the PR's conversation. */
  postComment(number: number, body: string): Promise<void>;
  /** Every comment on the PR's conversation, each saying whether this App (this host identity) wrote it. */
  listIssueComments(number: number): Promise<IssueComment[]>;
  /** A user's role on the repository, from the host's authoritative API (not a comment's association). */
  permissionOf(username: string): Promise<RepoRole>;
  /** The files the PR changes at its current head, each with its blob there (what a sanction approves). */
  changedFiles(number: number): Promise<ChangedFileRef[]>;

  /**
   * One commit on top of `parentSha` on `branch`: blobs, a tree on the parent's tree, the commit, then
   * a fast-forward update of the branch (never forced, so a push that raced ours fails). Refuses the
   * default branch. Returns the new commit's sha.
   */
  pushCommit(input: PushCommitInput): Promise<string>;
}

export interface HostCapabilities {
  /** Check runs can be created and completed (else the verdict can only be logged or commented). */
  canWriteChecks: boolean;
  /** Comments, reviews, reactions. */
  canComment: boolean;
  /** The PR description and labels. */
  canEditPullRequest: boolean;
  /** Commits can be pushed to the PR's branch. */
  canPush: boolean;
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

export interface CloneCredentials {
  token?: string;
}

export interface ReviewComment {
  id: number;
  nodeId: string;
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

export type RepoRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

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
