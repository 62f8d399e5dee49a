import { basename } from 'node:path';
import { gitMaybe } from '../../core/git.js';
import type { GuardContext } from '../../core/guard.js';
import type { RepoFingerprint } from '../../repo/fingerprint-types.js';

/**
 * The repository's own names: what its docs legitimately call the project. The Go module path and its
 * last segment, npm workspace package names, Rust crates, Python projects, the repository name (from
 * the report's repo name, the `origin` remote and the checkout's folder name). "Cobra supports …" in
 * the cobra repository's docs talks about itself, not about a framework it forgot to declare.
 */
export async function ownNames(ctx: GuardContext, fp: RepoFingerprint): Promise<Set<string>> {
  return ctx.memo('g11:own-names', async () => {
    const names = new Set<string>();
    const add = (raw: string | undefined | null) => {
      const name = raw?.trim();
      if (name) names.add(name.toLowerCase());
    };
    for (const mod of fp.goModules) {
      add(mod);
      add(
        mod
          .replace(/\/v\d+$/, '')
          .split('/')
          .at(-1),
      );
    }
    for (const n of [...fp.localPackages, ...fp.rustCrates, ...fp.pythonProjects]) {
      add(n);
      add(n.replace(/^@[^/]+\//, '')); // @scope/name → name
    }
    add(basename(ctx.patch.repoDir));
    const repoName = ctx.services.repoName;
    if (typeof repoName === 'string') add(repoName.split('/').at(-1));
    const origin = await gitMaybe(ctx.patch.repoDir, ['config', '--get', 'remote.origin.url']).catch(() => null);
    if (origin)
      add(
        origin
          .trim()
          .replace(/\.git$/, '')
          .replace(/\/+$/, '')
          .split(/[/:]/)
          .at(-1),
      );
    return names;
  });
}

/** Name as compared: lower-cased, a `.js`/`js` suffix and every non-alphanumeric character dropped. */
export function nameKey(name: string): string {
  return name
    .toLowerCase()
    .replace(/(?:[.-]?js)$/, '')
    .replace(/[^a-z0-9]/g, '');
}
