import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ReviewHost } from './review-host.js';
import { MANIFEST_GLOBS } from '../guards/g1-manifest-safety/path-rules.js';
import { ALLOW_MANIFEST_LABEL } from './labels.js';

/**
 * `/slopgate allow <path>` sanctions live in a hidden marker of slopgate's own reply:
 * `<!-- slopgate:allow:<path, base64url>.<mac> -->`. The MAC is an HMAC-SHA256 over the repository,
 * the PR number and the path, keyed by a key derived from a secret of the App (its private key or
 * webhook secret) under a label of its own, so the key is never the secret itself. A marker that
 * reaches a comment of the App any other way (quoted by `/slopgate explain`, echoed in an error) has
 * no valid MAC, and a marker copied from another PR does not verify for this one.
 */
const ALLOW_MARKER_RE = /<!-- slopgate:allow:([A-Za-z0-9_-]{1,2048})\.([A-Za-z0-9_-]{22,64}) -->/g;
const KEY_LABEL = 'slopgate sanction marker v1';
const MAC_CHARS = 32;

/** Derives the marker key from an App secret (domain-separated: the key signs nothing else). */
export function deriveSanctionKey(secret: string | Buffer): Buffer {
  return createHmac('sha256', secret).update(KEY_LABEL).digest();
}

/**
 * The key from the App's environment: the private key (PRIVATE_KEY or PRIVATE_KEY_PATH, which the App
 * and `slopgate worker` both have), else WEBHOOK_SECRET. Without either (tests, a misconfigured
 * process) a random per-process key: sanctions then hold until the process restarts.
 */
export function sanctionKeyFromEnv(env: NodeJS.ProcessEnv = process.env): Buffer {
  let secret = env.PRIVATE_KEY?.trim();
  if (!secret && env.PRIVATE_KEY_PATH?.trim()) {
    try {
      secret = readFileSync(env.PRIVATE_KEY_PATH.trim(), 'utf8').trim();
    } catch {
      secret = undefined;
    }
  }
  secret ||= env.WEBHOOK_SECRET?.trim();
  return deriveSanctionKey(secret || randomBytes(32));
}

export interface SanctionScope {
  owner: string;
  repo: string;
  number: number;
}

function mac(key: Buffer, scope: SanctionScope, path: string): string {
  const h = createHmac('sha256', key)
    .update(`${scope.owner.toLowerCase()}/${scope.repo.toLowerCase()}#${scope.number}\n${path}`)
    .digest('base64url');
  return h.slice(0, MAC_CHARS);
}

/** Hidden marker in slopgate's reply to an accepted `/slopgate allow`: the durable, signed record without a store. */
export function allowMarker(path: string, key: Buffer, scope: SanctionScope): string {
  return `<!-- slopgate:allow:${Buffer.from(path, 'utf8').toString('base64url')}.${mac(key, scope, path)} -->`;
}

/** Paths of the markers in `body` whose MAC verifies for this PR; forged or foreign markers are ignored. */
export function allowedPathsIn(body: string | null | undefined, key: Buffer, scope: SanctionScope): string[] {
  const out: string[] = [];
  for (const m of (body ?? '').matchAll(ALLOW_MARKER_RE)) {
    const path = Buffer.from(m[1]!, 'base64url').toString('utf8');
    const want = Buffer.from(mac(key, scope, path));
    const got = Buffer.from(m[2]!);
    if (got.length === want.length && timingSafeEqual(got, want)) out.push(path);
  }
  return out;
}

/** The `slopgate:allow-manifest` label sanctions every build manifest G1 knows (G1's own list). */
export function labelSanctions(labels: string[]): string[] {
  return labels.includes(ALLOW_MANIFEST_LABEL) ? [...MANIFEST_GLOBS] : [];
}

/**
 * Paths sanctioned by `/slopgate allow` on this PR, read back from slopgate's own replies. Only
 * comments this App wrote count (the host says which: on GitHub, `performed_via_github_app`), and only
 * markers whose MAC verifies, so neither a pasted marker nor one the App was tricked into quoting is a sanction.
 */
export async function commentSanctions(host: ReviewHost, issueNumber: number, key: Buffer): Promise<string[]> {
  const comments = await host.listIssueComments(issueNumber);
  const out = new Set<string>();
  const scope = { ...host.target, number: issueNumber };
  for (const c of comments) {
    if (!c.authorIsBot || !c.byThisApp) continue;
    for (const p of allowedPathsIn(c.body, key, scope)) out.add(p);
  }
  return [...out];
}
