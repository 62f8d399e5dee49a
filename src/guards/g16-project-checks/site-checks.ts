import { commandsOfLine, type CommandSite, type PreCommitHook } from '../../repo/ci/command-site.js';
import { checksOfAction, clippyCheck, foundInCommand, HOOK_IDS, type Found } from './command-checks.js';

/** A rewriting formatter followed, in the same script, by a check that the tree did not change. */
const DIFF_GUARD = /git\s+diff\s+[^\n]*--(exit-code|quiet)|git\s+status\s+--porcelain|git\s+diff-index/;

/**
 * The checks one CI site runs: a command line's (with the `RUSTFLAGS` of its workflow step; a
 * formatter is enforced when its script then fails on a changed tree), a well-known action's, or a
 * pre-commit hook's.
 */
export function checksOfSite(site: CommandSite): Found[] {
  const rustflags = site.step?.env.RUSTFLAGS ?? '';
  if (site.kind === 'run') {
    const guarded = DIFF_GUARD.test(site.script);
    return commandsOfLine(site.line)
      .flatMap((seg) => foundInCommand(seg, rustflags))
      .map((c) => (guarded && c.tool !== 'clippy' ? { ...c, enforced: true } : c));
  }
  if (site.kind === 'uses' && site.step?.uses !== undefined) return checksOfAction(site.step.uses, site.step.with, rustflags);
  if (site.kind === 'hook' && site.hook) return hookChecks(site.hook);
  return [];
}

function hookChecks(hook: PreCommitHook): Found[] {
  const { id, entry, args } = hook;
  let checks: Found[];
  if (hook.repo === 'local' && entry !== undefined) checks = foundInCommand(args ? `${entry} ${args.join(' ')}` : entry, '');
  else if (id === 'fmt' && hook.repo.includes('rust')) checks = [{ tool: 'rustfmt', enforced: true }];
  else if (/^golangci-lint(?:-full|-fmt)?$/.test(id)) checks = [{ tool: 'gofmt', enforced: true, when: 'golangci-gofmt' }];
  else if (HOOK_IDS[id] === 'clippy') {
    // doublify's clippy hook denies warnings unless its args are replaced
    checks = [clippyCheck(args ?? ['--', '-D', 'warnings'], '')];
  } else checks = HOOK_IDS[id] ? [{ tool: HOOK_IDS[id], enforced: true, ...(args ? { args } : {}) }] : [];
  // pre-commit fails a hook that rewrote a file: a formatter hook is a check there (clippy: when warnings fail it).
  return checks.map((c) => (c.tool === 'clippy' ? c : { ...c, enforced: true }));
}
