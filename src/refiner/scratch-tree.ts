import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { gitEnv } from '../core/git.js';
import type { FileContent } from './types.js';
import { makeScratchDir } from '../core/scratch.js';

/**
 * Candidate trees without a work tree: every patch set becomes a commit made with plumbing (blobs via
 * `hash-object -w`, a private index seeded from the head, `write-tree`, `commit-tree`). The real
 * pipeline can then gate base..candidate like any PR, the user's checkout is never touched, and
 * "revert" is simply forgetting the candidate (the objects are unreferenced and gc'd by git).
 */

function run(cwd: string, args: string[], env: Record<string, string>, input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', args, { cwd, env: gitEnv(env), maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`git ${args[0]} failed: ${stderr.trim().split('\n')[0] ?? err.message}`));
      else resolve(stdout);
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/**
 * A fixed identity for candidate commits, so their ids are reproducible and no user config is needed.
 * The date is the parent's: a candidate is as old as the head it fixes, so the dependency install
 * resolves the same versions for both (an old date would ask the registry for versions of that day).
 */
const IDENTITY = {
  GIT_AUTHOR_NAME: 'slopgate refiner',
  GIT_AUTHOR_EMAIL: 'refiner@slopgate.invalid',
  GIT_COMMITTER_NAME: 'slopgate refiner',
  GIT_COMMITTER_EMAIL: 'refiner@slopgate.invalid',
};

/** The file mode of `path` in `commit`, or null when it is absent. */
async function modeOf(repoDir: string, commit: string, path: string): Promise<string | null> {
  const out = await run(repoDir, ['ls-tree', '-z', commit, '--', path], {});
  const entry = out.split('\0').find((e) => e.endsWith(`\t${path}`));
  return entry ? entry.split(' ')[0]! : null;
}

/**
 * Makes a commit whose parent is `parent` and whose tree is the parent's with `files` replaced (or
 * added as regular files). Symlinks and submodules are never overwritten: the caller's fence already
 * refuses them, and this keeps the promise.
 */
export async function commitCandidate(repoDir: string, parent: string, files: readonly FileContent[], message: string): Promise<string> {
  const scratch = await makeScratchDir('refine-index');
  const dir = scratch.path;
  const env = { GIT_INDEX_FILE: join(dir, 'index') };
  try {
    await run(repoDir, ['read-tree', parent], env);
    for (const f of files) {
      const mode = (await modeOf(repoDir, parent, f.path)) ?? '100644';
      if (mode !== '100644' && mode !== '100755') throw new Error(`'${f.path}' is not a regular file at the head (mode ${mode})`);
      const oid = (await run(repoDir, ['hash-object', '-w', '--stdin'], {}, f.content)).trim();
      await run(repoDir, ['update-index', '--add', '--cacheinfo', `${mode},${oid},${f.path}`], env);
    }
    const tree = (await run(repoDir, ['write-tree'], env)).trim();
    const date = (await run(repoDir, ['log', '-1', '--format=%cI', parent], {})).trim();
    const identity = { ...IDENTITY, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
    return (await run(repoDir, ['commit-tree', tree, '-p', parent, '-F', '-'], identity, message)).trim();
  } finally {
    await scratch.remove();
  }
}

/** Unified diff of `from`..`to` (the patch the refiner proposes), limited to `paths` when given. */
export async function unifiedDiff(repoDir: string, from: string, to: string, paths: readonly string[] = []): Promise<string> {
  return run(repoDir, ['diff', '--no-color', '--no-ext-diff', from, to, '--', ...paths], {});
}

/** Text of the regular file `path` at `rev`, or null when absent, a symlink or a submodule. */
export async function readRegularAt(repoDir: string, rev: string, path: string): Promise<string | null> {
  const mode = await modeOf(repoDir, rev, path).catch(() => null);
  return mode === '100644' || mode === '100755' ? readAt(repoDir, rev, path) : null;
}

/** Text of `path` at `rev`, or null when absent (or not a blob). */
export async function readAt(repoDir: string, rev: string, path: string): Promise<string | null> {
  try {
    return await run(repoDir, ['cat-file', 'blob', `${rev}:${path}`], {});
  } catch {
    return null;
  }
}

/** True when `path` exists at `rev` (any file type). */
export async function existsAt(repoDir: string, rev: string, path: string): Promise<boolean> {
  const out = await run(repoDir, ['ls-tree', '-z', rev, '--', path], {}).catch(() => '');
  return out.split('\0').some((e) => e.endsWith(`\t${path}`));
}
