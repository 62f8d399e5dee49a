import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { randomUUID } from 'node:crypto';
import { runGit, type GitCredentials } from './git-auth.js';

/** A repository: `owner` is its namespace, which may be nested (`group/sub`) on hosts that have subgroups. */
export interface RepoRef {
  owner: string;
  repo: string;
}

/** Builds the clone URL of a repository (injectable: tests point it at a local path). */
export type RemoteUrlBuilder = (ref: RepoRef) => string;

/** `https://github.com/o/r.git`, or the GitHub Enterprise host when GHE_HOST is set. Never carries a token. */
export function githubRemoteUrl(env: NodeJS.ProcessEnv = process.env): RemoteUrlBuilder {
  const host = env.GHE_HOST ? `${env.GHE_PROTOCOL || 'https'}://${env.GHE_HOST}` : 'https://github.com';
  return ({ owner, repo }) => `${host}/${owner.split('/').map(encodeURIComponent).join('/')}/${encodeURIComponent(repo)}.git`;
}

const NAME = /^[A-Za-z0-9._-]{1,100}$/;

function checkName(kind: string, value: string): string {
  if (!NAME.test(value) || value === '.' || value === '..') throw new Error(`refusing to use ${kind} name '${value}' as a directory`);
  return value;
}

/** Serialises work per key inside this process (clone and fetch of one mirror never overlap). */
class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}

export interface MirrorOptions {
  /** Directory holding one bare mirror per repository. */
  root: string;
  remoteUrl: RemoteUrlBuilder;
  /** Per git command. */
  timeoutMs?: number;
}

/**
 * The whole config of a mirror, written by slopgate before every command that talks to the remote.
 * Nothing else's edits survive (a `remote.origin.url=ext::…`, hooks, helpers, an old GHE host): the
 * URL is the one slopgate computes at that moment.
 */
export function mirrorConfig(url: string): string {
  if (/[\n\r"\\]/.test(url)) throw new Error('refusing a remote URL with newlines, quotes or backslashes');
  return [
    '[core]',
    '\trepositoryformatversion = 1',
    '\tfilemode = true',
    '\tbare = true',
    '[remote "origin"]',
    `\turl = ${url}`,
    '\tpromisor = true',
    '\tpartialclonefilter = blob:none',
    '[extensions]',
    '\tpartialclone = origin',
    '',
  ].join('\n');
}

/**
 * One bare, blobless mirror per repository (`git clone --bare --filter=blob:none`). Blobs arrive on
 * demand: {@link prefetchBlobs} pulls exactly the ones a job needs, in one batched, authenticated fetch.
 */
export class RepoMirrors {
  private readonly lock = new KeyedMutex();

  constructor(readonly opts: MirrorOptions) {}

  dirOf(ref: RepoRef): string {
    // A nested namespace (`group/sub`) is one directory per level, each level checked like a name.
    const namespace = ref.owner.split('/').map((level) => checkName('owner', level));
    return join(this.opts.root, ...namespace, `${checkName('repository', ref.repo)}.git`);
  }

  /** Runs `fn` while holding this repository's lock. */
  withLock<T>(ref: RepoRef, fn: (dir: string) => Promise<T>): Promise<T> {
    const dir = this.dirOf(ref);
    return this.lock.run(dir, () => fn(dir));
  }

  /** Clones the mirror when it is missing (into a temp dir, then renamed, so a crash leaves no half clone). */
  async ensure(ref: RepoRef, creds?: GitCredentials): Promise<string> {
    const dir = this.dirOf(ref);
    if (await exists(join(dir, 'HEAD'))) return dir;
    const parent = join(this.opts.root, ref.owner);
    await mkdir(parent, { recursive: true });
    const tmp = join(parent, `.${ref.repo}.${randomUUID()}.tmp`);
    try {
      const url = this.opts.remoteUrl(ref);
      await runGit(parent, ['clone', '--quiet', '--bare', '--filter=blob:none', '--no-tags', '--', url, tmp], this.gitOpts(creds, url));
      await writeFile(join(tmp, 'config'), mirrorConfig(url));
      await rm(join(tmp, 'hooks'), { recursive: true, force: true });
      await rename(tmp, dir);
    } catch (err) {
      await rm(tmp, { recursive: true, force: true });
      if (await exists(join(dir, 'HEAD'))) return dir; // another process won the race
      throw err;
    }
    return dir;
  }

  /** Fetches refspecs into the mirror (forced, no tags); the mirror is cloned first when missing. */
  async fetch(ref: RepoRef, refspecs: string[], creds?: GitCredentials): Promise<string> {
    const dir = await this.ensure(ref, creds);
    const url = await this.resetConfig(dir, ref);
    await runGit(
      dir,
      ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--filter=blob:none', 'origin', ...refspecs],
      this.gitOpts(creds, url),
    );
    return dir;
  }

  /** Like {@link fetch} but returns false instead of throwing (for refs that may not exist, such as refs/pull/N/merge). */
  async tryFetch(ref: RepoRef, refspecs: string[], creds?: GitCredentials): Promise<boolean> {
    try {
      await this.fetch(ref, refspecs, creds);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Downloads, in one request, every blob missing from the trees of `tips` and from the commits
   * between `range.from` and `range.to`, so later reads of those revisions never need the network.
   */
  async prefetchBlobs(dir: string, tips: string[], range: { from: string; to: string } | null, creds?: GitCredentials): Promise<number> {
    const lists = await Promise.all([
      runGit(dir, ['rev-list', '--objects', '--missing=print', '--no-walk', ...tips], this.gitOpts()),
      range ? runGit(dir, ['rev-list', '--objects', '--missing=print', range.to, `^${range.from}`], this.gitOpts()) : Promise.resolve(''),
    ]);
    const missing = new Set<string>();
    for (const out of lists) for (const line of out.split('\n')) if (line.startsWith('?')) missing.add(line.slice(1).trim());
    if (missing.size === 0) return 0;
    const url = await this.resetConfig(dir, this.refOf(dir));
    await runGit(
      dir,
      [
        '-c',
        'fetch.negotiationAlgorithm=noop',
        'fetch',
        '--quiet',
        '--no-tags',
        '--no-write-fetch-head',
        '--recurse-submodules=no',
        '--filter=blob:none',
        '--stdin',
        'origin',
      ],
      { ...this.gitOpts(creds, url), input: [...missing].join('\n') + '\n' },
    );
    return missing.size;
  }

  async remove(ref: RepoRef): Promise<void> {
    await this.withLock(ref, (dir) => rm(dir, { recursive: true, force: true }));
  }

  /** The repository a mirror dir belongs to (the inverse of {@link dirOf}). */
  refOf(dir: string): RepoRef {
    const parts = relative(this.opts.root, dir).split(sep);
    const [owner, repoGit] = parts;
    if (parts.length !== 2 || !owner || !repoGit?.endsWith('.git')) throw new Error(`not a mirror of ${this.opts.root}: ${dir}`);
    const ref = { owner, repo: repoGit.slice(0, -4) };
    if (this.dirOf(ref) !== join(this.opts.root, owner, repoGit)) throw new Error(`not a mirror of ${this.opts.root}: ${dir}`);
    return ref;
  }

  /** Rewrites the mirror's config with the URL computed now; returns that URL. */
  private async resetConfig(dir: string, ref: RepoRef): Promise<string> {
    const url = this.opts.remoteUrl(ref);
    await writeFile(join(dir, 'config'), mirrorConfig(url));
    return url;
  }

  private gitOpts(creds?: GitCredentials, remoteUrl?: string) {
    return {
      ...(creds ? { creds } : {}),
      ...(remoteUrl ? { remoteUrl } : {}),
      ...(this.opts.timeoutMs ? { timeoutMs: this.opts.timeoutMs } : {}),
    };
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
