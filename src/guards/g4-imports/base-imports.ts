import { GitCommandError, git } from '../../core/git.js';
import type { GuardContext } from '../../core/guard.js';
import type { Ecosystem } from '../../repo/fingerprint-types.js';

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** An extended regex (git grep -E, POSIX classes) for an import of `pkg`, and the files to search. */
function patternFor(ecosystem: Ecosystem, pkg: string): { re: string; specs: string[] } | null {
  const p = esc(pkg);
  switch (ecosystem) {
    case 'python':
      return {
        re: `^[[:space:]]*(from[[:space:]]+${p}([.[:space:]]|$)|import[[:space:]]+([A-Za-z_][A-Za-z0-9_.]*[[:space:]]*,[[:space:]]*)*${p}([.,[:space:]]|$))`,
        specs: ['*.py', '*.pyi'],
      };
    case 'npm':
      return {
        re: `(from|require\\(|import\\(|import)[[:space:]]*['"]${p}(/[^'"]*)?['"]`,
        specs: ['*.js', '*.jsx', '*.mjs', '*.cjs', '*.ts', '*.tsx', '*.mts', '*.cts', '*.vue', '*.svelte', '*.mdx'],
      };
    case 'rust':
      return { re: `(^|[^A-Za-z0-9_:])(use|extern[[:space:]]+crate)[[:space:]]+(::)?${p}([^A-Za-z0-9_]|$)`, specs: ['*.rs'] };
    default:
      return null;
  }
}

/**
 * True when some source file of the base tree (below `under`, when given) already imports `pkg`: the PR does not introduce the
 * package, the repository already relies on it being installed (a transitive or dev dependency, a
 * type-only import under `TYPE_CHECKING`). One `git grep -q` on the base commit, memoised per package.
 */
export function importedAtBase(ctx: GuardContext, ecosystem: Ecosystem, pkg: string, under = ''): Promise<boolean> {
  const pattern = patternFor(ecosystem, pkg);
  if (!pattern) return Promise.resolve(false);
  // A git pathspec's `*` crosses folders: `packages/a/*.ts` is every .ts file below packages/a.
  const specs = under ? pattern.specs.map((s) => `${under}/${s}`) : pattern.specs;
  return ctx.memo(`g4:imported-at-base:${ecosystem}:${pkg}:${under}`, async () => {
    try {
      await git(ctx.base.repoDir, ['grep', '-q', '-I', '-E', '-e', pattern.re, ctx.base.sha, '--', ...specs]);
      return true;
    } catch (err) {
      if (err instanceof GitCommandError && err.code === 1 && !err.stderr.trim()) return false;
      throw err;
    }
  });
}
