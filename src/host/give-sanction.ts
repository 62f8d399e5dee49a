import { codeSpan } from '../report/markdown-escape.js';
import { ALLOW_MANIFEST_LABEL } from './labels.js';
import type { PullRequestFacts, RepoRole, ReviewHost } from './review-host.js';
import { grantFor, type SanctionGrant } from './sanctions.js';

/**
 * Giving a G1 sanction (`/slopgate allow <path>`, the `slopgate:allow-manifest` label): who may, what
 * it approves, and the replies. The caller has checked the sender's role; this records what the
 * sanction approves — the blobs of the matching files at the PR's head — or says why nothing was.
 */

/** Who may sanction or dismiss: write access, and not the PR's own author (a sanction is a second person's decision). */
export function sanctionRefusal(
  what: string,
  sender: string,
  role: RepoRole,
  author: string | null,
  canWriteRole: (r: RepoRole) => boolean,
): string | null {
  if (!canWriteRole(role)) {
    return `@${sender}, ${what} needs write access to this repository; your role here is ${codeSpan(role.name)}. Nothing was allowed.`;
  }
  if (sender.toLowerCase() === author?.toLowerCase()) {
    return (
      `@${sender}, ${what} cannot come from the pull request's own author: a sanction is another maintainer's decision ` +
      '(an agent working with your token could give it too). Ask someone else with write access, or allow the path in ' +
      '`manifests.allow` on the default branch. Nothing was allowed.'
    );
  }
  return null;
}

export type TakenGrant = { ok: true; grant: SanctionGrant } | { ok: false; problem: string };

/**
 * The grant for `pattern` at the PR's head `pr.headSha`: the PR's changed files with their blobs,
 * listed, then the head looked up again, so the blobs recorded are the ones of the head the sender saw
 * (a push in between records nothing). `label` grants cover G1's build manifests.
 */
export async function takeGrant(
  host: ReviewHost,
  pr: PullRequestFacts,
  via: SanctionGrant['via'],
  by: string,
  pattern: string,
): Promise<TakenGrant> {
  const files = await host.changedFiles(pr.number);
  const now = await host.pullRequest(pr.number);
  if (now.headSha !== pr.headSha) {
    return {
      ok: false,
      problem: `The pull request moved from ${codeSpan(pr.headSha.slice(0, 7))} to ${codeSpan(now.headSha.slice(0, 7))} while the sanction was recorded, so nothing was allowed: look at the new head and ask again.`,
    };
  }
  const grant = grantFor(via, by, pr.headSha, pattern, files);
  if (grant.files.length === 0) {
    const what =
      via === 'label'
        ? 'no build manifest'
        : `no file matching ${codeSpan(pattern)} (give a path or glob of a file it changes, e.g. ${codeSpan('requirements/*.txt')})`;
    return { ok: false, problem: `This pull request changes ${what} at ${codeSpan(pr.headSha.slice(0, 7))}, so nothing was allowed.` };
  }
  return { ok: true, grant };
}

function fileList(grant: SanctionGrant): string {
  const shown = grant.files.slice(0, 20).map((f) => `${codeSpan(f.path)}${f.blob === null ? ' (deleted)' : ''}`);
  return `${shown.join(', ')}${grant.files.length > 20 ? ` and ${grant.files.length - 20} more` : ''}`;
}

/** The reply that records a grant (the caller appends its marker). */
export function grantedReply(grant: SanctionGrant): string {
  const at = codeSpan(grant.at.slice(0, 7));
  const how =
    grant.via === 'label'
      ? `The ${codeSpan(ALLOW_MANIFEST_LABEL)} label added by @${grant.by} allows the build-manifest edits of this PR as they are at ${at}`
      : `Sanctioned by @${grant.by}: the edits of these files in this PR are allowed as they are at ${at}`;
  const again =
    grant.via === 'label'
      ? 'remove the label and add it again, or comment `/slopgate allow <path>`'
      : `comment ${codeSpan(`/slopgate allow ${grant.pattern}`)} again`;
  return `${how} (G1): ${fileList(grant)}.\n\nA later push that changes one of them needs a new decision (${again}). Re-gating the head now.\n\n`;
}

/** The reply to a label added by someone who may not sanction: it allows nothing, and the report will say so. */
export function labelRefusedReply(refusal: string): string {
  return `${refusal.replace('Nothing was allowed.', `The ${codeSpan(ALLOW_MANIFEST_LABEL)} label allows nothing.`)} Re-gating the head so the check run says so.`;
}
