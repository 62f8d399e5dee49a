import type { CheckAnnotation } from '../report/annotations.js';

/**
 * What a finished check run says, independent of the code host: a conclusion, a title, a summary,
 * optional text, line annotations and up to three buttons. Hosts map it onto their own API (and
 * enforce their own caps); the limits below are GitHub's, the strictest host slopgate targets.
 */

/** The name of the one check run slopgate owns on every head commit. */
export const CHECK_NAME = 'slopgate';

/** Caps of a check run: 50 annotations per request, 65,535 characters per output field. */
export const ANNOTATIONS_PER_REQUEST = 50;
export const MAX_OUTPUT_CHARS = 65_535;
/** We stop after this many annotations; the rest are counted in the summary. */
export const MAX_ANNOTATIONS = 1_000;

export type CheckConclusion = 'success' | 'failure' | 'neutral' | 'action_required' | 'cancelled' | 'skipped' | 'timed_out';

/** One annotation: the reporter's shape (report/annotations.ts), the only definition of it. */
export type { CheckAnnotation };

/** A button on the check run (at most 3; label ≤ 20, description ≤ 40, identifier ≤ 20 chars). */
export interface CheckAction {
  label: string;
  description: string;
  identifier: string;
}

export const RERUN_ACTION: CheckAction = { label: 'Re-run', description: 'Gate this commit again', identifier: 'rerun' };
export const REFINE_ACTION: CheckAction = { label: 'Refine', description: 'Ask the refiner to fix the findings', identifier: 'refine' };

/**
 * A repository on the code host. `owner` is the namespace it lives in: a user or an organisation on
 * GitHub, or a group with its subgroups (`platform/tools`) on hosts that nest namespaces; `repo` is the
 * repository's own name, never containing a `/`.
 */
export interface RepoTarget {
  owner: string;
  repo: string;
}

/** The repository's full path: `owner/repo`, every level of a nested namespace included. */
export function repoPath(target: RepoTarget): string {
  return `${target.owner}/${target.repo}`;
}

/** A full path split at its last `/`: `group/sub/repo` is the repository `repo` in the namespace `group/sub`. */
export function parseRepoPath(path: string): RepoTarget {
  const cut = path.lastIndexOf('/');
  const owner = path.slice(0, Math.max(0, cut));
  const repo = path.slice(cut + 1);
  if (!owner || !repo || owner.split('/').some((s) => !s)) throw new Error(`not a repository path (namespace/name): ${path}`);
  return { owner, repo };
}

export interface CheckRunOutcome {
  conclusion: CheckConclusion;
  title: string;
  summary: string;
  text?: string;
  annotations?: CheckAnnotation[];
  actions?: CheckAction[];
}

/** Cuts text to `max` characters, ending with an honest line saying how much was left out. */
export function capText(text: string, max = MAX_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  const note = (n: number) => `\n\n… ${n} more characters not shown (GitHub limits this field to ${max} characters).`;
  // A note about the whole length is never shorter than the note about the part cut, so this fits.
  const keep = Math.max(0, max - note(text.length).length);
  return (text.slice(0, keep) + note(text.length - keep)).slice(0, max);
}
