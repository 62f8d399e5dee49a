import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SyntaxProblem } from './config-parsers.js';
import { makeScratchDir } from '../../core/scratch.js';

/**
 * Shell syntax, judged by bash itself: `bash -n` reads a script without running any of it (no
 * command, expansion or substitution is executed; only the parser runs). The script is written to a
 * private temporary file (bash reports line numbers only for a file) and bash starts without rc
 * files, profile or inherited environment (`BASH_ENV` would otherwise be sourced), with `extglob`
 * on, since scripts that enable it at run time use its patterns further down. tree-sitter-bash was
 * measured and not used: it reports errors in about 8 % of valid system scripts.
 *
 * Null when the script parses, or when bash is not installed (nothing can be said then).
 */
const BASH_TIMEOUT_MS = 10_000;
const MAX_STDERR = 64 * 1024;

let bashMissing = false;

function runBash(file: string): Promise<{ code: number | null; stderr: string } | null> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['--norc', '--noprofile', '-O', 'extglob', '-n', file], {
      env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: BASH_TIMEOUT_MS,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < MAX_STDERR) stderr += chunk.toString('utf8');
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') bashMissing = true;
      resolve(null);
    });
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** The first `line N: message` bash printed for `file`. */
function firstError(stderr: string, file: string): SyntaxProblem | null {
  for (const raw of stderr.split('\n')) {
    const line = raw.startsWith(`${file}: `) ? raw.slice(file.length + 2) : raw;
    const m = /^line (\d+): (.*)$/.exec(line);
    if (!m) continue;
    const text = m[2]!;
    if (/^`.*'$/.test(text)) continue; // bash echoes the offending line after the message
    return { line: Number(m[1]), column: 1, message: text };
  }
  return null;
}

export async function checkShell(text: string): Promise<SyntaxProblem | null> {
  if (bashMissing) return null;
  const scratch = await makeScratchDir('sh');
  const dir = scratch.path;
  const file = join(dir, 'script.sh');
  try {
    await writeFile(file, text, { mode: 0o600 });
    const result = await runBash(file);
    if (!result || result.code === 0) return null;
    if (result.code === null) return null; // timed out or killed: no verdict
    return firstError(result.stderr, file) ?? { line: 1, column: 1, message: result.stderr.trim().split('\n')[0] ?? 'bash -n failed' };
  } finally {
    await scratch.remove();
  }
}

/** Whether a shell script's first line asks for an interpreter bash cannot stand in for (zsh, fish, ksh …). */
export function foreignShebang(text: string): boolean {
  const m = /^#!\s*(?:\S*\/)?(?:env\s+(?:-\S+\s+)*)?([^\s/]+)/.exec(text);
  if (!m) return false;
  return !/^(?:ba|da)?sh$/.test(m[1]!);
}
