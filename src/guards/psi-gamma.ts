import type { ChangedFile } from '../core/patch-set.js';
import type { GuardContext } from '../core/guard.js';

/** Γ of one file: the fraction of its framework/package claims that the repo grounds (1.0 = all). */
export interface GammaResult {
  gamma: number;
  /** Claims counted, for the report (e.g. ['react: ungrounded', 'clap: grounded']). */
  evidence: string[];
}

/**
 * Grounding fraction for Ψ-lite. Until the grounding guards (G11/G12) exist every file is fully
 * grounded; they replace this with the evidence they collect.
 */
export async function gammaOf(_file: ChangedFile, _ctx: GuardContext): Promise<GammaResult> {
  return { gamma: 1, evidence: [] };
}
