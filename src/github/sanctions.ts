import type { GitHubClient, RepoTarget } from './check-run.js';
import { ALLOW_MANIFEST_LABEL } from './labels.js';

/** Build manifests (DESIGN §5, G1) a `slopgate:allow-manifest` label sanctions, anywhere in the tree. */
export const MANIFEST_GLOBS = [
  'go.mod',
  'Cargo.toml',
  'pyproject.toml',
  'setup.py',
  'setup.cfg',
  'requirements*.txt',
  'package.json',
  'Gemfile',
  'composer.json',
  'build.gradle',
  'build.gradle.kts',
  'pom.xml',
].flatMap((name) => [name, `**/${name}`]);

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

export function labelSanctions(labels: string[]): string[] {
  return labels.includes(ALLOW_MANIFEST_LABEL) ? MANIFEST_GLOBS : [];
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
