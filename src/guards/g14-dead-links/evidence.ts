import { z } from 'zod';
import type { EvidenceSchema } from '../../core/evidence.js';

const LINK_KIND = z.enum(['link', 'image', 'reference', 'autolink', 'url', 'html', 'rst']);

/** A relative link to a path that does not exist; one `candidates` entry is what the refiner's `g14-relink` recipe links to. */
export const g14MissingPathEvidence = z.object({
  target: z.string(),
  tried: z.array(z.string()),
  kind: LINK_KIND,
  candidates: z.array(z.string()).optional(),
});
export type G14MissingPathEvidence = z.infer<typeof g14MissingPathEvidence>;

/** A link GitHub resolves from the repository root, which breaks elsewhere; `fix` is the relative target the recipe writes. */
export const g14RootOnlyEvidence = z.object({
  target: z.string(),
  resolvesTo: z.string(),
  existsAt: z.string(),
  fix: z.string(),
  kind: LINK_KIND,
});
export type G14RootOnlyEvidence = z.infer<typeof g14RootOnlyEvidence>;

/** A link to an anchor the target file does not have. */
export const g14AnchorEvidence = z.object({ target: z.string(), file: z.string(), anchor: z.string(), closest: z.string().optional() });
export type G14AnchorEvidence = z.infer<typeof g14AnchorEvidence>;

/** An external URL the online check found dead. */
export const g14DeadUrlEvidence = z.object({ url: z.string(), reason: z.string(), httpStatus: z.number().optional() });
export type G14DeadUrlEvidence = z.infer<typeof g14DeadUrlEvidence>;

/** Every evidence shape G14 writes. */
export const G14_EVIDENCE: readonly EvidenceSchema[] = [g14MissingPathEvidence, g14RootOnlyEvidence, g14AnchorEvidence, g14DeadUrlEvidence];
