import { lstat, readdir, readlink } from 'node:fs/promises';

/** One entry of `git ls-tree -r -l`: paths are latin1 strings (one char per byte, so any name survives). */
export interface ExportEntry {
  path: string;
  /** 100644, 100755, 120000 (symlink) or 160000 (submodule). */
  mode: string;
  oid: string;
  /** Blob size in bytes (a symlink's: the length of its target); 0 for a submodule. */
  size: number;
}

const bytes = (s: string) => Buffer.from(s, 'latin1');
const shown = (s: string) => JSON.stringify(bytes(s).toString('utf8'));

interface Found {
  kind: 'file' | 'dir' | 'symlink' | 'other';
  size: number;
  executable: boolean;
  target?: Buffer;
}

/** `skipRepo`: the top-level `.git` directory is not walked (slopgate's own, possibly still being written). */
async function walk(root: string, rel: string, out: Map<string, Found>, skipRepo = false): Promise<void> {
  const names = await readdir(bytes(rel ? `${root}/${rel}` : root), { encoding: 'buffer' });
  for (const name of names) {
    const path = rel ? `${rel}/${name.toString('latin1')}` : name.toString('latin1');
    const abs = bytes(`${root}/${path}`);
    const st = await lstat(abs);
    if (skipRepo && path === '.git' && st.isDirectory()) continue;
    if (st.isSymbolicLink()) {
      out.set(path, { kind: 'symlink', size: st.size, executable: false, target: await readlink(abs, { encoding: 'buffer' }) });
    } else if (st.isDirectory()) {
      out.set(path, { kind: 'dir', size: 0, executable: false });
      await walk(root, path, out);
    } else {
      out.set(path, { kind: st.isFile() ? 'file' : 'other', size: st.size, executable: (st.mode & 0o111) !== 0 });
    }
  }
}

/**
 * Compares what is on disk under `dest` with the commit's listing: every blob a regular file of its
 * size and executable bit, every symlink a symlink with the same target, every submodule an empty
 * directory, and nothing else — no extra file, symlink or directory. Returns the differences, one
 * line each (empty: the tree is the commit). With `withRepo`, the top-level `.git` directory that
 * exportTreeRepo adds is slopgate's own and not compared (no commit can hold a `.git` path).
 */
export async function checkExportedTree(
  dest: string,
  entries: ExportEntry[],
  linkTargets?: ReadonlyMap<string, Buffer>,
  opts: { withRepo?: boolean } = {},
): Promise<string[]> {
  const found = new Map<string, Found>();
  await walk(dest, '', found, opts.withRepo);
  const problems: string[] = [];
  const expectedDirs = new Set<string>();
  for (const e of entries) {
    const parts = e.path.split('/');
    for (let i = 1; i < parts.length; i++) expectedDirs.add(parts.slice(0, i).join('/'));
  }
  for (const e of entries) {
    const f = found.get(e.path);
    found.delete(e.path);
    const name = shown(e.path);
    if (!f) {
      problems.push(`${name} is missing`);
      continue;
    }
    if (e.mode === '160000') {
      if (f.kind !== 'dir') problems.push(`${name} (a submodule) is not an empty directory`);
      continue;
    }
    if (e.mode === '120000') {
      if (f.kind !== 'symlink') problems.push(`${name} should be a symlink, is a ${f.kind}`);
      else if (f.size !== e.size) problems.push(`${name} points elsewhere (target of ${f.size} bytes, not ${e.size})`);
      else if (f.target && linkTargets?.get(e.path)?.equals(f.target) === false) problems.push(`${name} points elsewhere`);
      continue;
    }
    if (f.kind !== 'file') {
      problems.push(`${name} should be a regular file, is a ${f.kind}`);
      continue;
    }
    if (f.size !== e.size) problems.push(`${name} has ${f.size} bytes, the commit ${e.size}`);
    if (f.executable !== (e.mode === '100755'))
      problems.push(`${name} is ${f.executable ? '' : 'not '}executable (mode ${e.mode} in the commit)`);
  }
  for (const [path, f] of found) {
    if (f.kind === 'dir' && expectedDirs.has(path)) continue;
    // Inside a submodule's directory nothing may appear either.
    problems.push(`${shown(path)} is not in the commit (an extra ${f.kind})`);
  }
  return problems.sort();
}
