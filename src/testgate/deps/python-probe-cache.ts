import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';

/**
 * The answers of the interpreter probes (version, prefix, venv support, executable), kept on the
 * machine between runs: every CLI run probed each Python on the machine again (ten processes, pyenv's
 * shim alone a second of shell start-up), before the suite could start.
 *
 * An answer is kept only where what it depends on is files that can be checked: a binary (its device,
 * inode, size and times), or one of pyenv's shims (the shim's text, PATH, and the version file that
 * picks its interpreter: the nearest `.python-version` above the working directory, else pyenv's global
 * `version`). Any other script is probed every time, and so is an interpreter whose probe failed.
 * Before a kept answer is used, the interpreter it names and its standard library folder must still
 * be the files that were probed; otherwise the interpreter is probed again.
 */

interface ProbedPython {
  path: string;
  version: string;
  prefix: string;
  venv: boolean;
}

const FILE_VERSION = 1;

const entrySchema = z.object({
  key: z.string(),
  check: z.string(),
  answer: z.object({ path: z.string(), version: z.string(), prefix: z.string(), venv: z.boolean() }),
});
const fileSchema = z.object({ v: z.literal(FILE_VERSION), entries: z.record(z.string(), entrySchema) });
type Entry = z.infer<typeof entrySchema>;

function identity(path: string): string | null {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch {
    return null;
  }
}

function isElf(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function textOf(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The version file pyenv reads from `cwd`: the nearest `.python-version` above it, else `<root>/version`. */
function pyenvVersionFile(root: string, cwd: string): { path: string; text: string | null } {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const text = textOf(join(dir, '.python-version'));
    if (text !== null) return { path: join(dir, '.python-version'), text };
    if (dirname(dir) === dir) break;
  }
  return { path: join(root, 'version'), text: textOf(join(root, 'version')) };
}

/**
 * What the probe of `candidate` (whose real path is `real`) depends on, or null when that cannot be
 * told from files (a script other than a pyenv shim): then it is not kept.
 */
export function probeKey(candidate: string, real: string, env: { PATH?: string }, cwd = process.cwd()): string | null {
  const id = identity(real);
  if (!id) return null;
  const parts: unknown[] = [candidate, real, id];
  if (!isElf(real)) {
    const text = textOf(real);
    if (basename(dirname(real)) !== 'shims' || !text?.includes('pyenv')) return null;
    parts.push(text, env.PATH ?? '', pyenvVersionFile(dirname(dirname(real)), cwd));
  }
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** The files a kept answer stands for: the interpreter it names and its standard library folder. */
function answerCheck(p: ProbedPython): string | null {
  const exe = identity(p.path);
  const minor = /^(\d+\.\d+)/.exec(p.version)?.[1];
  if (!exe || !minor) return null;
  return `${exe} ${identity(join(p.prefix, 'lib', `python${minor}`)) ?? 'none'}`;
}

export class PythonProbeCache {
  private changed = false;

  private constructor(
    private readonly file: string | null,
    private readonly entries: Record<string, Entry>,
  ) {}

  /** `file` null: nothing is kept (every interpreter is probed). A missing or unreadable file is an empty cache. */
  static async open(file: string | null): Promise<PythonProbeCache> {
    if (!file) return new PythonProbeCache(null, {});
    try {
      const parsed = fileSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
      return new PythonProbeCache(file, parsed.success ? parsed.data.entries : {});
    } catch {
      return new PythonProbeCache(file, {});
    }
  }

  /** The kept answer for `candidate`, if it was probed with this key and still names the same files. */
  get(candidate: string, key: string | null): ProbedPython | null {
    const e = key ? this.entries[candidate] : undefined;
    if (e?.key !== key || answerCheck(e.answer) !== e.check) return null;
    return e.answer;
  }

  set(candidate: string, key: string | null, answer: ProbedPython): void {
    const check = answerCheck(answer);
    if (!this.file || !key || !check) return;
    this.entries[candidate] = { key, check, answer };
    this.changed = true;
  }

  /** Writes the file when something new was probed (atomically; a failure only means probing again next time). */
  async save(): Promise<void> {
    if (!this.file || !this.changed) return;
    const tmp = `${this.file}.${process.pid}.tmp`;
    try {
      await mkdir(dirname(this.file), { recursive: true });
      await writeFile(tmp, JSON.stringify({ v: FILE_VERSION, entries: this.entries }), { mode: 0o644 });
      await rename(tmp, this.file);
      this.changed = false;
    } catch {
      // Not kept: the next run probes again.
    }
  }
}
