import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** File content for {@link TestRepo.write}: text, bytes, or null to delete the file. */
export type FileContent = string | Buffer | null;

const created: TestRepo[] = [];

/** A throwaway git repository in a temp dir, for running the real pipeline on. */
export class TestRepo {
  private constructor(readonly dir: string) {}

  static create(): TestRepo {
    const dir = mkdtempSync(join(tmpdir(), 'slopgate-test-'));
    const repo = new TestRepo(dir);
    repo.git('init', '-q', '-b', 'main');
    repo.git('config', 'user.email', 'dev@example.com');
    repo.git('config', 'user.name', 'Dev');
    repo.git('config', 'commit.gpgsign', 'false');
    created.push(repo);
    return repo;
  }

  git(...args: string[]): string {
    return execFileSync('git', args, { cwd: this.dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  }

  write(files: Record<string, FileContent>): this {
    for (const [path, content] of Object.entries(files)) {
      const abs = join(this.dir, path);
      if (content === null) {
        try {
          unlinkSync(abs);
        } catch {
          // already gone
        }
        continue;
      }
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, content);
    }
    return this;
  }

  symlink(path: string, target: string): this {
    const abs = join(this.dir, path);
    mkdirSync(dirname(abs), { recursive: true });
    symlinkSync(target, abs);
    return this;
  }

  chmod(path: string, mode: number): this {
    chmodSync(join(this.dir, path), mode);
    return this;
  }

  /** Stages everything and commits; returns the new commit sha. */
  commit(message = 'change'): string {
    this.git('add', '-A');
    this.git('commit', '-q', '--allow-empty', '-m', message);
    return this.git('rev-parse', 'HEAD').trim();
  }

  branch(name: string): this {
    this.git('checkout', '-q', '-b', name);
    return this;
  }

  checkout(ref: string): this {
    this.git('checkout', '-q', ref);
    return this;
  }

  rm(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * The common shape of a test: `base` files committed on main, then a `pr` branch with one commit
 * per entry of `commits` (each a map of file changes). Returns the repo; compare `main` → `pr`.
 */
export function prRepo(base: Record<string, FileContent>, ...commits: Record<string, FileContent>[]): TestRepo {
  const repo = TestRepo.create();
  repo.write(base).commit('base');
  repo.branch('pr');
  commits.forEach((c, i) => repo.write(c).commit(`pr commit ${i + 1}`));
  return repo;
}

export function removeTestRepos(): void {
  while (created.length) created.pop()!.rm();
}
