import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * Reads a file that someone else controls (a results file a test run wrote, a file of a PR's tree)
 * without trusting it: the last path component is not followed if it is a symlink (O_NOFOLLOW), the
 * open does not block on a FIFO or a device (O_NONBLOCK), the descriptor must be a regular file
 * (checked with fstat on what was opened, so there is no race between check and read), and at most
 * `maxBytes` are read, whatever the file claims its size is.
 */

/** Default cap for a test run's results file (JUnit XML, JSON report, JSON lines). */
export const RESULTS_FILE_CAP = 64 * 1024 * 1024;

export class UnsafeFileError extends Error {
  constructor(
    readonly path: string,
    readonly why: 'symlink' | 'not-regular' | 'too-large',
    detail: string,
  ) {
    super(`${path}: ${detail}`);
    this.name = 'UnsafeFileError';
  }
}

const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** The bytes of a regular file, at most `maxBytes` of them; throws {@link UnsafeFileError} otherwise. */
export async function readCappedBytes(path: string, maxBytes: number): Promise<Buffer> {
  let fh;
  try {
    fh = await open(path, FLAGS);
  } catch (err) {
    // cast: I/O boundary: a Node error carries an errno-style code
    if ((err as NodeJS.ErrnoException).code === 'ELOOP')
      throw new UnsafeFileError(path, 'symlink', 'is a symbolic link; it is not followed');
    throw err;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile())
      throw new UnsafeFileError(path, 'not-regular', 'is not a regular file (a FIFO, socket, device or directory); it is not read');
    if (st.size > maxBytes) throw new UnsafeFileError(path, 'too-large', `is ${st.size} bytes, more than the ${maxBytes}-byte cap`);
    // The size can change after fstat (the file is still being written): read until the cap, no further.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const want = Math.min(1 << 20, maxBytes + 1 - total);
      if (want <= 0) break;
      const buf = Buffer.allocUnsafe(want);
      const { bytesRead } = await fh.read(buf, 0, want, null);
      if (bytesRead === 0) break;
      chunks.push(buf.subarray(0, bytesRead));
      total += bytesRead;
    }
    if (total > maxBytes) throw new UnsafeFileError(path, 'too-large', `grew past the ${maxBytes}-byte cap while being read`);
    return Buffer.concat(chunks, total);
  } finally {
    await fh.close();
  }
}

/** {@link readCappedBytes} decoded as UTF-8. */
export async function readCappedText(path: string, maxBytes = RESULTS_FILE_CAP): Promise<string> {
  return (await readCappedBytes(path, maxBytes)).toString('utf8');
}

/** {@link readCappedText}, or null when the file is absent or unsafe (reported through `onUnsafe`). */
export async function readCappedTextOr(
  path: string,
  maxBytes = RESULTS_FILE_CAP,
  onUnsafe?: (err: UnsafeFileError) => void,
): Promise<string | null> {
  try {
    return await readCappedText(path, maxBytes);
  } catch (err) {
    if (err instanceof UnsafeFileError) onUnsafe?.(err);
    return null;
  }
}

/**
 * The first `maxBytes` of a regular file as UTF-8, synchronously, with the same flags (no symlink, no
 * blocking on a FIFO); '' when it is not a regular file. For callbacks that cannot await.
 */
export function readHeadSync(path: string, maxBytes: number): string {
  const fd = openSync(path, FLAGS);
  try {
    if (!fstatSync(fd).isFile()) return '';
    const buf = Buffer.alloc(maxBytes);
    return buf.subarray(0, readSync(fd, buf, 0, maxBytes, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
