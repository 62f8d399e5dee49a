import { makeFinding, SEVERITY_RANK, type Finding } from '../core/finding.js';

/** Findings of one kind (guard and category) shown one by one; the rest fold into one summary finding. */
export const FOLD_BOUND = 100;

/** How many findings `f` stands for: a folded summary counts the findings folded into it. */
export function findingWeight(f: Finding): number {
  const folded = f.evidence?.folded;
  return f.cause?.startsWith('folded ') && typeof folded === 'number' && folded > 0 ? folded : 1;
}

/**
 * Folds a flood: for each guard and category with more than `bound` findings, the first `bound - 1` (in
 * the sorted order) stay, and the rest become one finding that gives their count, the worst severity
 * among them, and the first few paths. The decision weighs the summary like the findings it stands for.
 */
export function foldFindings(findings: Finding[], bound = FOLD_BOUND): Finding[] {
  const byKind = new Map<string, Finding[]>();
  for (const f of findings) {
    const key = `${f.guard}\0${f.category}`;
    const group = byKind.get(key);
    if (group) group.push(f);
    else byKind.set(key, [f]);
  }
  const folded = new Set<Finding>();
  const summaries: Finding[] = [];
  for (const group of byKind.values()) {
    if (group.length <= bound) continue;
    const rest = group.slice(bound - 1);
    for (const f of rest) folded.add(f);
    const first = rest[0]!;
    const worst = rest.reduce((a, b) => (SEVERITY_RANK[b.severity] < SEVERITY_RANK[a.severity] ? b : a)).severity;
    const paths = [...new Set(rest.flatMap((f) => (f.path ? [f.path] : [])))];
    summaries.push(
      makeFinding({
        guard: first.guard,
        category: first.category,
        severity: worst,
        message: `${rest.length} more ${first.category} findings of ${first.guard} are folded into this one (${group.length} in all; ${bound - 1} are listed one by one). The first of them: ${first.message}`,
        remediation: first.remediation,
        cause: `folded ${first.guard} ${first.category}`,
        evidence: { folded: rest.length, total: group.length, paths: paths.slice(0, 20) },
        confirmedBy: [...first.confirmedBy],
      }),
    );
  }
  if (summaries.length === 0) return findings;
  return [...findings.filter((f) => !folded.has(f)), ...summaries];
}
