/**
 * Every guard id slopgate knows, in registry order. Config (`guards.disable`) and the CLI (`--only`,
 * `--skip`) reject anything else; test/config/guard-ids.test.ts keeps this list equal to the ids of
 * the registry in src/guards/index.ts. Ids compare case-insensitively.
 */
export const GUARD_IDS = ['G1', 'G2', 'G4', 'G7', 'G10', 'G11', 'G12', 'G13', 'G14', 'G15', 'G16', 'G17', 'G8', 'G9', 'psi'] as const;

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
