import type { ChangedFile } from '../../core/patch-set.js';
import type { GuardContext } from '../../core/guard.js';
import { fingerprintFor } from '../../repo/fingerprint.js';
import { docKindOf } from '../shared/doc-files.js';
import { frameworkClaims, isGroundedFramework } from '../shared/framework-claims.js';
import { ownNames } from '../shared/own-names.js';
import { configToolOf } from '../shared/config-references.js';
import { addedReferences, hasPackageJson, isGroundedPackage } from '../shared/package-grounding.js';

/** Γ of one file: the fraction of its framework/package claims that the repo grounds (1.0 = all). */
export interface GammaResult {
  gamma: number;
  /** Claims counted, for the report (e.g. ['react: ungrounded', 'clap: grounded']). */
  evidence: string[];
  /** How many distinct claims the repository does not ground. */
  ungrounded?: number;
}

function fraction(claims: Map<string, boolean>): GammaResult {
  if (claims.size === 0) return { gamma: 1, evidence: [], ungrounded: 0 };
  const grounded = [...claims.values()].filter(Boolean).length;
  const evidence = [...claims].map(([name, ok]) => `${name}: ${ok ? 'grounded' : 'ungrounded'}`);
  return { gamma: grounded / claims.size, evidence, ungrounded: claims.size - grounded };
}

/**
 * Grounding fraction for Ψ-lite, from the same evidence G11 and G12 use (PR-added text only):
 * a doc scores grounded/total over the distinct frameworks it newly mentions; a JS/TS config file
 * scores grounded/total over the distinct npm packages it newly references (1.0 without a
 * package.json); every other file, and a repo without manifests, scores 1.0.
 */
export async function gammaOf(file: ChangedFile, ctx: GuardContext): Promise<GammaResult> {
  if (file.status === 'deleted' || file.head.text === null) return { gamma: 1, evidence: [] };
  const isDoc = docKindOf(file.path) !== null;
  const isConfig = configToolOf(file.path) !== null;
  if (!isDoc && !isConfig) return { gamma: 1, evidence: [] };
  const fp = await fingerprintFor(ctx);
  const claims = new Map<string, boolean>();
  if (isDoc && fp.manifests.length > 0) {
    const own = await ownNames(ctx, fp);
    for (const claim of frameworkClaims(file, fp)) claims.set(claim.id, isGroundedFramework(claim.id, fp, own));
  } else if (isConfig && hasPackageJson(fp)) {
    for (const ref of await addedReferences(file)) claims.set(ref.name, isGroundedPackage(ref.name, fp));
  }
  return fraction(claims);
}
