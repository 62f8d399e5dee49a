import { z } from 'zod';
import type { EvidenceSchema } from '../../core/evidence.js';
import { testWeakeningEvidence } from '../shared/test-weakening-evidence.js';

/** A test whose checks all sit in a try that swallows every failure. */
export const g15SwallowedEvidence = z.object({ test: z.string(), swallowed: z.literal(true) });
export type G15SwallowedEvidence = z.infer<typeof g15SwallowedEvidence>;

/** A test that checks nothing (`empty`: its body is empty). */
export const g15NoAssertEvidence = z.object({ test: z.string(), empty: z.boolean() });
export type G15NoAssertEvidence = z.infer<typeof g15NoAssertEvidence>;

/** The tests of a file past the per-file limit that check nothing, in one finding. */
export const g15MoreTestsEvidence = z.object({ tests: z.array(z.string()) });
export type G15MoreTestsEvidence = z.infer<typeof g15MoreTestsEvidence>;

/** A test file the configured runner never collects, and why. */
export const g15NeverRunsEvidence = z.object({ neverRuns: z.literal(true), why: z.string() });
export type G15NeverRunsEvidence = z.infer<typeof g15NeverRunsEvidence>;

/** Every evidence shape G15 writes (its `tests-weakened` findings share theirs with G8). */
export const G15_EVIDENCE: readonly EvidenceSchema[] = [
  testWeakeningEvidence,
  g15SwallowedEvidence,
  g15NoAssertEvidence,
  g15MoreTestsEvidence,
  g15NeverRunsEvidence,
];
