import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { git } from '../core/git.js';
import { execBuffered } from '../core/spawn-helper.js';
import type { ExportEntry } from './verify-export.js';

/**
 * Builds, setups and tests often read git: Maven's buildnumber and git-commit-id plugins, setuptools-scm,
 * hatch-vcs, a `git describe` in a build script. On a plain exported tree they stop ("not a git
 * repository") before any test runs. {@link makeTreeRepo} turns the exported tree into a throwaway git
 * repository of its own, holding one commit whose tree is the commit's tree:
 *
 * - no history of the real repository (one root commit, no tags, no other refs), no remote, no
 *   credential helper, no hooks (slopgate writes the skeleton itself, without a hooks directory), no host config (system
 *   and global config are off for every git command here; inside the sandbox {@link SANDBOX_GIT_CONFIG}
 *   is the only config besides the repository's own);
 * - the commit's author and committer are fixed (`slopgate`), its dates are the real commit's, and its
 *   message names the real commit, so `git log -1 --format=%cd` and version schemes based on it agree;
 * - cheap: the index is written from the `git ls-tree` listing the export already read, and the tree
 *   objects from it (`write-tree --missing-ok`), so no file is read or compressed again and the tree's
 *   id is the real commit's tree id. Blobs are not copied: `git rev-parse HEAD`, `describe`, `status`,
 *   `ls-files` and `diff` between the work tree and HEAD work, while `git show HEAD:file` (which
 *   nothing in a build needs: the file is on disk) does not.
 */
export async function makeTreeRepo(repoDir: string, sha: string, dest: string, entries: ExportEntry[]): Promise<void> {
  // The repository's skeleton is written directly (what `git init --template=` writes, minus the
  // description): a git process less on the critical path of every run.
  const gitDir = join(dest, '.git');
  await mkdir(join(gitDir, 'objects'), { recursive: true });
  await mkdir(join(gitDir, 'refs', 'heads'), { recursive: true });
  await mkdir(join(gitDir, 'refs', 'tags'));
  await writeFile(join(gitDir, 'HEAD'), 'ref: refs/heads/main\n');
  await writeFile(join(gitDir, 'config'), REPO_CONFIG);
  const env = treeRepoEnv(dest, {});
  const index = Buffer.concat(entries.map((e) => Buffer.from(`${e.mode} ${e.oid}\t${e.path}\0`, 'latin1')));
  const [dates, tree] = await Promise.all([
    git(repoDir, ['show', '-s', '--format=%ad%n%cd', '--date=raw', sha]),
    run(['update-index', '-z', '--index-info'], env, index).then(() => run(['write-tree', '--missing-ok'], env)),
  ]);
  const [authorDate = '', committerDate = ''] = dates.trim().split('\n');
  const commitEnv = treeRepoEnv(dest, {
    GIT_AUTHOR_NAME: 'slopgate',
    GIT_AUTHOR_EMAIL: 'slopgate@localhost',
    GIT_AUTHOR_DATE: authorDate,
    GIT_COMMITTER_NAME: 'slopgate',
    GIT_COMMITTER_EMAIL: 'slopgate@localhost',
    GIT_COMMITTER_DATE: committerDate,
  });
  const commit = (await run(['commit-tree', tree.trim(), '-m', `tree of ${sha} (slopgate test run: no history)`], commitEnv)).trim();
  if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new Error(`git commit-tree gave "${commit.slice(0, 80)}"`);
  await writeFile(join(gitDir, 'refs', 'heads', 'main'), `${commit}\n`);
  // The index has no stat data yet (as after `read-tree`): git (and JGit) then compare each file's
  // content with its id the first time something asks, inside the run, and only when a build reads git.
  // Refreshing it here would hash every file on every run (about +150 ms per 800 files).
}

/** The repository's whole config: nothing that runs a program, reaches a host or rewrites a file. */
const REPO_CONFIG = `[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
\tlogallrefupdates = false
[gc]
\tauto = 0
`;

/**
 * The global git config of a sandboxed run (`$HOME/.gitconfig` in its private home): an identity for a
 * build that commits, and `safe.directory` so that git accepts the tree whatever user the sandbox maps.
 */
export const SANDBOX_GIT_CONFIG = `[user]
\tname = slopgate
\temail = slopgate@localhost
[safe]
\tdirectory = *
[advice]
\tdetachedHead = false
`;

/** Writes {@link SANDBOX_GIT_CONFIG} into a run's private home. */
export async function writeSandboxGitConfig(home: string): Promise<void> {
  await writeFile(join(home, '.gitconfig'), SANDBOX_GIT_CONFIG);
}

function treeRepoEnv(dest: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'LANG', 'TZ']) if (process.env[name]) env[name] = process.env[name];
  return {
    ...env,
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_DIR: join(dest, '.git'),
    GIT_WORK_TREE: dest,
    ...extra,
  };
}

async function run(args: string[], env: NodeJS.ProcessEnv, input?: Buffer): Promise<string> {
  const r = await execBuffered('git', args, { cwd: env.GIT_WORK_TREE ?? '/', env, maxBuffer: 16 << 20, ...(input ? { input } : {}) });
  if (r.code !== 0)
    throw new Error(
      `git ${args[0] ?? ''} in the tree under test failed: ${r.stderr.toString('utf8').trim() || (r.error?.message ?? `exit ${String(r.code)}`)}`,
    );
  return r.stdout.toString('utf8');
}
