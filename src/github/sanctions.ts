import type { GitHubClient, RepoTarget } from './check-run.js';
import { MANIFEST_GLOBS } from '../guards/g1-path-rules.js';
import { ALLOW_MANIFEST_LABEL } from './labels.js';

const ALLOW_MARKER_RE = /<!-- slopgate:allow:([A-Za-z0-9_-]+) -->/g;

/** Hidden marker in slopgate's reply to an accepted `/slopgate allow`: the durable record without a store. */
export function allowMarker(path: string): string {
  return `<!-- slopgate:allow:${Buffer.from(path, 'utf8').toString('base64url')} -->`;
}

export function allowedPathsIn(body: string | null | undefined): string[] {
  const out: string[] = [];
  for (const m of (body ?? '').matchAll(ALLOW_MARKER_RE)) out.push(Buffer.from(m[1]!, 'base64url').toString('utf8'));
  return out;
}

/** The `slopgate:allow-manifest` label sanctions every build manifest G1 knows (G1's own list). */
export function labelSanctions(labels: string[]): string[] {
  return labels.includes(ALLOW_MANIFEST_LABEL) ? [...MANIFEST_GLOBS] : [];
}

/**
 * Paths sanctioned by `/slopgate allow` on this PR, read back from slopgate's own replies. Only
 * comments made by this App count (GitHub sets `performed_via_github_app`), so nobody can forge a
 * sanction by pasting the marker into a comment or the PR description.
 */
export async function commentSanctions(gh: GitHubClient, target: RepoTarget, issueNumber: number, appId: number): Promise<string[]> {
  const comments = await gh.paginate(gh.rest.issues.listComments, { ...target, issue_number: issueNumber, per_page: 100 });
  const out = new Set<string>();
  for (const c of comments) {
    if (c.user?.type !== 'Bot' || c.performed_via_github_app?.id !== appId) continue;
    for (const p of allowedPathsIn(c.body)) out.add(p);
  }
  return [...out];
}
