/**
 * The closed vocabulary of finding categories and the routing bucket each one belongs to.
 * Anything outside this table is treated as unknown and routed to `stuck` (fail-closed).
 */
export type Bucket = 'refine' | 'ask-author' | 'escalate' | 'research' | 'stuck';

export const ROUTE_TABLE = {
  // G1
  'manifest-edit': 'ask-author',
  'sensitive-path': 'escalate',
  'oversize-file': 'ask-author',
  'lockfile-stale': 'ask-author',
  // G2 / G6
  'syntax-invalid': 'refine',
  // G4
  'ungrounded-import': 'refine',
  'signature-change': 'ask-author',
  'scope-creep': 'ask-author',
  // G7
  'toplevel-dropped': 'refine',
  // G8
  'test-regression': 'refine',
  'build-broken': 'refine',
  'tests-removed': 'ask-author',
  // G15 (static) and G8 (the base version re-run against the head)
  'tests-weakened': 'ask-author',
  'tests-not-run': 'refine',
  'flaky-test': 'refine',
  // G17
  'invented-api': 'refine',
  // G9
  'history-hotspot': 'escalate',
  // G10–G14, Ψ
  'schema-invalid': 'refine',
  'ungrounded-framework': 'refine',
  'ungrounded-package': 'refine',
  'doc-destroyed': 'refine',
  'dead-link': 'refine',
  'low-psi': 'refine',
  // LLM critic categories (Q&A, refiner), kept from the original route table
  style: 'refine',
  'dead-code': 'refine',
  'dangling-thread': 'refine',
  'todo-marker': 'refine',
  'import-hygiene': 'refine',
  'comment-hygiene': 'refine',
  'lint-violation': 'refine',
  'missing-test': 'refine',
  'edge-case-gap': 'refine',
  'weak-assertion': 'refine',
  'silenced-failure': 'refine',
  'test-naming': 'refine',
  'non-deterministic': 'refine',
  'verify-mismatch': 'refine',
  'unmet-criterion': 'refine',
  'over-engineering': 'refine',
  'stdlib-reinvention': 'refine',
  'native-duplication': 'refine',
  shrinkable: 'refine',
  'information-missing': 'research',
  'question-to-user': 'ask-author',
  'locked-decision-violation': 'escalate',
  'infrastructure-mismatch': 'escalate',
  'config-invalid': 'escalate',
  // the Action: the PR edits the workflow that runs slopgate
  'gate-workflow-changed': 'ask-author',
  // failures of the gate itself
  'guard-error': 'stuck',
  'critic-error': 'stuck',
  'stuck-detected': 'stuck',
} as const satisfies Record<string, Bucket>;

export type Category = keyof typeof ROUTE_TABLE;

export function isCategory(value: unknown): value is Category {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ROUTE_TABLE, value);
}

export function bucketOf(category: string): Bucket {
  return isCategory(category) ? ROUTE_TABLE[category] : 'stuck';
}
