/**
 * The guard registry: every guard id slopgate knows, in the order of the report's guard table, and whether the
 * refiner judges its candidates by it. The lists the rest of the code uses are derived from it:
 * `GUARD_IDS` (config `guards.disable`, the CLI's `--only` and `--skip`), `GUARDS` in src/guards/index.ts (the
 * guard objects, one per id: its type makes a missing or extra guard a compile error) and `refinerGuardIds()`
 * (src/refiner/verdict.ts). Ids compare case-insensitively.
 *
 * It lives in core, not beside the guard objects, because the config schema checks `guards.disable` against
 * it and `slopgate help` (which loads core only) names the refiner's guards from it; everything else about a
 * guard is on its object and in its folder, and test/guards/guard-folders.test.ts ties each id to them.
 *
 * `refiner`: the place of the guard's verdict when the refiner judges a candidate (the first failing verdict
 * names the revert), or why the refiner leaves the guard out.
 */
export const GUARD_REGISTRY = [
  { id: 'G1', refiner: { verdict: 1 } },
  { id: 'G2', refiner: { verdict: 2 } },
  { id: 'G4', refiner: { verdict: 3 } },
  { id: 'G7', refiner: { verdict: 9 } },
  { id: 'G10', refiner: { verdict: 4 } },
  { id: 'G11', refiner: { verdict: 5 } },
  { id: 'G12', refiner: { verdict: 6 } },
  { id: 'G13', refiner: { verdict: 7 } },
  { id: 'G14', refiner: { verdict: 8 } },
  // G15, G16 and G17 were written after the refiner and have not been enrolled yet. Enrolling one changes which
  // candidates the refiner keeps (a candidate that weakens a test the PR changed would be reverted by G15), so it is
  // a change of behaviour to decide and test on its own, not part of keeping the lists in one place.
  { id: 'G15', refiner: { leftOut: 'written after the refiner, not enrolled yet: a weakened test in a candidate is not caught' } },
  { id: 'G16', refiner: { leftOut: "written after the refiner, not enrolled yet: a candidate's formatting is not checked" } },
  { id: 'G17', refiner: { leftOut: 'written after the refiner, not enrolled yet: a candidate calling a missing member is not caught' } },
  { id: 'G8', refiner: { verdict: 11 } },
  {
    id: 'G9',
    refiner: { leftOut: "it judges a file's failure history, which a candidate cannot change (the refiner avoids its hotspots)" },
  },
  { id: 'psi', refiner: { verdict: 10 } },
] as const satisfies readonly GuardRegistryEntry[];

interface GuardRegistryEntry {
  id: string;
  refiner: { verdict: number } | { leftOut: string };
}

export type GuardId = (typeof GUARD_REGISTRY)[number]['id'];

/** Every guard id, in registry order. */
export const GUARD_IDS: readonly GuardId[] = GUARD_REGISTRY.map((g) => g.id);

/** The guards that judge a refiner candidate, in the order their verdicts are reported. */
export function refinerGuardIds(): GuardId[] {
  const judged: { id: GuardId; verdict: number }[] = [];
  for (const g of GUARD_REGISTRY) if ('verdict' in g.refiner) judged.push({ id: g.id, verdict: g.refiner.verdict });
  return judged.sort((a, b) => a.verdict - b.verdict).map((g) => g.id);
}

/** `G1, G2, G4, G7, G8, G10–G14, Ψ`: the ids in number order, a run of three or more as a range, Ψ last. */
export function guardIdsText(ids: readonly string[]): string {
  const numbers = ids
    .filter((id) => id !== 'psi')
    .map((id) => Number(id.slice(1)))
    .sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < numbers.length;) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j]! + 1) j++;
    if (j - i >= 2) parts.push(`G${numbers[i]}–G${numbers[j]}`);
    else for (let k = i; k <= j; k++) parts.push(`G${numbers[k]}`);
    i = j + 1;
  }
  if (ids.includes('psi')) parts.push('Ψ');
  return parts.join(', ');
}

/** The registry's spelling of `id` (`g7` → `G7`, `PSI` → `psi`), or undefined when no guard has it. */
export function canonicalGuardId(id: string): string | undefined {
  const wanted = id.trim().toUpperCase();
  return GUARD_IDS.find((g) => g.toUpperCase() === wanted);
}

/** The ids in `ids` that name no guard. */
export function unknownGuardIds(ids: readonly string[]): string[] {
  return ids.filter((id) => canonicalGuardId(id) === undefined);
}

export function knownGuardIdsText(): string {
  return GUARD_IDS.join(', ');
}
