import { z } from 'zod';
import type { EvidenceSchema } from '../../core/evidence.js';

/** A build manifest the PR edited: what changed in it, and whether undoing the edit is a safe known fix. */
export const g1ManifestEvidence = z.object({
  /** The file's status in the patch (`modified`, `added`, …). */
  status: z.enum(['added', 'modified', 'deleted', 'renamed', 'copied', 'type-changed']),
  /** An existing manifest edited without adding a dependency: the refiner may revert it. */
  collateral: z.boolean(),
  onlyVersions: z.enum(['versions', 'formatting']).optional(),
  /** The dependency bot that wrote the PR. */
  author: z.string().optional(),
  dependencies: z
    .array(
      z.object({
        name: z.string(),
        group: z.string(),
        kind: z.enum(['added', 'removed', 'changed']),
        before: z.string().optional(),
        after: z.string().optional(),
      }),
    )
    .optional(),
  sections: z
    .array(
      z.object({
        section: z.string(),
        kind: z.enum(['added', 'removed', 'changed', 'renamed']),
        from: z.string().optional(),
        keys: z.array(z.string()).optional(),
        impact: z.enum(['tool', 'build']),
      }),
    )
    .optional(),
});
export type G1ManifestEvidence = z.infer<typeof g1ManifestEvidence>;

/** A workflow edit that widens what the workflow can reach: one sentence per concern. */
export const g1WorkflowEvidence = z.object({ concerns: z.array(z.string()) });
export type G1WorkflowEvidence = z.infer<typeof g1WorkflowEvidence>;

/** A file over `limits.maxFileBytes`. */
export const g1OversizeEvidence = z.object({ bytes: z.number(), limit: z.number() });
export type G1OversizeEvidence = z.infer<typeof g1OversizeEvidence>;

/** A symbolic link that leaves the repository or points into `.git`. */
export const g1SymlinkEvidence = z.object({ target: z.string() });
export type G1SymlinkEvidence = z.infer<typeof g1SymlinkEvidence>;

/** A manifest whose dependency changes its unchanged lockfile does not match (`lockfile-stale`). */
export const g1StaleLockfileEvidence = z.object({
  /** The lockfile's path in the tree. */
  lockfile: z.string(),
  /** Its kind (basename): `package-lock.json`, `uv.lock`, `go.sum`, … */
  tool: z.string(),
  /** The CI file that installs in frozen mode (`always` for go.sum), or null (then the finding is a risk). */
  frozenInCi: z.string().nullable(),
  stale: z.array(
    z.object({
      name: z.string(),
      group: z.string(),
      kind: z.enum(['added', 'removed', 'changed']),
      before: z.string().optional(),
      after: z.string().optional(),
    }),
  ),
});
export type G1StaleLockfileEvidence = z.infer<typeof g1StaleLockfileEvidence>;

/** Every evidence shape G1 writes. */
export const G1_EVIDENCE: readonly EvidenceSchema[] = [
  g1ManifestEvidence,
  g1WorkflowEvidence,
  g1OversizeEvidence,
  g1SymlinkEvidence,
  g1StaleLockfileEvidence,
];
