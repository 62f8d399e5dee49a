import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { ChunkReader } from './chunk-reader.js';
import { holdHandles } from './hold-handles.js';

/**
 * One long-lived `git cat-file --batch-command` per repository (and per thread), which every blob read
 * of a run shares: starting a git process costs the calling thread several milliseconds, and a gate
 * reads files dozens of times before its test suite can start. Sizes are asked first (`info`), so a
 * blob over the cap is never read. Requests go one at a time; the process ends when it has had none
 * for a moment, never keeps the process that started it alive, and a failed one is replaced by the
 * next request. A git without `--batch-command` (before 2.36) gets `null`, and the caller reads the
 * old way.
 */

export interface BatchBlob {
  size: number;
  /** Null when the object is missing, is not a blob, or is over the size cap. */
  content: Buffer | null;
}

/** How long an idle process is kept for the next request (SLOPGATE_GIT_IDLE_MS overrides it, for tests). */
const IDLE_MS = Number(process.env.SLOPGATE_GIT_IDLE_MS) || 2000;

class BatchProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly reader: ChunkReader;
  private stderr = '';
  private timer: NodeJS.Timeout | undefined;
  dead = false;

  constructor(cwd: string, env: NodeJS.ProcessEnv, onGone: (p: BatchProcess) => void) {
    this.child = spawn('git', ['cat-file', '--batch-command'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (c: Buffer) => (this.stderr = (this.stderr + c.toString()).slice(-2000)));
    this.child.stdin.on('error', () => undefined); // reported by the read that fails
    this.child.once('error', () => (this.dead = true));
    this.child.once('close', () => {
      this.dead = true;
      onGone(this);
    });
    // A plain async iterator, not a ChunkReader's own: the stream stays open for the next request.
    this.reader = new ChunkReader(this.child.stdout[Symbol.asyncIterator]() as AsyncIterator<Buffer>);
    this.idle();
  }

  /** Whatever git said on stderr, for an error. */
  said(): string {
    return this.stderr.trim();
  }

  /** Whether the process and its pipes keep this one alive. */
  private hold(on: boolean): void {
    holdHandles([this.child, this.child.stdin, this.child.stdout, this.child.stderr], on);
  }

  private idle(): void {
    this.hold(false);
    this.timer = setTimeout(() => this.close(), IDLE_MS);
    this.timer.unref();
  }

  close(): void {
    clearTimeout(this.timer);
    this.dead = true;
    this.child.stdin.end();
  }

  async read(oids: readonly string[], maxBytes: number): Promise<Map<string, BatchBlob>> {
    clearTimeout(this.timer);
    this.hold(true);
    try {
      const out = new Map<string, BatchBlob>();
      this.child.stdin.write(oids.map((o) => `info ${o}\n`).join(''));
      const wanted: string[] = [];
      for (const oid of oids) {
        const [got = '', type, size] = (await this.reader.line()).toString('latin1').split(' ');
        if (got !== oid) throw new Error(`git cat-file answered "${got.slice(0, 80)}" for ${oid}`);
        if (type === 'missing' || size === undefined) {
          out.set(oid, { size: 0, content: null });
          continue;
        }
        out.set(oid, { size: Number(size), content: null });
        if (type === 'blob' && Number(size) <= maxBytes) wanted.push(oid);
      }
      if (wanted.length) this.child.stdin.write(wanted.map((o) => `contents ${o}\n`).join(''));
      for (const oid of wanted) {
        const [got = '', , size] = (await this.reader.line()).toString('latin1').split(' ');
        if (got !== oid) throw new Error(`git cat-file answered "${got.slice(0, 80)}" for ${oid}`);
        const content = await this.reader.exact(Number(size));
        // A copy: the reader's buffer is shared with the bytes that follow.
        out.set(oid, { size: Number(size), content: Buffer.from(content) });
        if ((await this.reader.exact(1))[0] !== 10) throw new Error('git cat-file output is out of step');
      }
      this.idle();
      return out;
    } catch (err) {
      this.close();
      throw err;
    }
  }
}

const processes = new Map<string, BatchProcess>();
/** Set once a git rejects `--batch-command`: every later read goes the old way. */
let unsupported = false;
/** Requests per repository, one after another. */
const queues = new Map<string, Promise<unknown>>();

/**
 * Reads `oids` (each once) through the repository's shared process; null when this git has no
 * `--batch-command`. Throws when git fails (the object database is unreadable, git is gone).
 */
export function readBatch(
  cwd: string,
  env: NodeJS.ProcessEnv,
  oids: readonly string[],
  maxBytes: number,
): Promise<Map<string, BatchBlob> | null> {
  const previous = queues.get(cwd) ?? Promise.resolve();
  const attempt = async (fresh: boolean): Promise<Map<string, BatchBlob> | null> => {
    if (unsupported) return null;
    const known = processes.get(cwd);
    const reused = known !== undefined && !known.dead && !fresh;
    const p = reused ? known : new BatchProcess(cwd, env, (gone) => processes.get(cwd) === gone && processes.delete(cwd));
    processes.set(cwd, p);
    try {
      return await p.read(oids, maxBytes);
    } catch (err) {
      processes.delete(cwd);
      if (/batch-command|usage: git cat-file/i.test(p.said())) {
        unsupported = true;
        return null;
      }
      // An idle process can have gone away (killed, out of memory) before this one knew: once more, anew.
      if (reused) return attempt(true);
      throw new Error(`git cat-file --batch-command failed: ${p.said() || (err instanceof Error ? err.message : String(err))}`);
    }
  };
  const next = previous.catch(() => undefined).then(() => attempt(false));
  queues.set(cwd, next);
  // The queue is emptied once this request is the last one.
  void next
    .finally(() => {
      if (queues.get(cwd) === next) queues.delete(cwd);
    })
    .catch(() => undefined);
  return next;
}
