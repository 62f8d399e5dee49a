import type { SandboxResult } from '../../sandbox/index.js';
import type { Ecosystem } from './deps-plan.js';

/** Lines that carry an installer's actual complaint, per ecosystem. */
const TELLING: Record<Ecosystem, RegExp> = {
  npm: /^npm (?:ERR!|error) (?!(?:A complete log|Log files|\s*$))/,
  pnpm: /(ERR_PNPM_\w+|^\s*ERROR\b)/,
  yarn: /^(?:error |➤ YN\d+: .*(?:error|Error|not found|No candidates|failed))/,
  python: /^(?:ERROR: |error: |\s*(?:ModuleNotFoundError|LookupError|FileNotFoundError|subprocess-exited-with-error))/,
  go: /^go: |^\S+\.go:\d+:\d+: |missing go\.sum entry|cannot find module/,
  cargo: /^(?:error(?:\[E\d+\])?: |\s+(?:failed to|required by|candidate versions found|location searched))/,
  maven: /^slopgate: Maven/,
};

/**
 * One paragraph a maintainer can act on: what the installer said (its telling lines, else its last
 * lines), and what the egress proxy refused, if anything.
 */
export function installFailureSummary(eco: Ecosystem, res: SandboxResult, tail: string, refusals: string[]): string {
  if (res.refused) return res.refused;
  const parts: string[] = [];
  if (res.killedBy === 'timeout') parts.push('the install did not finish in time');
  else if (res.killedBy === 'process-limit') parts.push('the install was stopped at the process limit');
  else if (res.memoryLimitHit) parts.push('the install ran out of memory');
  const lines = tail
    .split('\n')
    .map((l) => l.replace(/\x1b\[[0-9;]*m/g, '').trimEnd())
    .filter((l) => l.trim());
  const telling = [...new Set(lines.filter((l) => TELLING[eco].test(l) || /^(?:Error|TypeError|SyntaxError): /.test(l)))].slice(0, 4);
  const quoted = (telling.length ? telling : lines.slice(-3)).map((l) => l.trim().slice(0, 300));
  if (quoted.length) parts.push(quoted.join(' / '));
  if (!parts.length) parts.push(`the installer exited with code ${res.exitCode}`);
  // A package manager newer than this machine's Node.js fails on a built-in module it lacks (pnpm 10 and node:sqlite).
  if (/ERR_UNKNOWN_BUILTIN_MODULE|No such built-in module/.test(tail))
    parts.push(
      `the package manager needs a newer Node.js than this machine's (${process.version}); use a slopgate machine with the Node.js the project asks for`,
    );
  if (refusals.length) parts.push(`the sandbox's egress proxy refused ${refusals.slice(0, 3).join('; ')}`);
  return parts.join('; ');
}
