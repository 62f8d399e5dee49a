import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readBlobs } from '../../src/core/git.js';
import { prRepo, removeTestRepos } from '../helpers/git-repo.js';

/**
 * Blob reads share one `git cat-file --batch-command` per repository: the answers are the objects'
 * bytes, sizes over the cap are never read, a crashed process is replaced, and an idle one never
 * keeps the process that started it alive.
 */

afterAll(() => removeTestRepos());

/** Pids of `git cat-file --batch-command` processes working in `dir` (Linux /proc). */
function batchProcesses(dir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (cmd.includes('--batch-command') && readlinkSync(`/proc/${name}/cwd`) === dir) pids.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

function oidOf(dir: string, spec: string): string {
  return spawnSync('git', ['rev-parse', spec], { cwd: dir, encoding: 'utf8' }).stdout.trim();
}

describe('shared blob reads', () => {
  const repo = prRepo({ 'a.txt': 'alpha\n', 'b.bin': Buffer.from([0, 1, 2, 10, 255]), 'big.txt': 'x'.repeat(5000) });
  const a = oidOf(repo.dir, 'main:a.txt');
  const b = oidOf(repo.dir, 'main:b.bin');
  const big = oidOf(repo.dir, 'main:big.txt');
  const missing = '0123456789abcdef0123456789abcdef01234567';

  it('gives each blob its bytes and size; a blob over the cap only its size; a missing one nothing', async () => {
    const got = await readBlobs(repo.dir, [a, b, big, missing, a], 4096);
    expect(got.get(a)).toEqual({ oid: a, size: 6, content: Buffer.from('alpha\n') });
    expect(got.get(b)?.content).toEqual(Buffer.from([0, 1, 2, 10, 255]));
    expect(got.get(big)).toEqual({ oid: big, size: 5000, content: null });
    expect(got.get(missing)).toEqual({ oid: missing, size: 0, content: null });
  });

  it('reads one after another through the same process, and concurrent reads get their own answers', async () => {
    await readBlobs(repo.dir, [a], 4096);
    const before = batchProcesses(repo.dir);
    expect(before).toHaveLength(1);
    const [ra, rb, rbig] = await Promise.all([
      readBlobs(repo.dir, [a], 4096),
      readBlobs(repo.dir, [b], 4096),
      readBlobs(repo.dir, [big], 10_000),
    ]);
    expect(ra.get(a)?.content?.toString()).toBe('alpha\n');
    expect(rb.get(b)?.size).toBe(5);
    expect(rbig.get(big)?.content?.length).toBe(5000);
    expect(batchProcesses(repo.dir)).toEqual(before);
  });

  it('a process that died while idle is replaced by the next read, which does not fail', async () => {
    await readBlobs(repo.dir, [a], 4096);
    const [pid] = batchProcesses(repo.dir);
    process.kill(pid!, 'SIGKILL');
    const got = await readBlobs(repo.dir, [a], 4096);
    expect(got.get(a)?.content?.toString()).toBe('alpha\n');
    const [next] = batchProcesses(repo.dir);
    expect(next).toBeDefined();
    expect(next).not.toBe(pid);
  });

  it('an idle process does not keep a finished program waiting, and does not outlive it', () => {
    const script = `import { readBlobs } from ${JSON.stringify(new URL('../../src/core/git.ts', import.meta.url).pathname)};
const got = await readBlobs(${JSON.stringify(repo.dir)}, [${JSON.stringify(a)}], 4096);
process.stdout.write(got.get(${JSON.stringify(a)}).content.toString());`;
    // An idle time of ten minutes: a program held by its reader would run into the 120 s limit below.
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, SLOPGATE_GIT_IDLE_MS: '600000' },
    });
    expect(r.error).toBeUndefined();
    expect(r.stdout).toBe('alpha\n');
    expect(r.status).toBe(0);
  }, 150_000);
});
