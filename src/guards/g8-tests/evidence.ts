import { z } from 'zod';
import type { EvidenceSchema } from '../../core/evidence.js';
import { testWeakeningRunEvidence } from '../shared/test-weakening-evidence.js';

/** A test that passes at the base and fails with the change (`runs`: how many runs it failed; `runner` is absent when none was chosen). */
export const g8RegressionEvidence = z.object({
  test: z.string(),
  runner: z.string().optional(),
  runs: z.number(),
  output: z.string().optional(),
});
export type G8RegressionEvidence = z.infer<typeof g8RegressionEvidence>;

/** A test unit (module, package, target, Maven module) that built at the base and does not with the change. */
export const g8BrokenUnitEvidence = z.object({ unit: z.string(), runner: z.string().optional(), output: z.string().optional() });
export type G8BrokenUnitEvidence = z.infer<typeof g8BrokenUnitEvidence>;

/** The suite stopped before any test reported. */
export const g8SuiteBrokenEvidence = z.object({ runner: z.string().optional(), exitCode: z.number().nullable(), output: z.string() });
export type G8SuiteBrokenEvidence = z.infer<typeof g8SuiteBrokenEvidence>;

/** The base ran; the change's run was stopped or could not start. */
export const g8NotRunEvidence = z.object({
  /** Absent when no runner was chosen. */
  runner: z.string().optional(),
  reason: z.string().optional(),
  killedBy: z.string().optional(),
  exitCode: z.number().nullable(),
  output: z.string(),
});
export type G8NotRunEvidence = z.infer<typeof g8NotRunEvidence>;

/** Tests the change's test configuration deselects. */
export const g8DeselectedEvidence = z.object({ count: z.number(), tests: z.array(z.string()), configChanges: z.array(z.string()) });
export type G8DeselectedEvidence = z.infer<typeof g8DeselectedEvidence>;

/** Removed tests whose base version fails against the change (`restored`: the base test files put back for the run). */
export const g8RemovedFailingEvidence = z.object({ tests: z.array(z.string()), restored: z.array(z.string()), output: z.string() });
export type G8RemovedFailingEvidence = z.infer<typeof g8RemovedFailingEvidence>;

/** Tests that are gone (or, with `skipped`, skipped) with the change; `removedWithCode` when the code they tested went too. */
export const g8RemovedEvidence = z.object({
  tests: z.array(z.string()),
  skipped: z.literal(true).optional(),
  /** Deleted with the code they tested: the modules deleted and the names nothing at the head defines. */
  removedWithCode: z.object({ modules: z.array(z.string()), names: z.array(z.string()) }).optional(),
});
export type G8RemovedEvidence = z.infer<typeof g8RemovedEvidence>;

/** An exit-code-only test command the change rewrote. */
export const g8UnverifiableEvidence = z.object({ configChanges: z.array(z.string()) });
export type G8UnverifiableEvidence = z.infer<typeof g8UnverifiableEvidence>;

/** A test that failed once and passed on re-run `passedOnRerun`. */
export const g8FlakyEvidence = z.object({ test: z.string(), passedOnRerun: z.number().optional() });
export type G8FlakyEvidence = z.infer<typeof g8FlakyEvidence>;

/** A newly failing test held back by the flaky memory (known flaky, with what made it so) or by tests.quarantine. */
export const g8KnownFlakyEvidence = z.object({
  test: z.string(),
  runs: z.number(),
  knownFlaky: z.object({ basis: z.enum(['base', 'prs']), prs: z.array(z.number()), flips: z.number() }).optional(),
  quarantined: z.literal(true).optional(),
});
export type G8KnownFlakyEvidence = z.infer<typeof g8KnownFlakyEvidence>;

/** The dependencies install at the base and not with the change. */
export const g8InstallEvidence = z.object({ ecosystem: z.string(), culprits: z.array(z.string()), output: z.string() });
export type G8InstallEvidence = z.infer<typeof g8InstallEvidence>;

/** In a monorepo run, the workspace package a finding belongs to: added to any of the shapes above. */
export const g8WorkspacePackage = z.object({ name: z.string(), dir: z.string() });
export type G8WorkspacePackage = z.infer<typeof g8WorkspacePackage>;

const withPackage = (shape: z.ZodObject): z.ZodObject[] => [shape, shape.extend({ package: g8WorkspacePackage })];

/** Every evidence shape G8 writes (its `tests-weakened` findings carry G15's fields and the run's), with and without the package. */
export const G8_EVIDENCE: readonly EvidenceSchema[] = [
  g8RegressionEvidence,
  g8BrokenUnitEvidence,
  g8SuiteBrokenEvidence,
  g8NotRunEvidence,
  g8DeselectedEvidence,
  g8RemovedFailingEvidence,
  g8RemovedEvidence,
  g8UnverifiableEvidence,
  g8FlakyEvidence,
  g8KnownFlakyEvidence,
  g8InstallEvidence,
  ...testWeakeningRunEvidence,
].flatMap(withPackage);
