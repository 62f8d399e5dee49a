import { execFile } from 'node:child_process';
import { copyFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { git, gitEnv, gitMaybe } from '../core/git.js';
import { InputError } from '../core/errors.js';
import { makeScratchDir } from '../core/scratch.js';

/**
 * How many paths `git status` lists as changed or untracked (ignored files excluded): the work that a
 * check of the commits does not see. A bare repository (a mirror) has no working tree: 0.
 */
export async function uncommittedCount(repoDir: string): Promise<number> {
  if ((await gitMaybe(repoDir, ['rev-parse', '--is-inside-work-tree']))?.trim() !== 'true') return 0;
  const out = await git(repoDir, ['status', '--porcelain=v1', '-z', '--untracked-files=all']);
  const parts = out.split('\0');
  let n = 0;
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i]!;
    if (entry.length < 4) continue;
    n++;
    // A rename or copy is followed by its old path.
    if (/^[RC]|^.[RC]/.test(entry)) i++;
  }
  return n;
}

function gitWithIndex(repoDir: string, index: string, args: string[]): Promise<string> {
  const env = gitEnv({
    GIT_INDEX_FILE: index,
    GIT_AUTHOR_NAME: 'slopgate',
    GIT_AUTHOR_EMAIL: 'slopgate@localhost',
    GIT_COMMITTER_NAME: 'slopgate',
    GIT_COMMITTER_EMAIL: 'slopgate@localhost',
  });
  return new Promise((done, fail) => {
    execFile('git', args, { cwd: repoDir, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) fail(new InputError(`cannot snapshot the working tree: git ${args[0] ?? ''} failed: ${stderr.trim().split('\n')[0] ?? ''}`));
      else done(stdout.trim());
    });
  });
}

/**
 * A commit of the working tree as it is (tracked changes and untracked files that are not ignored) on
 * top of HEAD, made with a scratch index: the user's index, branches and files stay as they were. The
 * commit is referenced by nothing; `git gc` removes it in time.
 */
export async function snapshotWorkingTree(repoDir: string): Promise<string> {
  if ((await gitMaybe(repoDir, ['rev-parse', '--is-inside-work-tree']))?.trim() !== 'true')
    throw new InputError(
      `--working-tree: ${repoDir} has no working tree (a bare repository or a mirror)`,
      'run it in a checkout, or gate commits with --head',
    );
  const scratch = await makeScratchDir('index');
  const dir = scratch.path;
  const index = join(dir, 'index');
  try {
    const real = resolve(repoDir, (await git(repoDir, ['rev-parse', '--git-path', 'index'])).trim());
    // The real index as the start: its stat cache spares re-reading unchanged files.
    await copyFile(real, index).catch(() => undefined);
    await gitWithIndex(repoDir, index, ['add', '-A']);
    const tree = await gitWithIndex(repoDir, index, ['write-tree']);
    return await gitWithIndex(repoDir, index, ['commit-tree', tree, '-p', 'HEAD', '-m', 'slopgate: the working tree (uncommitted)']);
  } finally {
    await scratch.remove();
  }
}
