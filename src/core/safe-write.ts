import { constants } from 'node:fs';
import { open, rm } from 'node:fs/promises';

/**
 * Writes into folders where a link may have been planted (a folder a sandboxed command could write,
 * or one next to it) without following it: the file is created anew (O_CREAT | O_EXCL, which never
 * follows a symlink in the last component, dangling or not), after whatever stood at its path was
 * removed (removing a symlink removes the link, never its target). A hard link there is removed the
 * same way, so its other name keeps its content. The folder itself must be one slopgate made.
 */

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

export async function writeNewFile(path: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  await rm(path, { force: true });
  const fh = await open(path, CREATE, mode);
  try {
    await fh.writeFile(data);
  } finally {
    await fh.close();
  }
}

const TOUCH = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Sets a marker file's times to now, creating it if absent; never through a symlink, never anything but a regular file. */
export async function touchFile(path: string, mode = 0o600): Promise<void> {
  let fh;
  try {
    fh = await open(path, TOUCH, mode);
  } catch (err) {
    // cast: a Node error carries an errno-style code
    if ((err as NodeJS.ErrnoException).code !== 'ELOOP') throw err;
    await writeNewFile(path, '', mode);
    return;
  }
  try {
    if (!(await fh.stat()).isFile()) throw new Error(`${path} is not a regular file`);
    const now = new Date();
    await fh.utimes(now, now);
  } finally {
    await fh.close();
  }
}
