import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

function git(cwd: string, args: string[], input?: string): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    input,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_AUTHOR_DATE: '2026-01-02T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-02T00:00:00Z' },
    maxBuffer: 256 * 1024 * 1024,
  });
}

function gitMaybe(cwd: string, args: string[]): string | null {
  try {
    return git(cwd, args);
  } catch {
    return null;
  }
}

export interface TreeEntry {
  name: string;
  path: string;
  type: 'file' | 'dir' | 'symlink' | 'submodule';
  sha: string;
  size: number;
}

/**
 * The bare repositories the stand-in serves over HTTP (`<root>/<owner>/<repo>.git`, the layout
 * `git http-backend` expects under GIT_PROJECT_ROOT). Configured like GitHub's remotes: partial
 * clones (`--filter`) and fetches of any reachable object id are allowed.
 */
export class GitRemote {
  constructor(readonly root: string) {
    mkdirSync(root, { recursive: true });
  }

  dirOf(owner: string, repo: string): string {
    return join(this.root, owner, `${repo}.git`);
  }

  /** Publishes a working repository (all its branches) as `<owner>/<repo>`. */
  create(owner: string, repo: string, sourceDir: string): string {
    const dir = this.dirOf(owner, repo);
    mkdirSync(join(this.root, owner), { recursive: true });
    git(this.root, ['clone', '--quiet', '--bare', '--no-local', sourceDir, dir]);
    git(dir, ['config', 'uploadpack.allowFilter', 'true']);
    git(dir, ['config', 'uploadpack.allowAnySHA1InWant', 'true']);
    git(dir, ['config', 'http.receivepack', 'false']);
    return dir;
  }

  /** Force-updates refs of the bare repo from a working repository (`src:dst` refspecs). */
  pushFrom(owner: string, repo: string, sourceDir: string, refspecs: string[]): void {
    git(this.dirOf(owner, repo), ['fetch', '--quiet', '--no-tags', sourceDir, ...refspecs.map((r) => (r.startsWith('+') ? r : `+${r}`))]);
  }

  revParse(owner: string, repo: string, rev: string): string | null {
    return gitMaybe(this.dirOf(owner, repo), ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`])?.trim() || null;
  }

  /**
   * Points `refs/pull/<n>/head` at `headSha` and builds `refs/pull/<n>/merge` (the test-merge
   * commit GitHub keeps); returns the merge commit, or null when the branches conflict.
   */
  setPullRefs(owner: string, repo: string, n: number, headSha: string, baseRef: string): string | null {
    const dir = this.dirOf(owner, repo);
    git(dir, ['update-ref', `refs/pull/${n}/head`, headSha]);
    const baseSha = this.revParse(owner, repo, `refs/heads/${baseRef}`)!;
    const tree = gitMaybe(dir, ['merge-tree', '--write-tree', baseSha, headSha])?.split('\n')[0]?.trim();
    if (!tree) {
      gitMaybe(dir, ['update-ref', '-d', `refs/pull/${n}/merge`]);
      return null;
    }
    const merge = git(dir, ['commit-tree', tree, '-p', baseSha, '-p', headSha, '-m', `Merge ${headSha} into ${baseSha}`]).trim();
    git(dir, ['update-ref', `refs/pull/${n}/merge`, merge]);
    return merge;
  }

  /**
   * What a merge queue builds: `headSha` merged onto `baseSha` (the base branch's tip, or the entry ahead)
   * as a new commit on the branch `ref`; returns the commit, or null when the two conflict.
   */
  mergeGroup(owner: string, repo: string, baseSha: string, headSha: string, ref: string, message: string): string | null {
    const dir = this.dirOf(owner, repo);
    const tree = gitMaybe(dir, ['merge-tree', '--write-tree', baseSha, headSha])?.split('\n')[0]?.trim();
    if (!tree) return null;
    const commit = git(dir, ['commit-tree', tree, '-p', baseSha, '-p', headSha, '-m', message]).trim();
    git(dir, ['update-ref', `refs/heads/${ref}`, commit]);
    return commit;
  }

  mergeBase(owner: string, repo: string, a: string, b: string): string {
    return git(this.dirOf(owner, repo), ['merge-base', a, b]).trim();
  }

  /** A tree entry (file or directory) at `ref`, or null. */
  entry(owner: string, repo: string, ref: string, path: string): TreeEntry | null {
    const clean = path.replace(/^\/+|\/+$/g, '');
    if (!clean) return { name: '', path: '', type: 'dir', sha: '', size: 0 };
    const out = gitMaybe(this.dirOf(owner, repo), ['ls-tree', '--long', '-z', '--full-tree', ref, '--', clean]);
    if (!out) return null;
    return parseLsTree(out).find((e) => e.path === clean) ?? null;
  }

  list(owner: string, repo: string, ref: string, path: string): TreeEntry[] {
    const clean = path.replace(/^\/+|\/+$/g, '');
    const out = gitMaybe(this.dirOf(owner, repo), ['ls-tree', '--long', '-z', '--full-tree', ref, '--', clean ? `${clean}/` : '.']);
    return out ? parseLsTree(out) : [];
  }

  readBlob(owner: string, repo: string, sha: string): Buffer {
    return execFileSync('git', ['cat-file', 'blob', sha], { cwd: this.dirOf(owner, repo), maxBuffer: 256 * 1024 * 1024 });
  }

  /** `git diff` between two commits (unified, 3 lines of context like GitHub's). */
  diff(owner: string, repo: string, from: string, to: string, extra: string[] = []): string {
    return git(this.dirOf(owner, repo), ['-c', 'core.quotePath=false', 'diff', '--no-color', '--no-ext-diff', '-M', ...extra, from, to]);
  }
}

function parseLsTree(out: string): TreeEntry[] {
  return out
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf('\t');
      const [mode, kind, sha, size] = line.slice(0, tab).split(/\s+/) as [string, string, string, string];
      const path = line.slice(tab + 1);
      const type: TreeEntry['type'] = kind === 'tree' ? 'dir' : kind === 'commit' ? 'submodule' : mode === '120000' ? 'symlink' : 'file';
      return { name: path.split('/').pop()!, path, type, sha, size: size === '-' ? 0 : Number(size) };
    });
}

/** New-side (RIGHT) and old-side (LEFT) line numbers that a unified diff shows, per file. */
export function diffLines(diff: string): Map<string, { right: Set<number>; left: Set<number>; added: Set<number> }> {
  const files = new Map<string, { right: Set<number>; left: Set<number>; added: Set<number> }>();
  let cur: { right: Set<number>; left: Set<number>; added: Set<number> } | null = null;
  let inHeader = false;
  let oldLine = 0;
  let newLine = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      cur = null;
      inHeader = true;
      continue;
    }
    if (inHeader && line.startsWith('+++ ')) {
      const path = line.slice(4).replace(/^b\//, '');
      cur = { right: new Set(), left: new Set(), added: new Set() };
      if (path !== '/dev/null') files.set(path, cur);
      continue;
    }
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      inHeader = false;
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      continue;
    }
    if (!cur || inHeader || line.startsWith('\\')) continue;
    if (line.startsWith('+')) {
      cur.right.add(newLine);
      cur.added.add(newLine++);
    } else if (line.startsWith('-')) cur.left.add(oldLine++);
    else if (line.startsWith(' ')) {
      cur.right.add(newLine++);
      cur.left.add(oldLine++);
    }
  }
  return files;
}
