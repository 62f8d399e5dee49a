import { InputError } from './errors.js';
import { git, gitMaybe, readBlobs, GitCommandError } from './git.js';
import { parseUnifiedZeroDiff, type LineRange, inRanges } from './diff-hunks.js';
import { decodeText, type NoTextReason } from './text-content.js';

export type FileStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type-changed';

/** One side (base or head) of a changed file. */
export interface FileSide {
  oid: string | null;
  /** Git file mode: 100644, 100755, 120000 (symlink), 160000 (submodule), or null when absent. */
  mode: string | null;
  size: number;
  /** The decoded text, or null with a reason. */
  text: string | null;
  reason?: NoTextReason;
  /** For symlinks: where the link points. */
  symlinkTarget?: string;
}

export interface ChangedFile {
  /** Path at head (for deletions: the path at base). */
  path: string;
  /** Path at base when the file was renamed or copied. */
  oldPath?: string;
  status: FileStatus;
  /** Rename/copy similarity, 0–100. */
  similarity?: number;
  modeChanged: boolean;
  base: FileSide;
  head: FileSide;
  /** Line ranges added at head (head numbering). */
  added: LineRange[];
  /** Line ranges removed from base (base numbering). */
  removed: LineRange[];
}

export interface PatchSet {
  repoDir: string;
  baseRef: string;
  headRef: string;
  /** The merge-base of base and head: what the PR is compared against. */
  baseSha: string;
  headSha: string;
  /** Tree ids, for caches keyed by content. */
  baseTree: string;
  headTree: string;
  /** PR commits (baseSha..headSha), oldest first. */
  commits: string[];
  files: ChangedFile[];
}

export interface PatchSetOptions {
  /** Blobs larger than this are not read (reason `too-large`). Default 2 MiB. */
  maxTextBytes?: number;
}

export const DEFAULT_MAX_TEXT_BYTES = 2 * 1024 * 1024;

const ZERO_OID = /^0+$/;

export async function assertRepo(repoDir: string): Promise<void> {
  const inside = await gitMaybe(repoDir, ['rev-parse', '--is-inside-work-tree', '--is-bare-repository']).catch(() => null);
  if (inside === null) {
    throw new InputError(`${repoDir} is not a git repository`, 'run slopgate inside a git checkout or pass --repo DIR');
  }
}

export async function resolveCommit(repoDir: string, ref: string): Promise<string> {
  const sha = await gitMaybe(repoDir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  if (!sha) {
    throw new InputError(
      `unknown git ref '${ref}' in ${repoDir}`,
      'check the branch or commit name (fetch it first if it lives on a remote)',
    );
  }
  return sha.trim();
}

/** The default branch: origin/HEAD when known, else the first of main, master, origin/main, origin/master. */
export async function defaultBranch(repoDir: string): Promise<string> {
  const originHead = await gitMaybe(repoDir, ['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD']);
  if (originHead?.trim()) return originHead.trim();
  for (const candidate of ['main', 'master', 'origin/main', 'origin/master']) {
    const ok = await gitMaybe(repoDir, ['rev-parse', '--verify', '--quiet', `${candidate}^{commit}`]);
    if (ok) return candidate;
  }
  throw new InputError('cannot find the default branch (no origin/HEAD, main or master)', 'pass --base REF');
}

async function mergeBase(repoDir: string, base: string, head: string, baseRef: string, headRef: string): Promise<string> {
  const mb = await gitMaybe(repoDir, ['merge-base', base, head]);
  if (mb?.trim()) return mb.trim();
  const shallow = (await gitMaybe(repoDir, ['rev-parse', '--is-shallow-repository']))?.trim() === 'true';
  if (shallow) {
    throw new InputError(
      `'${baseRef}' and '${headRef}' have no common ancestor in this shallow clone`,
      'fetch more history (git fetch --unshallow, or actions/checkout with fetch-depth: 0)',
    );
  }
  throw new InputError(
    `'${baseRef}' and '${headRef}' share no history (unrelated branches)`,
    'pick a base that the head branch was created from',
  );
}

interface RawEntry {
  oldMode: string;
  newMode: string;
  oldOid: string;
  newOid: string;
  status: string;
  score?: number;
  oldPath: string;
  newPath: string;
}

function parseRaw(raw: string): RawEntry[] {
  const parts = raw.split('\0');
  const entries: RawEntry[] = [];
  let i = 0;
  while (i < parts.length) {
    const meta = parts[i++];
    if (!meta?.startsWith(':')) continue;
    const [oldMode, newMode, oldOid, newOid, statusField] = meta.slice(1).split(' ');
    const status = (statusField ?? 'M')[0]!;
    const score = statusField && statusField.length > 1 ? Number(statusField.slice(1)) : undefined;
    const first = parts[i++] ?? '';
    let second = first;
    if (status === 'R' || status === 'C') second = parts[i++] ?? '';
    entries.push({
      oldMode: oldMode ?? '',
      newMode: newMode ?? '',
      oldOid: oldOid ?? '',
      newOid: newOid ?? '',
      status,
      ...(score !== undefined ? { score } : {}),
      oldPath: first,
      newPath: second,
    });
  }
  return entries;
}

const STATUS: Record<string, FileStatus> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type-changed',
};

function makeSide(mode: string, oid: string, blobs: Map<string, { size: number; content: Buffer | null }>): FileSide {
  if (mode === '000000' || ZERO_OID.test(oid)) return { oid: null, mode: null, size: 0, text: null, reason: 'absent' };
  if (mode === '160000') return { oid, mode, size: 0, text: null, reason: 'submodule' };
  const blob = blobs.get(oid);
  const size = blob?.size ?? 0;
  if (mode === '120000') {
    const target = blob?.content?.toString('utf8') ?? '';
    return { oid, mode, size, text: null, reason: 'symlink', symlinkTarget: target };
  }
  if (!blob?.content) return { oid, mode, size, text: null, reason: 'too-large' };
  const decoded = decodeText(blob.content);
  if ('reason' in decoded) return { oid, mode, size, text: null, reason: decoded.reason };
  return { oid, mode, size, text: decoded.text };
}

/**
 * Builds the patch set of a pull request: every file that differs between the merge-base of
 * `baseRef` and `headRef`, and `headRef`, with both texts and the changed line ranges.
 */
export async function loadPatchSet(repoDir: string, baseRef: string, headRef: string, opts: PatchSetOptions = {}): Promise<PatchSet> {
  const maxBytes = opts.maxTextBytes ?? DEFAULT_MAX_TEXT_BYTES;
  // Asked side by side, and their errors reported in the order a person fixes them: the folder, the base, the head.
  const [base, head] = [resolveCommit(repoDir, baseRef), resolveCommit(repoDir, headRef)];
  base.catch(() => undefined);
  head.catch(() => undefined);
  await assertRepo(repoDir);
  const baseCommit = await base;
  const headSha = await head;
  const baseSha = await mergeBase(repoDir, baseCommit, headSha, baseRef, headRef);
  const [trees, revList] = await Promise.all([
    git(repoDir, ['rev-parse', `${baseSha}^{tree}`, `${headSha}^{tree}`]),
    git(repoDir, ['rev-list', '--reverse', `${baseSha}..${headSha}`]),
  ]);
  const [baseTree = '', headTree = ''] = trees.split('\n');
  const diffFlags = ['-M', '--no-ext-diff', '--no-textconv', '--no-color', '--ignore-submodules=none'];
  const [raw, unified] = await Promise.all([
    git(repoDir, ['-c', 'core.quotePath=false', 'diff', '--raw', '-z', '--no-abbrev', ...diffFlags, baseSha, headSha]),
    git(repoDir, ['-c', 'core.quotePath=false', 'diff', '-U0', '--src-prefix=a/', '--dst-prefix=b/', ...diffFlags, baseSha, headSha]),
  ]);
  const entries = parseRaw(raw);
  const oids: string[] = [];
  for (const e of entries) {
    if (!ZERO_OID.test(e.oldOid) && e.oldMode !== '160000') oids.push(e.oldOid);
    if (!ZERO_OID.test(e.newOid) && e.newMode !== '160000') oids.push(e.newOid);
  }
  const blobs = await readBlobs(repoDir, oids, maxBytes);
  const hunksByPath = new Map<string, { added: LineRange[]; removed: LineRange[] }>();
  for (const h of parseUnifiedZeroDiff(unified)) {
    const key = h.newPath ?? h.oldPath;
    if (key) hunksByPath.set(key, { added: h.added, removed: h.removed });
  }
  const files: ChangedFile[] = entries.map((e) => {
    const status = STATUS[e.status] ?? 'modified';
    const path = status === 'deleted' ? e.oldPath : e.newPath;
    const hunks = hunksByPath.get(path) ?? { added: [], removed: [] };
    const file: ChangedFile = {
      path,
      status,
      modeChanged: e.oldMode !== '000000' && e.newMode !== '000000' && e.oldMode !== e.newMode,
      base: makeSide(e.oldMode, e.oldOid, blobs),
      head: makeSide(e.newMode, e.newOid, blobs),
      added: hunks.added,
      removed: hunks.removed,
    };
    if (status === 'renamed' || status === 'copied') {
      file.oldPath = e.oldPath;
      if (e.score !== undefined) file.similarity = e.score;
    }
    return file;
  });
  return {
    repoDir,
    baseRef,
    headRef,
    baseSha,
    headSha,
    baseTree: baseTree.trim(),
    headTree: headTree.trim(),
    commits: revList.split('\n').filter(Boolean),
    files,
  };
}

export function isAddedLine(file: ChangedFile, line: number): boolean {
  return inRanges(file.added, line);
}

/**
 * For the given head lines of one file, the PR commit that last touched each line (lines that come
 * from the base are left out). One `git blame` per file, only for the lines asked about.
 */
export async function attributeLines(patch: PatchSet, path: string, lines: number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const unique = [...new Set(lines)].filter((l) => l > 0).sort((a, b) => a - b);
  if (unique.length === 0 || patch.commits.length === 0) return out;
  const args = ['blame', '--porcelain'];
  for (const l of unique) args.push('-L', `${l},${l}`);
  args.push(`${patch.baseSha}..${patch.headSha}`, '--', path);
  let porcelain: string;
  try {
    porcelain = await git(patch.repoDir, args);
  } catch (err) {
    if (err instanceof GitCommandError) return out; // e.g. a line beyond the end of the file
    throw err;
  }
  const prCommits = new Set(patch.commits);
  let sha = '';
  let finalLine = 0;
  for (const line of porcelain.split('\n')) {
    const header = /^([0-9a-f]{40}) \d+ (\d+)/.exec(line);
    if (header) {
      sha = header[1]!;
      finalLine = Number(header[2]);
      continue;
    }
    if (line.startsWith('\t') && prCommits.has(sha)) out.set(finalLine, sha);
  }
  return out;
}

/**
 * Added line ranges per head path (files with at least one added line), as the patch set computed
 * them: what a host needs to place review comments, without diffing the two commits again.
 */
export function addedRanges(patch: PatchSet): Map<string, LineRange[]> {
  const out = new Map<string, LineRange[]>();
  for (const f of patch.files)
    if (f.status !== 'deleted' && f.added.length)
      out.set(
        f.path,
        f.added.map((r) => ({ ...r })),
      );
  return out;
}
