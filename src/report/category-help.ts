import type { Category } from '../core/categories.js';

/**
 * One sentence per finding category: what the rule catches. Used for SARIF rule descriptions (code
 * scanning shows them at the top of an alert) and anywhere a reader needs the rule, not the instance.
 */
export const CATEGORY_HELP: Record<Category, string> = {
  'lockfile-stale':
    "A manifest's dependencies changed but the lockfile that pins them did not: a frozen install (npm ci, uv sync --locked, cargo --locked, go build) refuses it.",
  'manifest-edit': 'A build manifest (package.json, go.mod, Cargo.toml, pyproject.toml, …) was edited without a sanction.',
  'sensitive-path': 'The change touches a sensitive path: secrets files, CI workflows, CODEOWNERS, or a lockfile without its manifest.',
  'oversize-file': 'The change adds or grows a file beyond the size limit, or a symlink that points outside the repository.',
  'syntax-invalid': 'A changed source or config file no longer parses.',
  'ungrounded-import': 'New code imports a package the repository does not declare as a dependency.',
  'signature-change': 'The signature of an exported top-level function changed, which can break callers.',
  'scope-creep': 'The change touches files outside the scope it was given.',
  'toplevel-dropped': 'A top-level definition that existed at the base is missing at the head.',
  'test-regression': 'A test that passes at the base fails with this change.',
  'build-broken': 'The tests cannot be built or collected any more with this change.',
  'tests-removed': 'Tests that exist or ran at the base were deleted, or no longer run because the change edits the test configuration.',
  'tests-weakened': 'A test that exists at the base is skipped or disabled by the change, or loses assertions without getting new ones.',
  'tests-not-run':
    'The tests ran at the base but not with this change (killed at a limit, setup failed, toolchain gone), so the change is unverified.',
  'flaky-test': 'A test failed once with this change but passed when re-run; it is probably flaky.',
  'invented-api':
    'The TypeScript compiler finds that changed code uses a member, call or argument count that the value, whose type is fully known from the repository, does not have.',
  'history-hotspot': 'These paths failed the gate repeatedly in recent runs; a maintainer should look.',
  'schema-invalid': 'A known config file does not validate against its JSON Schema.',
  'ungrounded-framework': 'Documentation added by the change names a framework the repository does not use.',
  'ungrounded-package': 'A JS/TS config file references an npm package that package.json does not declare.',
  'doc-destroyed': 'A documentation edit destroyed most of its code examples or content, or left literal \\n sequences in code.',
  'dead-link': 'A link added by the change points to a file or page that does not exist.',
  'low-psi': 'The Ψ-lite quality score of a changed file is below the threshold (ungrounded claims or slop patterns).',
  style: 'A style problem reported by a reviewer (human conventions, naming, layout).',
  'dead-code': 'Code that can never run or is never used.',
  'dangling-thread': 'Work left half-done: a started change that is not finished or wired up.',
  'todo-marker': 'A TODO/FIXME marker added by the change.',
  'import-hygiene': 'Unused, duplicated or badly ordered imports.',
  'comment-hygiene': 'Comments that are stale, misleading or only restate the code.',
  'lint-violation': 'A linter rule is violated.',
  'missing-test': 'New behaviour has no test.',
  'edge-case-gap': 'An edge case is not handled or not tested.',
  'weak-assertion': 'A test asserts too little to catch a regression.',
  'silenced-failure': 'An error is swallowed or a failing check is silenced.',
  'test-naming': 'A test name does not say what it checks.',
  'non-deterministic': 'A test or code path depends on time, order or randomness.',
  'verify-mismatch': 'What the change claims to verify does not match what it verifies.',
  'unmet-criterion': 'An acceptance criterion is not satisfied by the diff.',
  'over-engineering': 'More machinery than the problem needs.',
  'stdlib-reinvention': 'Re-implements something the standard library already provides.',
  'native-duplication': 'Duplicates a capability the platform or framework already has.',
  shrinkable: 'The same result can be reached with noticeably less code.',
  'information-missing': 'Facts needed to judge the change are missing.',
  'question-to-user': 'The gate needs an answer from the author to continue.',
  'gate-workflow-changed':
    'The pull request changes the workflow that runs slopgate (its inputs, or the workflows and actions it uses), so its gate cannot be trusted; a maintainer must review it.',
  'locked-decision-violation': 'The change goes against a decision the project has locked.',
  'infrastructure-mismatch': 'The change assumes infrastructure the project does not have.',
  'config-invalid': "The repository's slopgate configuration is invalid.",
  'guard-error': 'A guard crashed or ran out of time, so part of the change is unchecked.',
  'critic-error': 'A reviewer produced output the gate cannot route (for example an unknown category).',
  'stuck-detected': 'The gate stopped making progress on this pull request.',
};

export function categoryHelp(category: string): string {
  return Object.prototype.hasOwnProperty.call(CATEGORY_HELP, category)
    ? (CATEGORY_HELP as Record<string, string>)[category]! // cast: widening only: looked up with any string
    : `Findings of the category "${category}".`;
}
