import { GitCommandError, git } from '../../core/git.js';
import type { GuardContext } from '../../core/guard.js';
import { isSkippedPath } from '../../repo/manifests/index.js';

/** One line of the head tree that mentions at least one of the searched names as a whole word. */
export interface HeadHit {
  path: string;
  /** 1-based. */
  line: number;
  text: string;
}

/** Source files of a language family, as git pathspecs (a `*` crosses folders). */
const FAMILY_PATHSPECS: Record<string, string[]> = {
  python: ['*.py', '*.pyi'],
  js: ['*.js', '*.jsx', '*.mjs', '*.cjs', '*.ts', '*.tsx', '*.mts', '*.cts', '*.vue', '*.svelte'],
  go: ['*.go'],
  rust: ['*.rs'],
  java: ['*.java'],
};

/** Names searched in one `git grep` (each one is a separate `-e`); longer lists are split. */
const NAMES_PER_SEARCH = 200;
/** Lines longer than this are generated or minified code; they are skipped. */
const MAX_LINE = 800;

function parse(out: string, sha: string): HeadHit[] {
  const hits: HeadHit[] = [];
  const prefix = `${sha}:`;
  for (const rec of out.split('\n')) {
    if (!rec.startsWith(prefix)) continue;
    const a = rec.indexOf('\0', prefix.length);
    const b = a < 0 ? -1 : rec.indexOf('\0', a + 1);
    if (b < 0) continue;
    const path = rec.slice(prefix.length, a);
    const text = rec.slice(b + 1);
    if (text.length > MAX_LINE || isSkippedPath(path)) continue;
    hits.push({ path, line: Number(rec.slice(a + 1, b)), text });
  }
  return hits;
}

async function grep(repoDir: string, sha: string, names: string[], specs: string[]): Promise<string> {
  const args = ['grep', '-n', '-z', '-w', '-F', '-I', '--no-color', '--full-name', ...names.flatMap((n) => ['-e', n]), sha, '--', ...specs];
  try {
    return await git(repoDir, args);
  } catch (err) {
    // exit status 1 with nothing on stderr: no line matched
    if (err instanceof GitCommandError && err.code === 1 && !err.stderr.trim()) return '';
    throw err;
  }
}

/**
 * Every line of the head tree's `family` source files that mentions one of `names` as a whole word
 * (`git grep -w` on the head commit, so nothing is checked out and the cost is one pass over the
 * blobs). Vendored folders and overlong lines are left out. Memoised per run and name set.
 */
export function searchHead(ctx: GuardContext, family: string, names: readonly string[]): Promise<HeadHit[]> {
  const specs = FAMILY_PATHSPECS[family];
  const unique = [...new Set(names)].filter((n) => /^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(n)).sort();
  if (!specs || unique.length === 0) return Promise.resolve([]);
  return ctx.memo(`g7:head-search:${family}:${unique.join(',')}`, async () => {
    const hits: HeadHit[] = [];
    for (let i = 0; i < unique.length; i += NAMES_PER_SEARCH) {
      if (ctx.signal.aborted) break;
      hits.push(...parse(await grep(ctx.head.repoDir, ctx.head.sha, unique.slice(i, i + NAMES_PER_SEARCH), specs), ctx.head.sha));
    }
    return hits;
  });
}
