import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GitCredentials } from './git-auth.js';
import { preparePrRevisions, type PrRevisions } from './pr-workspace.js';
import type { RepoMirrors, RepoRef } from './repo-mirror.js';

/** What the PR job asks a workspace for: the two sides of one change on one repository. */
export interface ChangeRequest {
  repo: RepoRef;
  /** The pull request (0 for a merge queue's commit whose PR is not known). */
  number: number;
  baseRef: string;
  baseSha: string;
  headSha: string;
  /** A branch that holds the head when it is not the pull request's (a merge queue's); see PrRevisionsRequest. */
  headRef?: string;
  /** Also bring the host's test-merge commit, when the host says the PR merges cleanly. */
  withMerge: boolean;
  /** Clone credentials from the host (short-lived; never written to disk). */
  creds?: GitCredentials;
}

/**
 * Where the job's trees come from. The job (host/pr-job.ts) does not care: the App's mirrors fetch
 * into a bare repository per repository ({@link MirrorWorkspace}); the Action fetches into the
 * workflow's checkout (platforms/actions/checkout-workspace.ts). Either way the result is a git
 * directory with the base, the head and their merge base, and a cleanup for whatever was made per job.
 */
export interface ChangeWorkspace {
  prepare(req: ChangeRequest): Promise<PrRevisions>;
}

/** The App's workspace: one blobless mirror per repository, shared by every job on it. */
export class MirrorWorkspace implements ChangeWorkspace {
  constructor(
    readonly mirrors: RepoMirrors,
    /** Where per-job snapshots go (default: the OS temp dir). */
    private readonly scratchRoot: string = join(tmpdir(), 'slopgate-jobs'),
  ) {}

  prepare(req: ChangeRequest): Promise<PrRevisions> {
    return preparePrRevisions(this.mirrors, {
      ...req,
      // Every blob the guards need is local once the mirror has fetched; no per-job snapshot.
      snapshots: false,
      scratchRoot: this.scratchRoot,
    });
  }
}
