import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { holdHandles } from './hold-handles.js';

/**
 * Short commands (git above all) started from a small helper process instead of from slopgate's own.
 *
 * Starting a process costs its parent in proportion to the parent's memory: Linux copies the page
 * tables on fork. A CLI run at 150 MB pays 3–4 ms of its thread per git command; the App's worker, with
 * its embedded database at 300 MB and more, 10–15 ms; a gate asks git a dozen times before its suite
 * can start and many more times in its guards. The helper (a Node process doing nothing else, about
 * 40 MB) forks in about a millisecond. It starts on first use, serves the requests of its thread one
 * message each, never keeps its parent alive, and exits when its parent goes. Until it is up, and if
 * it ever fails, commands start the ordinary way: the helper only makes them cheaper.
 *
 * Each request carries its own working folder, environment and input: the helper's own environment is
 * empty and nothing of one request reaches another.
 */

export interface ExecOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  input?: string | Buffer;
  /** stdout (and stderr) beyond this many bytes ends the command with an error, as execFile does. */
  maxBuffer: number;
}

export interface ExecResult {
  stdout: Buffer;
  stderr: Buffer;
  /** The exit status, or null when the command was killed or did not start. */
  code: number | null;
  /** Why it did not start or was stopped: an errno name (`ENOENT`) or `ERR_CHILD_PROCESS_STDIO_MAXBUFFER`. */
  error?: { code: string; message: string };
}

/** The helper's program: CommonJS, node: modules only, run with `node -e`. */
const HELPER = `
const { spawn } = require('node:child_process');
process.on('disconnect', () => process.exit(0));
process.on('message', (m) => {
  let done = false;
  const answer = (a) => { if (!done) { done = true; process.send(Object.assign({ id: m.id }, a)); } };
  let child;
  try {
    child = spawn(m.file, m.args, { cwd: m.cwd, env: m.env, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (e) {
    answer({ error: { code: String(e.code || 'EINVAL'), message: String(e.message) } });
    return;
  }
  const out = [], err = [];
  let outBytes = 0, errBytes = 0;
  const overflow = () => {
    answer({ code: null, stdout: Buffer.concat(out), stderr: Buffer.concat(err), error: { code: 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER', message: 'stdout maxBuffer length exceeded' } });
    child.kill();
  };
  child.on('error', (e) => answer({ code: null, stdout: Buffer.concat(out), stderr: Buffer.concat(err), error: { code: String(e.code || 'EIO'), message: String(e.message) } }));
  child.stdout.on('data', (c) => { outBytes += c.length; if (outBytes > m.maxBuffer) overflow(); else out.push(c); });
  child.stderr.on('data', (c) => { errBytes += c.length; if (errBytes > m.maxBuffer) overflow(); else err.push(c); });
  child.stdin.on('error', () => {});
  child.stdin.end(m.input === undefined ? undefined : Buffer.from(m.input));
  child.on('close', (code) => answer({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
});
process.send({ ready: true });
`;

interface Reply {
  ready?: true;
  id: number;
  code?: number | null;
  stdout?: Uint8Array;
  stderr?: Uint8Array;
  error?: { code: string; message: string };
}

interface Helper {
  child: ChildProcess;
  ready: boolean;
  pending: Map<number, (r: Reply | null) => void>;
}

let helper: Helper | null = null;
let nextId = 0;
/** Set when a helper could not start or died: commands then start the ordinary way for good. */
let broken = process.env.SLOPGATE_SPAWN_HELPER === 'off';

const toBuffer = (u: Uint8Array | undefined) => (u ? Buffer.from(u.buffer, u.byteOffset, u.byteLength) : Buffer.alloc(0));

/** Whether the helper's process and channel keep this process alive: only while it has work. */
function hold(h: Helper, on: boolean): void {
  holdHandles([h.child, h.child.channel], on);
}

function startHelper(): void {
  const child = spawn(process.execPath, ['-e', HELPER], {
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    serialization: 'advanced',
    env: {},
  });
  const h: Helper = { child, ready: false, pending: new Map() };
  helper = h;
  // Never what keeps this process running while it is idle (or still starting).
  hold(h, false);
  const gone = () => {
    broken = true;
    if (helper === h) helper = null;
    for (const resolve of h.pending.values()) resolve(null);
    h.pending.clear();
  };
  child.once('error', gone);
  child.once('exit', gone);
  child.on('message', (r: Reply) => {
    if (r.ready) {
      h.ready = true;
      return;
    }
    const resolve = h.pending.get(r.id);
    if (!resolve) return;
    h.pending.delete(r.id);
    if (h.pending.size === 0) hold(h, false);
    resolve(r);
  });
}

function direct(file: string, args: string[], opts: ExecOptions): Promise<ExecResult> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      { cwd: opts.cwd, env: opts.env, maxBuffer: opts.maxBuffer, encoding: 'buffer' },
      (err, stdout, stderr) => {
        if (!err) {
          resolve({ stdout, stderr, code: 0 });
          return;
        }
        const code = typeof err.code === 'number' ? err.code : null;
        resolve({
          stdout,
          stderr,
          code,
          ...(typeof err.code === 'string' ? { error: { code: err.code, message: err.message } } : {}),
        });
      },
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(opts.input);
  });
}

/** Runs `file args` to its end and returns its output, through the helper when it is up. */
export async function execBuffered(file: string, args: string[], opts: ExecOptions): Promise<ExecResult> {
  if (broken) return direct(file, args, opts);
  if (!helper) startHelper();
  const h = helper;
  // Until the helper runs, the ordinary way (its own start takes longer than one command).
  if (!h?.ready || !h.child.connected) return direct(file, args, opts);
  const id = ++nextId;
  const reply = await new Promise<Reply | null>((resolve) => {
    h.pending.set(id, resolve);
    hold(h, true);
    const input = typeof opts.input === 'string' ? Buffer.from(opts.input) : opts.input;
    try {
      h.child.send({ id, file, args, cwd: opts.cwd, env: opts.env, maxBuffer: opts.maxBuffer, ...(input ? { input } : {}) });
    } catch {
      h.pending.delete(id);
      resolve(null);
    }
  });
  // The helper went away before answering: this command runs the ordinary way (again, should the helper
  // have died after starting it; the commands sent here read, or write what is the same the second time).
  if (!reply) return direct(file, args, opts);
  return {
    stdout: toBuffer(reply.stdout),
    stderr: toBuffer(reply.stderr),
    code: reply.code ?? null,
    ...(reply.error ? { error: reply.error } : {}),
  };
}

/** The helper's process id once it serves requests (for tests and diagnostics). */
export function spawnHelperPid(): number | undefined {
  return helper?.ready ? helper.child.pid : undefined;
}
