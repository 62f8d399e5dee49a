import type { Category } from './categories.js';

/**
 * What a `slopgate-ignore` comment written in the pull request itself may dismiss. The rule: a PR
 * author may only silence what cannot break anything (no build, test or tool depends on it) and is not
 * a maintainer-only line. That leaves style nits and findings about the PR's own prose. Everything else
 * needs a maintainer: `/slopgate dismiss`, `ignore.findings` on the default branch, or for G1 paths a
 * sanction. The list in docs/guards.md is rendered from this constant (test/core/inline-policy.test.ts keeps them
 * equal), and no config can add to it: `ignore.inline` and `ignore.inlineMaxSeverity` only narrow it.
 */
export const INLINE_DISMISSIBLE = [
  // the PR's own prose
  'dead-link',
  'ungrounded-framework',
  'low-psi',
  // style and tidiness nits
  'style',
  'comment-hygiene',
  'todo-marker',
  'import-hygiene',
  'dead-code',
  'test-naming',
  'over-engineering',
  'stdlib-reinvention',
  'native-duplication',
  'shrinkable',
] as const satisfies readonly Category[];

/** Why each maintainer-only category is one: shown when a marker tries to dismiss it. */
const MAINTAINER_ONLY: Readonly<Record<string, string>> = {
  // G1: a maintainer allows these with a sanction (manifests.allow, the label, /slopgate allow)
  'manifest-edit': 'build manifests decide what every build installs and runs',
  'sensitive-path': 'workflows, CODEOWNERS, lockfiles, secrets and escaping links are maintainer-only paths',
  'oversize-file': 'what goes into the repository for good is a maintainer decision',
  'lockfile-stale': 'the installer refuses a lockfile that no longer matches its manifest',
  // G8 and the tests themselves
  'test-regression': 'the test gate (G8) saw a test fail',
  'build-broken': 'the test gate (G8) saw the build break',
  'tests-removed': 'removing tests is a maintainer decision',
  'tests-weakened': 'weakening tests is a maintainer decision',
  'tests-not-run': 'the test gate (G8) could not get results for this change',
  'flaky-test': 'the test gate (G8) saw a test fail and pass on the same code',
  'weak-assertion': 'a test that asserts nothing is a weakened test',
  // routed to a maintainer by design
  'history-hotspot': 'the failure history asks for a maintainer',
  'locked-decision-violation': 'it overrides a decision the maintainers locked',
  'infrastructure-mismatch': 'infrastructure changes are a maintainer decision',
  'config-invalid': 'the configuration is a maintainer decision',
};

const INLINE_SET: ReadonlySet<string> = new Set(INLINE_DISMISSIBLE);

/** True when a `slopgate-ignore` comment in the PR may dismiss a finding of this category. */
export function inlineDismissible(category: string): boolean {
  return INLINE_SET.has(category);
}

/** Categories no inline comment may dismiss because only a maintainer may accept them (including reserved names). */
export function maintainerOnlyCategories(): string[] {
  return Object.keys(MAINTAINER_ONLY);
}

/**
 * The note a refused marker gets, e.g. "inline dismissal ignored: sensitive-path findings need a
 * maintainer — …", or undefined when the category is on the list.
 */
export function inlineCategoryRefusal(category: string): string | undefined {
  if (inlineDismissible(category)) return undefined;
  const why = MAINTAINER_ONLY[category] ?? 'it can break a build, a test or a tool, and a comment in the PR is not a review';
  return `inline dismissal ignored: ${category} findings need a maintainer — ${why}`;
}
