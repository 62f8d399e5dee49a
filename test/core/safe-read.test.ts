import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCappedText, readHeadSync, UnsafeFileError } from '../../src/core/safe-read.js';

describe('safe-read: files someone else controls', () => {
  const dir = mkdtempSync(join(tmpdir(), 'slopgate-safe-read-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const secret = join(dir, 'secret.txt');
  writeFileSync(secret, 'host secret\n');
  const link = join(dir, 'link.txt');
  symlinkSync(secret, link);
  const fifo = join(dir, 'results.fifo');
  execFileSync('mkfifo', [fifo]);
  const big = join(dir, 'big.txt');
  writeFileSync(big, 'x'.repeat(5000));

  it('never follows a symlink, never blocks on a FIFO, and refuses a file over the cap', async () => {
    await expect(readCappedText(link)).rejects.toMatchObject({ why: 'symlink' });
    await expect(readCappedText(fifo)).rejects.toMatchObject({ why: 'not-regular' });
    await expect(readCappedText(big, 100)).rejects.toBeInstanceOf(UnsafeFileError);
    expect(await readCappedText(secret)).toBe('host secret\n');
  });

  it('the synchronous head read: no symlink, nothing from a FIFO, at most maxBytes', () => {
    expect(() => readHeadSync(link, 100)).toThrow();
    expect(readHeadSync(fifo, 100)).toBe('');
    expect(readHeadSync(big, 100)).toHaveLength(100);
  });
});
