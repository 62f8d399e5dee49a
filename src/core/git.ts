import { spawn } from 'node:child_process';
import { readBatch } from './blob-reader.js';
import { InputError } from './errors.js';
import { execBuffered } from './spawn-helper.js';

const MAX_BUFFER = 512 * 1024 * 1024;

export class GitCommandError extends Error {
  constructor(
    readonly args: string[],
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed (${code}): ${stderr.trim().split('\n')[0] ?? ''}`);
    this.name = 'GitCommandError';
  }
}

/**
 * `git diff -U0 -M from to` as slopgate reads it: no external diff or textconv driver of the repository, no
 * colour, paths unquoted, a/ and b/ prefixes whatever the user's config says.
 */
export function zeroContextDiffArgs(from: string, to: string): string[] {
  return [
    '-c',
    'core.quotePath=false',
    'diff',
    '-U0',
    '-M',
    '--no-ext-diff',
    '--no-textconv',
    '--no-color',
    '--src-prefix=a/',
    '--dst-prefix=b/',
    from,
    to,
  ];
}

/** Environment for git child processes: no pager, no prompts, no user/system config surprises. */
export function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
    ...extra,
  };
}

/** Runs git in `cwd` and returns stdout as a Buffer (started through the spawn helper, see spawn-helper.ts). */
export async function gitBuffer(cwd: string, args: string[], input?: string): Promise<Buffer> {
  const r = await execBuffered('git', args, { cwd, env: gitEnv(), maxBuffer: MAX_BUFFER, ...(input !== undefined ? { input } : {}) });
  if (r.error?.code === 'ENOENT') throw new InputError(`cannot run git in ${cwd}: ${r.error.message}`);
  if (r.code !== 0) throw new GitCommandError(args, r.code, r.stderr.toString('utf8'));
  return r.stdout;
}

export async function git(cwd: string, args: string[], input?: string): Promise<string> {
  return (await gitBuffer(cwd, args, input)).toString('utf8');
}

/** Like {@link git} but returns null instead of throwing when git exits non-zero. */
export async function gitMaybe(cwd: string, args: string[]): Promise<string | null> {
  try {
    return await git(cwd, args);
  } catch (err) {
    if (err instanceof GitCommandError) return null;
    throw err;
  }
}

export interface BlobReadResult {
  oid: string;
  size: number;
  /** Missing object, or a size over the cap (content not read). */
  content: Buffer | null;
}

/**
 * Reads many blobs: through the repository's shared `git cat-file --batch-command` (blob-reader.ts), or
 * with a git too old for it through one `--batch-check` and one `--batch` process. Sizes are checked
 * first so that huge blobs are never loaded into memory.
 */
export async function readBlobs(cwd: string, oids: string[], maxBytes: number): Promise<Map<string, BlobReadResult>> {
  const result = new Map<string, BlobReadResult>();
  const unique = [...new Set(oids)];
  if (unique.length === 0) return result;
  const shared = await readBatch(cwd, gitEnv(), unique, maxBytes);
  if (shared) {
    for (const [oid, b] of shared) result.set(oid, { oid, size: b.size, content: b.content });
    return result;
  }
  const check = await git(cwd, ['cat-file', '--batch-check'], unique.join('\n') + '\n');
  const wanted: string[] = [];
  for (const line of check.split('\n')) {
    if (!line) continue;
    const [oid, type, size] = line.split(' ');
    if (!oid) continue;
    if (type === 'missing' || size === undefined) {
      result.set(oid, { oid, size: 0, content: null });
      continue;
    }
    const bytes = Number(size);
    result.set(oid, { oid, size: bytes, content: null });
    if (bytes <= maxBytes) wanted.push(oid);
  }
  if (wanted.length === 0) return result;
  const out = await catFileBatch(cwd, wanted);
  let pos = 0;
  while (pos < out.length) {
    const nl = out.indexOf(0x0a, pos);
    if (nl < 0) break;
    const header = out.subarray(pos, nl).toString('utf8').split(' ');
    const oid = header[0] ?? '';
    if (header[1] === 'missing') {
      pos = nl + 1;
      continue;
    }
    const size = Number(header[2]);
    const content = out.subarray(nl + 1, nl + 1 + size);
    result.set(oid, { oid, size, content: Buffer.from(content) });
    pos = nl + 1 + size + 1; // trailing LF after each object
  }
  return result;
}

function catFileBatch(cwd: string, oids: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['cat-file', '--batch'], { cwd, env: gitEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new GitCommandError(['cat-file', '--batch'], code, stderr));
      else resolve(Buffer.concat(chunks));
    });
    child.stdin.end(oids.join('\n') + '\n');
  });
}
