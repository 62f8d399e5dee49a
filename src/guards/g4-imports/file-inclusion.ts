import type { GuardContext, GuardFinding } from '../../core/guard.js';
import type { Revision } from '../../core/revision.js';

/**
 * Whether anything the project builds, tests or runs includes a file: a file under a top-level
 * `examples/`, `scripts/` or `docs/` folder of a Python or JavaScript/TypeScript project, with no
 * manifest of its own there and named by no workflow, Makefile, tox or nox file, package script,
 * pyproject/setup.cfg or tsconfig, is shipped by no package and run by no job. An import it cannot
 * resolve breaks only whoever runs it by hand: a risk, not a failure. Go and Rust are left out:
 * `go build ./...` and `go vet ./...` build every package of the module, and cargo builds
 * `examples/` with the tests.
 */

/** Top-level folders that hold what a project shows or runs by hand, not what it ships. */
const ASIDE = new Set(['examples', 'example', 'samples', 'sample', 'demo', 'demos', 'scripts', 'docs', 'doc', 'snippets', 'playground']);

/** A manifest that makes its folder a package (or project) of its own. */
const MANIFEST = /(?:^|\/)(?:package\.json|pyproject\.toml|setup\.py|setup\.cfg|requirements[^/]*\.txt|Pipfile|deno\.jsonc?)$/;

/** Files that name what a project builds, tests and runs (a mention of the folder there includes it). */
const INCLUDERS =
  /^(?:\.github\/workflows\/[^/]+\.ya?ml|Makefile|makefile|GNUmakefile|tox\.ini|noxfile\.py|package\.json|pyproject\.toml|setup\.cfg|setup\.py|tsconfig[^/]*\.json|pytest\.ini|conftest\.py|\.gitlab-ci\.yml|Justfile|justfile|Taskfile\.ya?ml)$/;

const CODE = /\.(?:py|pyi|[cm]?[jt]sx?)$/;

async function mentioned(rev: Revision, top: string, path: string): Promise<boolean> {
  const paths = (await rev.paths()).filter((p) => INCLUDERS.test(p));
  const texts = await rev.readTexts(paths);
  const folder = new RegExp(`(?:^|[\\s"'\`=:,(\\[./])${top}(?:/|["'\`\\s,\\])]|$)`);
  for (const text of texts.values()) {
    // a line that leaves the folder out (`exclude`, `paths-ignore`, `norecursedirs`) does not include it
    const lines = text.split('\n').filter((l) => !/exclude|ignore|norecurse|omit/i.test(l));
    if (lines.some((l) => l.includes(path) || folder.test(l))) return true;
  }
  return false;
}

/**
 * Why nothing includes the file (`it is under examples/, …`), or null when something may: the
 * caller then keeps its findings' severity.
 */
export async function notIncluded(path: string, ctx: GuardContext): Promise<string | null> {
  if (!CODE.test(path)) return null;
  const parts = path.split('/');
  const top = parts[0]!;
  if (parts.length < 2 || !ASIDE.has(top)) return null;
  return ctx.memo(`g4:not-included:${path}`, async () => {
    // a manifest between the folder and the file: a package (or workspace member) of its own
    for (const rev of [ctx.base, ctx.head]) {
      const manifests = (await rev.paths()).filter((p) => p.startsWith(`${top}/`) && MANIFEST.test(p));
      const dirs = parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
      if (manifests.some((m) => dirs.includes(m.slice(0, m.lastIndexOf('/'))))) return null;
    }
    if ((await mentioned(ctx.base, top, path)) || (await mentioned(ctx.head, top, path))) return null;
    return `${path} is under ${top}/, which no package ships and no workflow, build or test configuration of the repository names`;
  });
}

/** Findings that would fail only whoever runs an included file by hand: risks, saying why. */
export function asideFindings(findings: GuardFinding[], why: string): GuardFinding[] {
  return findings.map((f) =>
    f.severity === 'fail'
      ? {
          ...f,
          severity: 'risk',
          message: `${f.message} Nothing the project builds, tests or runs includes this file (${why}), so it breaks only whoever runs it by hand.`,
        }
      : f,
  );
}
