import { posix } from 'node:path';
import { parseDismissCommand } from '../core/dismiss-command.js';
import { codeSpan } from '../report/markdown-escape.js';

export type Command =
  | { name: 'recheck' }
  | { name: 'refine' }
  | { name: 'allow'; path: string }
  | { name: 'explain'; findingId: string }
  | { name: 'dismiss'; findingId: string; reason: string }
  | { name: 'reset' }
  | { name: 'help' }
  | { name: 'unknown'; text: string; problem: string };

export const COMMAND_PREFIX = '/slopgate';

export const HELP_TEXT = [
  'slopgate commands (write them as a PR comment, one per comment):',
  '',
  '| command | what it does | who may use it |',
  '|---|---|---|',
  '| `/slopgate recheck` | gate the current head again | the PR author, or anyone with write access |',
  '| `/slopgate refine` | ask the refiner to fix the findings | write access |',
  '| `/slopgate allow <path>` | sanction a build manifest or sensitive file this PR changes, as it is now (a later change needs a new allow), then recheck | write access, not the PR author |',
  '| `/slopgate explain <finding-id>` | show a finding in full (message, what to do, evidence) | anyone |',
  '| `/slopgate dismiss <finding-id> <reason>` | accept one finding: it stays in the report as dismissed and no longer blocks, while its fingerprint is unchanged | write access, not the PR author |',
  "| `/slopgate reset` | reset this PR's refine round counter | write access |",
  '| `/slopgate help` | this table | anyone |',
].join('\n');

/**
 * Finds the first `/slopgate …` line of a comment (outside quoted lines and code fences) and parses
 * it. Returns null when the comment holds no command.
 */
export function parseCommand(body: string | null | undefined): Command | null {
  let inFence = false;
  for (const raw of (body ?? '').split(/\r?\n/)) {
    const line = raw.trim();
    if (/^(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence || line.startsWith('>')) continue;
    if (line !== COMMAND_PREFIX && !line.startsWith(`${COMMAND_PREFIX} `)) continue;
    const args = line.slice(COMMAND_PREFIX.length).trim().split(/\s+/).filter(Boolean);
    return interpret(args, line);
  }
  return null;
}

function interpret(args: string[], line: string): Command {
  const [first, ...rest] = args;
  const verb = first ?? '';
  switch (verb.toLowerCase()) {
    case 'recheck':
    case 'refine':
    case 'reset':
    case 'help':
      return { name: verb.toLowerCase() as 'recheck' }; // cast: the case labels above are exactly these names
    case 'allow': {
      const arg = rest.join(' ');
      if (!arg) return { name: 'unknown', text: line, problem: '`allow` needs a path, e.g. `/slopgate allow package.json`' };
      const path = normaliseAllowPath(arg);
      if (!path.ok) return { name: 'unknown', text: line, problem: path.problem };
      return { name: 'allow', path: path.path };
    }
    case 'explain': {
      const id = rest[0] ?? '';
      if (!/^[A-Za-z0-9_-]{4,64}$/.test(id))
        return {
          name: 'unknown',
          text: line,
          problem: '`explain` needs a finding id as shown in the check run, e.g. `/slopgate explain 3f2a9c1b7d0e`',
        };
      return { name: 'explain', findingId: id };
    }
    case 'dismiss': {
      const parsed = parseDismissCommand(line);
      if (!parsed?.ok) return { name: 'unknown', text: line, problem: parsed?.problem ?? 'could not read the dismiss command' };
      return { name: 'dismiss', findingId: parsed.findingId, reason: parsed.reason };
    }
    case '':
      return { name: 'help' };
    default:
      return { name: 'unknown', text: line, problem: `${codeSpan(verb.slice(0, 40))} is not a slopgate command` };
  }
}

/**
 * A repo-relative path (or glob) from a comment, made safe: backticks and quotes around it removed,
 * backslashes turned into slashes, `./` and leading `/` dropped; `..`, NUL and control characters refused.
 */
export function normaliseAllowPath(input: string): { ok: true; path: string } | { ok: false; problem: string } {
  let p = input
    .trim()
    .replace(/^[`'"]+|[`'"]+$/g, '')
    .replace(/\\/g, '/');

  if (/[\u0000-\u001f\u007f]/.test(p)) return { ok: false, problem: 'the path contains control characters' };
  if (p.includes('`')) return { ok: false, problem: 'the path may not contain backticks' };
  if (p.length > 512) return { ok: false, problem: 'the path is longer than 512 characters' };
  if (p.split('/').includes('..')) return { ok: false, problem: 'the path may not contain `..`: give it relative to the repository root' };
  p = posix.normalize(p.replace(/^\/+/, ''));
  if (p === '.' || p === '' || p.startsWith('../')) return { ok: false, problem: 'give a file path relative to the repository root' };
  return { ok: true, path: p.replace(/\/+$/, '') };
}
