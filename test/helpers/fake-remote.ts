import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestRepo, type FileContent } from './git-repo.js';

const remotes: FakeRemote[] = [];

/**
 * A local bare repository playing the GitHub remote of one repo: `main`, and per PR the refs GitHub
 * serves (refs/pull/N/head, optionally refs/pull/N/merge). PR branches are never pushed, as for a
 * fork: the mirror can only get the head through refs/pull/N/head.
 */
export class FakeRemote {
  readonly work: TestRepo;
  readonly dir: string;
  readonly baseSha: string;

  private constructor(base: Record<string, FileContent>) {
    this.work = TestRepo.create();
    this.baseSha = this.work.write(base).commit('base');
    this.dir = join(mkdtempSync(join(tmpdir(), 'slopgate-remote-')), 'remote.git');
    execFileSync('git', ['clone', '-q', '--bare', this.work.dir, this.dir]);
    // Let the mirror clone blobless and fetch single blobs, as GitHub does.
    this.bare('config', 'uploadpack.allowFilter', 'true');
    this.bare('config', 'uploadpack.allowAnySHA1InWant', 'true');
    remotes.push(this);
  }

  static create(base: Record<string, FileContent>): FakeRemote {
    return new FakeRemote(base);
  }

  get url(): string {
    return `file://${this.dir}`;
  }

  bare(...args: string[]): string {
    return execFileSync('git', args, { cwd: this.dir, encoding: 'utf8' });
  }

  /** Commits on the PR's branch (created from main on first use) and publishes refs/pull/N/head. */
  pushPr(n: number, ...commits: Record<string, FileContent>[]): string {
    const branch = `pr-${n}`;
    const exists = this.work.git('branch', '--list', branch).trim() !== '';
    this.work.checkout(exists ? branch : 'main');
    if (!exists) this.work.branch(branch);
    let sha = '';
    commits.forEach((c, i) => (sha = this.work.write(c).commit(`pr ${n} commit ${i + 1}`)));
    this.work.git('push', '-q', '--force', this.dir, `${sha}:refs/pull/${n}/head`);
    this.work.checkout('main');
    return sha;
  }

  /** Publishes a test-merge commit of the PR head into main as refs/pull/N/merge. */
  publishMerge(n: number): string {
    this.work.checkout('main');
    this.work.git('checkout', '-q', '--detach');
    this.work.git('merge', '-q', '--no-ff', '-m', `Merge pr ${n}`, `pr-${n}`);
    const sha = this.work.git('rev-parse', 'HEAD').trim();
    this.work.git('push', '-q', '--force', this.dir, `${sha}:refs/pull/${n}/merge`);
    this.work.checkout('main');
    return sha;
  }
}

export function removeFakeRemotes(): void {
  while (remotes.length) rmSync(join(remotes.pop()!.dir, '..'), { recursive: true, force: true });
}
