import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import picomatch from 'picomatch';
import { gitMaybe } from '../core/git.js';
import { MANIFEST_GLOBS } from '../guards/g1-manifest-safety/path-rules.js';
import { codeSpan } from '../report/markdown-escape.js';
import { ALLOW_MANIFEST_LABEL } from './labels.js';
import type { ChangedFileRef, ReviewHost } from './review-host.js';

/**
 * G1 sanctions given on the PR: `/slopgate allow <path>` and the `slopgate:allow-manifest` label. A
 * sanction approves what the maintainer saw: the content (blob) of each matching file the PR changed,
 * at the head of that moment. It is recorded in a hidden marker of slopgate's own reply,
 * `<!-- slopgate:grant:<payload, base64url>.<mac> -->`, whose payload names who gave it, how, at which
 * head, and each approved path with its blob. The MAC is an HMAC-SHA256 over the repository, the PR
 * number and the payload, keyed by a key derived from a secret of the App (its private key or webhook
 * secret) under a label of its own, so the key is never the secret itself. A marker that reaches a
 * comment of the App any other way (quoted by `/slopgate explain`, echoed in an error) has no valid
 * MAC, and one copied from another PR does not verify for this one.
 *
 * At gate time every approved path whose blob at the head is still the approved one is sanctioned; a
 * file that changed since needs a new decision, and the report says the sanction lapsed.
 */
const GRANT_MARKER_RE = /<!-- slopgate:grant:([A-Za-z0-9_-]{1,60000})\.([A-Za-z0-9_-]{22,64}) -->/g;
/** Markers of the first format (a path, valid for any content): recognised only to say they no longer count. */
const LEGACY_MARKER_RE = /<!-- slopgate:allow:([A-Za-z0-9_-]{1,2048})\.([A-Za-z0-9_-]{22,64}) -->/g;
const KEY_LABEL = 'slopgate sanction marker v1';
const MAC_CHARS = 32;
/** At most this many files in one grant (a label on a PR that edits hundreds of manifests lists the first ones). */
const MAX_GRANT_FILES = 300;

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

/** One approved file: its path at the head and its blob then (null: the PR deletes it). */
export interface GrantedFile {
  path: string;
  blob: string | null;
}

/** A sanction as given: by whom, how, at which head, for what pattern, and the files it approved. */
export interface SanctionGrant {
  via: 'allow' | 'label';
  by: string;
  /** The PR's head when it was given. */
  at: string;
  /** The path or glob of `/slopgate allow`, or the label's name. */
  pattern: string;
  files: GrantedFile[];
}

function mac(key: Buffer, scope: SanctionScope, payload: string, version: 'v1' | 'v2'): string {
  const subject = `${scope.owner.toLowerCase()}/${scope.repo.toLowerCase()}#${scope.number}\n${payload}`;
  // v2 is domain-separated from v1, so no first-format marker can verify as a grant.
  return createHmac('sha256', key)
    .update(version === 'v1' ? subject : `grant\n${subject}`)
    .digest('base64url')
    .slice(0, MAC_CHARS);
}

function verifies(key: Buffer, scope: SanctionScope, payload: string, got: string, version: 'v1' | 'v2'): boolean {
  const want = Buffer.from(mac(key, scope, payload, version));
  const have = Buffer.from(got);
  return have.length === want.length && timingSafeEqual(have, want);
}

/** The hidden marker of a grant in slopgate's reply: the durable, signed record without a store. */
export function grantMarker(grant: SanctionGrant, key: Buffer, scope: SanctionScope): string {
  const payload = Buffer.from(JSON.stringify(grant), 'utf8').toString('base64url');
  return `<!-- slopgate:grant:${payload}.${mac(key, scope, payload, 'v2')} -->`;
}

function isGrant(v: unknown): v is SanctionGrant {
  if (typeof v !== 'object' || v === null) return false;
  const g = v as Record<string, unknown>; // checked field by field below
  return (
    (g.via === 'allow' || g.via === 'label') &&
    typeof g.by === 'string' &&
    typeof g.at === 'string' &&
    typeof g.pattern === 'string' &&
    Array.isArray(g.files) &&
    g.files.every(
      (f: unknown) =>
        typeof f === 'object' &&
        f !== null &&
        typeof (f as GrantedFile).path === 'string' && // cast: the shape is being checked here
        (typeof (f as GrantedFile).blob === 'string' || (f as GrantedFile).blob === null),
    )
  );
}

/**
 * The grants of the markers in `body` whose MAC verifies for this PR (forged or foreign markers are
 * ignored), and the paths of verified first-format markers (which no longer sanction anything).
 */
export function grantsIn(
  body: string | null | undefined,
  key: Buffer,
  scope: SanctionScope,
): { grants: SanctionGrant[]; legacy: string[] } {
  const grants: SanctionGrant[] = [];
  const legacy: string[] = [];
  for (const m of (body ?? '').matchAll(GRANT_MARKER_RE)) {
    if (!verifies(key, scope, m[1]!, m[2]!, 'v2')) continue;
    try {
      const parsed: unknown = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8'));
      if (isGrant(parsed)) grants.push(parsed);
    } catch {
      // a verified marker always parses; anything else is ignored
    }
  }
  for (const m of (body ?? '').matchAll(LEGACY_MARKER_RE)) {
    const path = Buffer.from(m[1]!, 'base64url').toString('utf8');
    if (verifies(key, scope, path, m[2]!, 'v1')) legacy.push(path);
  }
  return { grants, legacy };
}

/** The first-format marker (a path for any content): only tests still write it, to check it no longer counts. */
export function legacyAllowMarker(path: string, key: Buffer, scope: SanctionScope): string {
  return `<!-- slopgate:allow:${Buffer.from(path, 'utf8').toString('base64url')}.${mac(key, scope, path, 'v1')} -->`;
}

/**
 * The grants recorded on this PR, read back from slopgate's own replies. Only comments this App wrote
 * count (the host says which: on GitHub, `performed_via_github_app`), and only markers whose MAC
 * verifies, so neither a pasted marker nor one the App was tricked into quoting is a sanction.
 */
export async function commentGrants(
  host: ReviewHost,
  issueNumber: number,
  key: Buffer,
): Promise<{ grants: SanctionGrant[]; legacy: string[] }> {
  const comments = await host.listIssueComments(issueNumber);
  const scope = { ...host.target, number: issueNumber };
  const grants: SanctionGrant[] = [];
  const legacy: string[] = [];
  for (const c of comments) {
    if (!c.authorIsBot || !c.byThisApp) continue;
    const found = grantsIn(c.body, key, scope);
    grants.push(...found.grants);
    legacy.push(...found.legacy);
  }
  return { grants, legacy };
}

/**
 * The grant for `pattern` over the files the PR changes at `at`: each file whose path (or former path)
 * matches, with its blob at the head. `label` grants match G1's build manifests only.
 */
export function grantFor(
  via: SanctionGrant['via'],
  by: string,
  at: string,
  pattern: string,
  changed: readonly ChangedFileRef[],
): SanctionGrant {
  const globs = via === 'label' ? [...MANIFEST_GLOBS] : [pattern];
  const matches = picomatch(globs, { dot: true });
  const files = changed
    .filter((f) => matches(f.path) || (f.previousPath !== undefined && matches(f.previousPath)))
    .slice(0, MAX_GRANT_FILES)
    // A file without a blob (a submodule, say) cannot be bound to its content: it is not approved.
    .flatMap((f): GrantedFile[] =>
      f.status === 'removed' ? [{ path: f.path, blob: null }] : f.blob ? [{ path: f.path, blob: f.blob }] : [],
    );
  return { via, by, at, pattern, files };
}

/** A path as a picomatch glob that matches exactly that path. */
export function exactGlob(path: string): string {
  return path.replace(/[\\*?[\]{}()!+@,^$|]/g, (c) => `\\${c}`);
}

/** The blob of `path` in `commit` of `repoDir`, or null when the path is absent (trees suffice: no blob is read). */
async function blobAt(repoDir: string, commit: string, path: string): Promise<string | null> {
  const out = await gitMaybe(repoDir, ['--literal-pathspecs', 'ls-tree', '-z', '--full-tree', commit, '--', path]);
  const entry = (out ?? '').split('\0').find((e) => e.endsWith(`\t${path}`));
  return entry?.split(/\s+/)[2] ?? null;
}

export interface BoundSanctions {
  /** Exact-path globs of the files sanctioned at this head. */
  globs: string[];
  /** What the report says about the sanctions of this PR: which apply, which lapsed, which are ignored. */
  notes: string[];
}

const short = (sha: string) => sha.slice(0, 7);

function givenBy(g: SanctionGrant): string {
  return g.via === 'label'
    ? `the ${codeSpan(ALLOW_MANIFEST_LABEL)} label added by @${g.by}`
    : `${codeSpan(`/slopgate allow ${g.pattern}`)} by @${g.by}`;
}

/**
 * Binds the PR's grants to its head: a granted file is sanctioned while its blob at `headSha` is the
 * one approved; otherwise the grant lapsed for it. Label grants count only while the label is on the
 * PR. A label with no grant of its own (added by someone without write access, or before the file
 * changed) is named as ignored; so are first-format markers.
 */
export async function bindSanctions(input: {
  grants: readonly SanctionGrant[];
  legacy: readonly string[];
  labels: readonly string[];
  repoDir: string;
  headSha: string;
}): Promise<BoundSanctions> {
  const labelOn = input.labels.includes(ALLOW_MANIFEST_LABEL);
  const current = new Map<string, Promise<string | null>>();
  const blobOf = (path: string) => {
    let p = current.get(path);
    if (!p) current.set(path, (p = blobAt(input.repoDir, input.headSha, path)));
    return p;
  };
  const applied = new Map<string, SanctionGrant>();
  const lapsed = new Map<string, SanctionGrant>();
  let labelGrants = 0;
  for (const g of input.grants) {
    if (g.via === 'label') {
      if (!labelOn) continue;
      labelGrants++;
    }
    for (const f of g.files) {
      if ((await blobOf(f.path)) === f.blob) applied.set(f.path, g);
      else lapsed.set(f.path, g);
    }
  }
  const notes: string[] = [];
  for (const [path, g] of applied)
    notes.push(`${codeSpan(path)} is allowed by ${givenBy(g)} at ${codeSpan(short(g.at))}, unchanged since.`);
  for (const [path, g] of lapsed) {
    if (applied.has(path)) continue;
    notes.push(
      `The allow for ${codeSpan(path)} given at ${codeSpan(short(g.at))} (${givenBy(g)}) lapsed: the file changed since. ` +
        'A maintainer has to allow it again for this content.',
    );
  }
  if (labelOn && labelGrants === 0) {
    notes.push(
      `The ${codeSpan(ALLOW_MANIFEST_LABEL)} label is on this PR but allows nothing: no one with write access added it ` +
        '(a label added by someone without write access, such as the triage role, is ignored). A maintainer can remove it and add it again.',
    );
  }
  for (const path of new Set(input.legacy)) {
    if (applied.has(path)) continue;
    notes.push(
      `The allow for ${codeSpan(path)} was given before sanctions were bound to the file's content and no longer applies: allow it again.`,
    );
  }
  return { globs: [...applied.keys()].map(exactGlob), notes };
}

/** The sanctions of a PR at `headSha` (checked out in `repoDir`): its grants, bound to the content there. */
export async function prSanctions(
  host: ReviewHost,
  pr: { number: number; labels: readonly string[] },
  key: Buffer,
  repoDir: string,
  headSha: string,
): Promise<BoundSanctions> {
  const { grants, legacy } = await commentGrants(host, pr.number, key);
  return bindSanctions({ grants, legacy, labels: pr.labels, repoDir, headSha });
}
