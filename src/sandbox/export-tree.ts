import { spawn } from 'node:child_process';
import { closeSync, constants, fchmodSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { open, symlink } from 'node:fs/promises';
import { gitBuffer, gitEnv } from '../core/git.js';
import { errorMessage, GateInfraError } from '../core/errors.js';
import { makeTreeRepo } from './tree-repo.js';
import { checkExportedTree, type ExportEntry } from './verify-export.js';
import { ChunkReader } from '../core/chunk-reader.js';

/**
 * Writes the files of one commit into `dest`, byte for byte as the commit holds them, and checks the
 * result against the commit's listing before anything runs on it.
 *
 * The blobs are read with `git ls-tree` and `git cat-file --batch` and written by slopgate itself, so
 * nothing in the commit can change what lands on disk: no `.gitattributes` (`export-ignore`,
 * `export-subst`, `ident`, `eol`, `working-tree-encoding`), no `filter=` driver from any git config
 * (git-lfs included) and no replace refs (`git archive` obeyed all of these). Executable bits and
 * symlinks are kept as the tree records them; a symlink is written as a symlink, never followed.
 * Submodules are not part of the tree under test: their path is an empty directory (as in a checkout
 * without `--recurse-submodules`), and LFS files are their pointer files.
 *
 * The result has no `.git` of the app's mirror: no remote URLs, no credential helpers, no extra headers
 * and no path back to it, so a PR's tests cannot read anything git knows ({@link exportTreeRepo} adds a
 * throwaway one-commit repository of its own). Any difference between `dest` and
 * the listing (a missing or extra file, another size or mode, a symlink pointing elsewhere) throws a
 * {@link GateInfraError}: the suite never runs on a tree that is not the commit.
 */
export async function exportTree(
  repoDir: string,
  sha: string,
  dest: string,
  given?: { entries: ExportEntry[]; withRepo: boolean },
): Promise<ExportEntry[]> {
  const entries = given?.entries ?? (await listTree(repoDir, sha));
  const short = sha.slice(0, 12);
  let links: Map<string, Buffer>;
  try {
    links = await writeEntries(repoDir, entries, dest);
  } catch (err) {
    if (err instanceof GateInfraError) throw err;
    const code = err instanceof Error && 'code' in err ? err.code : undefined;
    // What the commit itself asks for (too big for the run's tree, a name too long to write) is not the
    // machine's fault: G8 reports it as its own error, which blocks like any other.
    if (code === 'ENOSPC' || code === 'EFBIG') throw new Error(`commit ${short} does not fit in the test run's tree (tests.diskMb)`);
    if (code === 'ENAMETOOLONG') throw new Error(`commit ${short} holds a path too long to write: ${errorMessage(err)}`);
    throw treeError(short, `writing it failed: ${errorMessage(err)}`);
  }
  const problems = await checkExportedTree(dest, entries, links, { withRepo: given?.withRepo ?? false });
  if (problems.length) {
    const shown = problems.slice(0, 5).join('; ');
    throw treeError(
      short,
      `${problems.length} difference${problems.length === 1 ? '' : 's'} from git ls-tree: ${shown}${problems.length > 5 ? '; …' : ''}`,
    );
  }
  return entries;
}

/**
 * {@link exportTree}, and meanwhile the tree made a one-commit git repository of its own ({@link makeTreeRepo}),
 * for builds and tests that read git metadata. The `.git` is slopgate's, never the commit's: no commit
 * can hold a `.git` path (see checkPath), and the check of the tree ignores the top-level one.
 */
export async function exportTreeRepo(repoDir: string, sha: string, dest: string): Promise<void> {
  const entries = await listTree(repoDir, sha);
  // The repository is made from the listing alone, while the files are written: its .git is the one
  // path the export never writes and the check of the tree ignores.
  const repo = makeTreeRepo(repoDir, sha, dest, entries).catch((err: unknown) => {
    throw treeError(sha.slice(0, 12), `making it a git repository failed: ${errorMessage(err)}`);
  });
  repo.catch(() => undefined);
  try {
    await exportTree(repoDir, sha, dest, { entries, withRepo: true });
  } finally {
    await repo.catch(() => undefined);
  }
  await repo;
}

function treeError(sha: string, detail: string): GateInfraError {
  // git says "<oid> missing" when the object is not in the repository at all: a shallow, partial or
  // size-filtered clone, not a fault of the disk.
  const hint = /\b[0-9a-f]{40,64} missing\b/.test(detail)
    ? 'the repository slopgate reads lacks an object of this commit (a shallow, partial or size-filtered clone); fetch it in full and run again — this is not about the change'
    : 'this is a fault of the machine running slopgate (disk full, a process writing into its temporary directory), not of the change; run it again';
  return new GateInfraError(`the tree under test does not match commit ${sha} (${detail}); the tests were not run`, hint, 'tree');
}

/** Byte strings as latin1 JavaScript strings: one char per byte, so non-UTF-8 names survive intact. */
const bytes = (s: string) => Buffer.from(s, 'latin1');

/** `git ls-tree -r -l -z` of `sha`: every blob, symlink and submodule with its mode and size. */
export async function listTree(repoDir: string, sha: string): Promise<ExportEntry[]> {
  const out = await gitBuffer(repoDir, [
    '--no-replace-objects',
    '-c',
    'core.quotePath=false',
    'ls-tree',
    '-r',
    '-l',
    '-z',
    '--full-tree',
    sha,
  ]);
  const entries: ExportEntry[] = [];
  let pos = 0;
  while (pos < out.length) {
    const end = out.indexOf(0, pos);
    const rec = out.subarray(pos, end < 0 ? out.length : end);
    pos = end < 0 ? out.length : end + 1;
    if (rec.length === 0) continue;
    const tab = rec.indexOf(9);
    // "<mode> SP <type> SP <oid> SP+ <size>\t<path>"
    const [mode, type, oid, size] = rec.subarray(0, tab).toString('latin1').split(/ +/);
    const path = rec.subarray(tab + 1).toString('latin1');
    if (!mode || !oid || (type !== 'blob' && type !== 'commit'))
      throw treeError(sha.slice(0, 12), `unreadable ls-tree line for ${display(path)}`);
    entries.push({ path, mode, oid, size: type === 'blob' ? Number(size) : 0 });
  }
  for (const e of entries) checkPath(e.path, sha);
  return entries;
}

/** A path as people read it (invalid UTF-8 shown as U+FFFD). */
export function display(path: string): string {
  return bytes(path).toString('utf8');
}

/**
 * Refuses paths git itself would never check out: empty, `.` or `..` components and `.git` at any
 * depth. A hand-made tree object could hold them; writing one would leave `dest`.
 */
function checkPath(path: string, sha: string): void {
  const parts = path.split('/');
  if (path.startsWith('/') || parts.some((p) => p === '' || p === '.' || p === '..' || p.toLowerCase() === '.git')) {
    throw treeError(sha.slice(0, 12), `it holds a path no checkout would write: ${JSON.stringify(display(path))}`);
  }
}

function parentsOf(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/** Writes every entry under `dest`; returns the symlinks' targets (for the check). */
async function writeEntries(repoDir: string, entries: ExportEntry[], dest: string): Promise<Map<string, Buffer>> {
  const dirs = new Set<string>();
  for (const e of entries) {
    for (const d of parentsOf(e.path)) dirs.add(d);
    if (e.mode === '160000') dirs.add(e.path);
  }
  // Parents before children (sorted by length), each made once; nothing in dest is a symlink yet.
  let made = 0;
  for (const d of [...dirs].sort((a, b) => a.length - b.length)) {
    mkdirSync(bytes(`${dest}/${d}`));
    if (++made % YIELD_EVERY === 0) await yieldToLoop();
  }
  const blobs = entries.filter((e) => e.mode !== '160000');
  const links = new Map<string, Buffer>();
  let written = 0;
  await streamBlobs(repoDir, blobs, async (entry, content) => {
    if (entry.mode === '120000') {
      links.set(entry.path, Buffer.concat(await collect(content)));
      return;
    }
    const path = bytes(`${dest}/${entry.path}`);
    const mode = entry.mode === '100755' ? 0o755 : 0o644;
    if (entry.size > SMALL_FILE) {
      const fh = await open(path, CREATE_NEW, 0o600);
      try {
        for await (const chunk of content) await fh.write(chunk);
        await fh.chmod(mode);
      } finally {
        await fh.close();
      }
      return;
    }
    // Most files are small: written in one go, without four thread-pool round trips per file (together
    // about half a millisecond per file on a loaded machine, the better part of an export's time).
    const data = Buffer.concat(await collect(content));
    const fd = openSync(path, CREATE_NEW, 0o600);
    try {
      writeFileSync(fd, data);
      fchmodSync(fd, mode);
    } finally {
      closeSync(fd);
    }
    if (++written % YIELD_EVERY === 0) await yieldToLoop();
  });
  // Symlinks last: no file above was written through one of them.
  for (const [path, target] of links) await symlink(target, bytes(`${dest}/${path}`));
  return links;
}

/** O_EXCL and O_NOFOLLOW: a file is created, never reused or reached through a link. */
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** Files up to this size are written synchronously, from memory. */
const SMALL_FILE = 256 * 1024;
/** Synchronous writes give the event loop a turn this often, so a large tree never holds it for long. */
const YIELD_EVERY = 64;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const c of chunks) out.push(c);
  return out;
}

/**
 * Reads each entry's blob through one `git cat-file --batch` and hands its content to `sink` as a
 * stream of chunks, in order; a large blob is never held in memory whole. Replace refs are ignored.
 */
async function streamBlobs(
  repoDir: string,
  entries: ExportEntry[],
  sink: (entry: ExportEntry, content: AsyncIterable<Buffer>) => Promise<void>,
): Promise<void> {
  if (entries.length === 0) return;
  const child = spawn('git', ['cat-file', '--batch'], {
    cwd: repoDir,
    env: gitEnv({ GIT_NO_REPLACE_OBJECTS: '1' }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  child.stdin.on('error', () => undefined); // git gone early: reported by the exit code below
  child.stdin.end(entries.map((e) => `${e.oid}\n`).join(''));
  const reader = new ChunkReader(child.stdout[Symbol.asyncIterator]() as AsyncIterator<Buffer>);
  try {
    for (const entry of entries) {
      const header = (await reader.line()).toString('latin1');
      const m = /^([0-9a-f]+) blob (\d+)$/.exec(header);
      if (m?.[1] !== entry.oid) throw new Error(`git cat-file gave "${header.slice(0, 80)}" for ${display(entry.path)}`);
      await sink(entry, reader.take(Number(m[2])));
      if ((await reader.exact(1))[0] !== 10) throw new Error('git cat-file --batch output is out of step');
    }
  } finally {
    child.stdout.destroy();
    if (child.exitCode === null) child.kill();
  }
  const code = await exited;
  if (code !== 0 && code !== null) throw new Error(`git cat-file --batch failed (${code}): ${stderr.trim()}`);
}
