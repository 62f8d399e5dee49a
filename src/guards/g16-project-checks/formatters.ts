import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeScratchDir } from '../../core/scratch.js';

/**
 * The formatters G16 runs outside the sandbox, on one file's text through stdin: gofmt and rustfmt.
 * Both only parse and print the text; neither executes, expands or builds anything of the project
 * (rustfmt does not expand macros, run build scripts or read Cargo.toml when it reads stdin). The
 * only project input besides the text is rustfmt's configuration, read from the base tree and
 * passed as a file. They start in an empty private directory with a minimal environment, so no
 * `rust-toolchain.toml` or rustfmt.toml of anyone else's can take part.
 */

export type FormatterId = 'gofmt' | 'rustfmt';

export interface FormatterSpec {
  id: FormatterId;
  /** rustfmt: the crate's edition (Cargo.toml), as `cargo fmt` passes it; null: rustfmt's config or default. */
  edition?: string | null;
  /** rustfmt: the text of the project's rustfmt.toml at the base, or null for the defaults. */
  config?: string | null;
  /** rustfmt: the installed rustup toolchain of the project's pin (RUSTUP_TOOLCHAIN). */
  rustupToolchain?: string;
  /** gofmt: the binary of the project's pinned Go, instead of the one on PATH. */
  gofmtPath?: string;
}

export type FormatOutcome =
  | { kind: 'formatted'; text: string }
  /** The tool could not parse the text: a syntax error, G2's business, not a formatting one. */
  | { kind: 'unparsable'; detail: string }
  /** The tool is missing, crashed or ran out of time: nothing can be said about the code. */
  | { kind: 'tool-failed'; cause: string; missing?: boolean };

const TIMEOUT_MS = 20_000;
const MAX_OUTPUT = 8 * 1024 * 1024;

/** The variables a toolchain launcher needs (rustup's proxies find their toolchain through them). */
function toolEnv(rustupToolchain?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { LC_ALL: 'C', ...(rustupToolchain ? { RUSTUP_TOOLCHAIN: rustupToolchain } : {}) };
  for (const k of ['PATH', 'HOME', 'GOROOT', 'CARGO_HOME', 'RUSTUP_HOME']) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  return env;
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  missing: boolean;
  timedOut: boolean;
}

function run(cmd: string, args: string[], input: string, cwd: string, signal?: AbortSignal, rustupToolchain?: string): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd,
      env: toolEnv(rustupToolchain),
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: TIMEOUT_MS,
      ...(signal ? { signal } : {}),
    });
    const out: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_OUTPUT) out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
    });
    child.stdin.on('error', () => undefined); // a tool that exits early closes its stdin
    child.stdin.end(input);
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ABORT_ERR') timedOut = true;
      resolve({ code: null, stdout: '', stderr: err.message, missing: err.code === 'ENOENT', timedOut });
    });
    child.on('close', (code, sig) => {
      if (sig === 'SIGTERM' && code === null) timedOut = true;
      resolve({ code, stdout: size > MAX_OUTPUT ? '' : Buffer.concat(out).toString('utf8'), stderr, missing: false, timedOut });
    });
  });
}

const firstLine = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l && !/^warning/i.test(l)) ?? '';

/** The command an author runs to fix one file. */
export function fixCommand(spec: FormatterSpec, path: string): string {
  if (spec.id === 'gofmt') return `gofmt -w ${path}`;
  return spec.edition ? `rustfmt --edition ${spec.edition} ${path}` : `rustfmt ${path}`;
}

export async function formatText(spec: FormatterSpec, text: string, signal?: AbortSignal): Promise<FormatOutcome> {
  const scratch = await makeScratchDir('fmt');
  const dir = scratch.path;
  try {
    let args: string[] = [];
    if (spec.id === 'rustfmt') {
      const config = join(dir, 'rustfmt.toml');
      await writeFile(config, spec.config ?? '', { mode: 0o600 });
      args = ['--emit', 'stdout', ...(spec.edition ? ['--edition', spec.edition] : []), '--config-path', config];
    }
    const r = await run(spec.gofmtPath ?? spec.id, args, text, dir, signal, spec.rustupToolchain);
    if (r.missing) return { kind: 'tool-failed', cause: `${spec.id} is not installed on the machine running slopgate`, missing: true };
    if (r.timedOut) return { kind: 'tool-failed', cause: `${spec.id} did not finish within ${TIMEOUT_MS / 1000} s` };
    if (r.code === 0) {
      if (r.stdout === '' && text.trim() !== '')
        return { kind: 'tool-failed', cause: `${spec.id} printed nothing (its output was too large or it failed silently)` };
      return { kind: 'formatted', text: r.stdout };
    }
    // gofmt: `<standard input>:3:1: expected …` (exit 2); rustfmt: `error: …` then ` --> <stdin>:2:14` (exit 1)
    if (spec.id === 'gofmt' && r.code === 2 && /^<standard input>:\d+/m.test(r.stderr))
      return { kind: 'unparsable', detail: firstLine(r.stderr) };
    if (spec.id === 'rustfmt' && r.code === 1 && /<stdin>:\d+/.test(r.stderr)) return { kind: 'unparsable', detail: firstLine(r.stderr) };
    return { kind: 'tool-failed', cause: `${spec.id} exited with ${String(r.code)}: ${firstLine(r.stderr) || 'no message'}` };
  } finally {
    await scratch.remove();
  }
}
